//! Subnet management packets (IBA 14.2.1): the LID-routed (class 0x01) and directed-route
//! (class 0x81) layouts after the common MAD header, and the attributes decoded from their
//! 64-byte SMP data: NodeInfo, PortInfo and SMInfo.

use super::super::{Layer, header_view, u8_at, u16_at, u32_at, u64_at};
use super::sub_at;

/// Attribute IDs of the SMP attributes decoded here.
pub const ATTR_NODE_INFO: u16 = 0x0011;
pub const ATTR_PORT_INFO: u16 = 0x0015;
pub const ATTR_SM_INFO: u16 = 0x0020;

/// Frame offset of the SMP data from the start of the SMP body (after the MAD header).
pub const DATA_OFFSET: usize = 40;

/// The longest directed route: the path arrays have 64 entries and entry 0 is unused.
pub const MAX_HOPS: u8 = 63;

header_view!(
    /// The 232 bytes after the MAD header of an SMP, either routing mode.
    SmpBody, 232, Layer::Smp
);

impl<'a> SmpBody<'a> {
    #[inline]
    pub fn m_key(&self) -> u64 {
        u64_at::<0, 232>(self.bytes)
    }
    /// Directed route only: the LID the return path starts from.
    #[inline]
    pub fn dr_slid(&self) -> u16 {
        u16_at::<8, 232>(self.bytes)
    }
    /// Directed route only.
    #[inline]
    pub fn dr_dlid(&self) -> u16 {
        u16_at::<10, 232>(self.bytes)
    }
    /// The attribute, wherever the routing mode puts it.
    #[inline]
    pub fn data(&self) -> &'a [u8; 64] {
        sub_at::<40, 64, 232>(self.bytes)
    }
    /// Directed route only: the output port at each hop, entry 0 unused.
    #[inline]
    pub fn initial_path(&self) -> &'a [u8; 64] {
        sub_at::<104, 64, 232>(self.bytes)
    }
    /// Directed route only: the input port at each hop, entry 0 unused.
    #[inline]
    pub fn return_path(&self) -> &'a [u8; 64] {
        sub_at::<168, 64, 232>(self.bytes)
    }
}

header_view!(
    /// NodeInfo (IBA 14.2.5.3).
    NodeInfo, 40, Layer::Smp
);

impl NodeInfo<'_> {
    pub fn base_version(&self) -> u8 {
        u8_at::<0, 40>(self.bytes)
    }
    pub fn class_version(&self) -> u8 {
        u8_at::<1, 40>(self.bytes)
    }
    /// 1 channel adapter, 2 switch, 3 router.
    pub fn node_type(&self) -> u8 {
        u8_at::<2, 40>(self.bytes)
    }
    pub fn num_ports(&self) -> u8 {
        u8_at::<3, 40>(self.bytes)
    }
    pub fn system_image_guid(&self) -> u64 {
        u64_at::<4, 40>(self.bytes)
    }
    pub fn node_guid(&self) -> u64 {
        u64_at::<12, 40>(self.bytes)
    }
    pub fn port_guid(&self) -> u64 {
        u64_at::<20, 40>(self.bytes)
    }
    pub fn partition_cap(&self) -> u16 {
        u16_at::<28, 40>(self.bytes)
    }
    pub fn device_id(&self) -> u16 {
        u16_at::<30, 40>(self.bytes)
    }
    pub fn revision(&self) -> u32 {
        u32_at::<32, 40>(self.bytes)
    }
    pub fn local_port_num(&self) -> u8 {
        u8_at::<36, 40>(self.bytes)
    }
    pub fn vendor_id(&self) -> u32 {
        u32_at::<36, 40>(self.bytes) & 0x00ff_ffff
    }
}

header_view!(
    /// PortInfo (IBA 14.2.5.6), the fields before the error counters.
    PortInfo, 42, Layer::Smp
);

impl PortInfo<'_> {
    pub fn m_key(&self) -> u64 {
        u64_at::<0, 42>(self.bytes)
    }
    pub fn gid_prefix(&self) -> u64 {
        u64_at::<8, 42>(self.bytes)
    }
    pub fn lid(&self) -> u16 {
        u16_at::<16, 42>(self.bytes)
    }
    pub fn master_sm_lid(&self) -> u16 {
        u16_at::<18, 42>(self.bytes)
    }
    pub fn capability_mask(&self) -> u32 {
        u32_at::<20, 42>(self.bytes)
    }
    pub fn local_port_num(&self) -> u8 {
        u8_at::<28, 42>(self.bytes)
    }
    pub fn link_width_active(&self) -> u8 {
        u8_at::<31, 42>(self.bytes)
    }
    /// 1 Down, 2 Initialize, 3 Armed, 4 Active.
    pub fn port_state(&self) -> u8 {
        u8_at::<32, 42>(self.bytes) & 0x0f
    }
    pub fn port_phys_state(&self) -> u8 {
        u8_at::<33, 42>(self.bytes) >> 4
    }
    pub fn lmc(&self) -> u8 {
        u8_at::<34, 42>(self.bytes) & 0x07
    }
    pub fn link_speed_active(&self) -> u8 {
        u8_at::<35, 42>(self.bytes) >> 4
    }
    /// IBA MTU code: 1 = 256 bytes ... 5 = 4096.
    pub fn neighbor_mtu(&self) -> u8 {
        u8_at::<36, 42>(self.bytes) >> 4
    }
    pub fn master_sm_sl(&self) -> u8 {
        u8_at::<36, 42>(self.bytes) & 0x0f
    }
    pub fn mtu_cap(&self) -> u8 {
        u8_at::<41, 42>(self.bytes) & 0x0f
    }
}

header_view!(
    /// SMInfo (IBA 14.2.5.13).
    SmInfo, 21, Layer::Smp
);

impl SmInfo<'_> {
    pub fn guid(&self) -> u64 {
        u64_at::<0, 21>(self.bytes)
    }
    pub fn sm_key(&self) -> u64 {
        u64_at::<8, 21>(self.bytes)
    }
    pub fn act_count(&self) -> u32 {
        u32_at::<16, 21>(self.bytes)
    }
    pub fn priority(&self) -> u8 {
        u8_at::<20, 21>(self.bytes) >> 4
    }
    /// 0 not active, 1 discovering, 2 standby, 3 master.
    pub fn sm_state(&self) -> u8 {
        u8_at::<20, 21>(self.bytes) & 0x0f
    }
}

/// The attribute an SMP's data holds, when it is one decoded here.
#[derive(Debug, Clone, Copy)]
pub enum SmpAttr<'a> {
    NodeInfo(NodeInfo<'a>),
    PortInfo(PortInfo<'a>),
    SmInfo(SmInfo<'a>),
}

impl<'a> SmpAttr<'a> {
    /// The 64-byte data always holds the whole attribute, so only the ID decides.
    pub fn new(attr_id: u16, data: &'a [u8; 64]) -> Option<Self> {
        let at = 0;
        match attr_id {
            ATTR_NODE_INFO => NodeInfo::new_checked(data, at).ok().map(SmpAttr::NodeInfo),
            ATTR_PORT_INFO => PortInfo::new_checked(data, at).ok().map(SmpAttr::PortInfo),
            ATTR_SM_INFO => SmInfo::new_checked(data, at).ok().map(SmpAttr::SmInfo),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_route_body_and_sm_info() {
        // Hand-assembled from IBA 14.2.1.2: M_Key 0, DrSLID/DrDLID 0xffff, SMInfo in the data
        // (GUID 0x0002c9020020b4dd, ActCount 0x923a, priority 0, state master), initial path
        // 0,2,3 and return path 0,6,1.
        let mut body = [0u8; 232];
        body[8..12].copy_from_slice(&[0xff; 4]);
        body[40..48].copy_from_slice(&0x0002_c902_0020_b4dd_u64.to_be_bytes());
        body[56..60].copy_from_slice(&0x923a_u32.to_be_bytes());
        body[60] = 0x03;
        body[104..107].copy_from_slice(&[0, 2, 3]);
        body[168..171].copy_from_slice(&[0, 6, 1]);
        let smp = SmpBody::new_checked(&body, 0).unwrap();
        assert_eq!((smp.dr_slid(), smp.dr_dlid()), (0xffff, 0xffff));
        assert_eq!(smp.initial_path()[..3], [0, 2, 3]);
        assert_eq!(smp.return_path()[..3], [0, 6, 1]);
        let Some(SmpAttr::SmInfo(info)) = SmpAttr::new(ATTR_SM_INFO, smp.data()) else {
            panic!("not SMInfo")
        };
        assert_eq!(info.guid(), 0x0002_c902_0020_b4dd);
        assert_eq!(
            (info.act_count(), info.priority(), info.sm_state()),
            (0x923a, 0, 3)
        );
        assert!(SmpAttr::new(0x0010, smp.data()).is_none());
    }
}
