//! Subnet management packets (IBA 14.2.1): the LID-routed (class 0x01) and directed-route
//! (class 0x81) layouts after the common MAD header, and the attributes decoded from their
//! 64-byte SMP data: NodeInfo, PortInfo and SMInfo.

use super::super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub mod smp_body {
        use super::Field;

        pub const M_KEY: Field = 0..8;
        pub const DR_SLID: Field = 8..10;
        pub const DR_DLID: Field = 10..12;
        pub const DATA: Field = 40..104;
        pub const INITIAL_PATH: Field = 104..168;
        pub const RETURN_PATH: Field = 168..232;
    }

    pub mod node_info {
        use super::Field;

        pub const BASE_VERSION: usize = 0;
        pub const CLASS_VERSION: usize = 1;
        pub const NODE_TYPE: usize = 2;
        pub const NUM_PORTS: usize = 3;
        pub const SYSTEM_IMAGE_GUID: Field = 4..12;
        pub const NODE_GUID: Field = 12..20;
        pub const PORT_GUID: Field = 20..28;
        pub const PARTITION_CAP: Field = 28..30;
        pub const DEVICE_ID: Field = 30..32;
        pub const REVISION: Field = 32..36;
        pub const LOCAL_PORT_NUM: usize = 36;
        pub const VENDOR_ID: Field = 37..40;
    }

    pub mod port_info {
        use super::Field;

        pub const M_KEY: Field = 0..8;
        pub const GID_PREFIX: Field = 8..16;
        pub const LID: Field = 16..18;
        pub const MASTER_SM_LID: Field = 18..20;
        pub const CAPABILITY_MASK: Field = 20..24;
        pub const LOCAL_PORT_NUM: usize = 28;
        pub const LINK_WIDTH_ACTIVE: usize = 31;
        pub const PORT_STATE: usize = 32;
        pub const PORT_PHYS_STATE: usize = 33;
        pub const LMC: usize = 34;
        pub const LINK_SPEED_ACTIVE: usize = 35;
        pub const NEIGHBOR_MTU: usize = 36;
        pub const MASTER_SM_SL: usize = 36;
        pub const MTU_CAP: usize = 41;
    }

    pub mod sm_info {
        use super::Field;

        pub const GUID: Field = 0..8;
        pub const SM_KEY: Field = 8..16;
        pub const ACT_COUNT: Field = 16..20;
        pub const PRIORITY: usize = 20;
        pub const SM_STATE: usize = 20;
    }
}

/// Attribute IDs of the SMP attributes decoded here.
pub const ATTR_NODE_INFO: u16 = 0x0011;
pub const ATTR_PORT_INFO: u16 = 0x0015;
pub const ATTR_SM_INFO: u16 = 0x0020;

/// Frame offset of the SMP data from the start of the SMP body (after the MAD header).
pub const DATA_OFFSET: usize = field::smp_body::DATA.start;

/// The longest directed route: the path arrays have 64 entries and entry 0 is unused.
pub const MAX_HOPS: u8 = 63;

header_view!(
    /// The 232 bytes after the MAD header of an SMP, either routing mode.
    SmpBody, field::smp_body::RETURN_PATH.end, Layer::Smp
);

impl<'a> SmpBody<'a> {
    #[inline]
    pub fn m_key(&self) -> u64 {
        get!(u64_at, self.bytes, field::smp_body::M_KEY)
    }
    /// Directed route only: the LID the return path starts from.
    #[inline]
    pub fn dr_slid(&self) -> u16 {
        get!(u16_at, self.bytes, field::smp_body::DR_SLID)
    }
    /// Directed route only.
    #[inline]
    pub fn dr_dlid(&self) -> u16 {
        get!(u16_at, self.bytes, field::smp_body::DR_DLID)
    }
    /// The attribute, wherever the routing mode puts it.
    #[inline]
    pub fn data(&self) -> &'a [u8; 64] {
        get!(sub_at, self.bytes, field::smp_body::DATA)
    }
    /// Directed route only: the output port at each hop, entry 0 unused.
    #[inline]
    pub fn initial_path(&self) -> &'a [u8; 64] {
        get!(sub_at, self.bytes, field::smp_body::INITIAL_PATH)
    }
    /// Directed route only: the input port at each hop, entry 0 unused.
    #[inline]
    pub fn return_path(&self) -> &'a [u8; 64] {
        get!(sub_at, self.bytes, field::smp_body::RETURN_PATH)
    }
}

header_view!(
    /// NodeInfo (IBA 14.2.5.3).
    NodeInfo, field::node_info::VENDOR_ID.end, Layer::Smp
);

impl NodeInfo<'_> {
    pub fn base_version(&self) -> u8 {
        self.bytes[field::node_info::BASE_VERSION]
    }
    pub fn class_version(&self) -> u8 {
        self.bytes[field::node_info::CLASS_VERSION]
    }
    /// 1 channel adapter, 2 switch, 3 router.
    pub fn node_type(&self) -> u8 {
        self.bytes[field::node_info::NODE_TYPE]
    }
    pub fn num_ports(&self) -> u8 {
        self.bytes[field::node_info::NUM_PORTS]
    }
    pub fn system_image_guid(&self) -> u64 {
        get!(u64_at, self.bytes, field::node_info::SYSTEM_IMAGE_GUID)
    }
    pub fn node_guid(&self) -> u64 {
        get!(u64_at, self.bytes, field::node_info::NODE_GUID)
    }
    pub fn port_guid(&self) -> u64 {
        get!(u64_at, self.bytes, field::node_info::PORT_GUID)
    }
    pub fn partition_cap(&self) -> u16 {
        get!(u16_at, self.bytes, field::node_info::PARTITION_CAP)
    }
    pub fn device_id(&self) -> u16 {
        get!(u16_at, self.bytes, field::node_info::DEVICE_ID)
    }
    pub fn revision(&self) -> u32 {
        get!(u32_at, self.bytes, field::node_info::REVISION)
    }
    pub fn local_port_num(&self) -> u8 {
        self.bytes[field::node_info::LOCAL_PORT_NUM]
    }
    pub fn vendor_id(&self) -> u32 {
        get!(u24_at, self.bytes, field::node_info::VENDOR_ID)
    }
}

header_view!(
    /// PortInfo (IBA 14.2.5.6), the fields before the error counters.
    PortInfo, field::port_info::MTU_CAP + 1, Layer::Smp
);

impl PortInfo<'_> {
    pub fn m_key(&self) -> u64 {
        get!(u64_at, self.bytes, field::port_info::M_KEY)
    }
    pub fn gid_prefix(&self) -> u64 {
        get!(u64_at, self.bytes, field::port_info::GID_PREFIX)
    }
    pub fn lid(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_info::LID)
    }
    pub fn master_sm_lid(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_info::MASTER_SM_LID)
    }
    pub fn capability_mask(&self) -> u32 {
        get!(u32_at, self.bytes, field::port_info::CAPABILITY_MASK)
    }
    pub fn local_port_num(&self) -> u8 {
        self.bytes[field::port_info::LOCAL_PORT_NUM]
    }
    pub fn link_width_active(&self) -> u8 {
        self.bytes[field::port_info::LINK_WIDTH_ACTIVE]
    }
    /// 1 Down, 2 Initialize, 3 Armed, 4 Active.
    pub fn port_state(&self) -> u8 {
        self.bytes[field::port_info::PORT_STATE] & 0x0f
    }
    pub fn port_phys_state(&self) -> u8 {
        self.bytes[field::port_info::PORT_PHYS_STATE] >> 4
    }
    pub fn lmc(&self) -> u8 {
        self.bytes[field::port_info::LMC] & 0x07
    }
    pub fn link_speed_active(&self) -> u8 {
        self.bytes[field::port_info::LINK_SPEED_ACTIVE] >> 4
    }
    /// IBA MTU code: 1 = 256 bytes ... 5 = 4096.
    pub fn neighbor_mtu(&self) -> u8 {
        self.bytes[field::port_info::NEIGHBOR_MTU] >> 4
    }
    pub fn master_sm_sl(&self) -> u8 {
        self.bytes[field::port_info::MASTER_SM_SL] & 0x0f
    }
    pub fn mtu_cap(&self) -> u8 {
        self.bytes[field::port_info::MTU_CAP] & 0x0f
    }
}

header_view!(
    /// SMInfo (IBA 14.2.5.13).
    SmInfo, field::sm_info::SM_STATE + 1, Layer::Smp
);

impl SmInfo<'_> {
    pub fn guid(&self) -> u64 {
        get!(u64_at, self.bytes, field::sm_info::GUID)
    }
    pub fn sm_key(&self) -> u64 {
        get!(u64_at, self.bytes, field::sm_info::SM_KEY)
    }
    pub fn act_count(&self) -> u32 {
        get!(u32_at, self.bytes, field::sm_info::ACT_COUNT)
    }
    pub fn priority(&self) -> u8 {
        self.bytes[field::sm_info::PRIORITY] >> 4
    }
    /// 0 not active, 1 discovering, 2 standby, 3 master.
    pub fn sm_state(&self) -> u8 {
        self.bytes[field::sm_info::SM_STATE] & 0x0f
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
