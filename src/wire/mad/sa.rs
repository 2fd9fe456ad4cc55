//! Subnet administration (class 0x03, IBA 15.2): the RMPP header, the SA header, and the
//! PathRecord attribute.

use std::net::Ipv6Addr;

use super::super::{Layer, array_at, header_view, u8_at, u16_at, u32_at, u64_at};
use super::sub_at;

pub const ATTR_PATH_RECORD: u16 = 0x0035;

/// Offset of the SA data from the start of the SA body (after the MAD header).
pub const DATA_OFFSET: usize = 32;

header_view!(
    /// The 232 bytes after the MAD header: RMPP header, SA header and SA data.
    SaBody, 232, Layer::Sa
);

impl<'a> SaBody<'a> {
    pub fn rmpp_version(&self) -> u8 {
        u8_at::<0, 232>(self.bytes)
    }
    /// 1 DATA, 2 ACK, 3 STOP, 4 ABORT; 0 when RMPP is not in use.
    pub fn rmpp_type(&self) -> u8 {
        u8_at::<1, 232>(self.bytes)
    }
    pub fn rmpp_flags(&self) -> u8 {
        u8_at::<2, 232>(self.bytes) & 0x07
    }
    pub fn rmpp_status(&self) -> u8 {
        u8_at::<3, 232>(self.bytes)
    }
    /// The segment number of an RMPP DATA packet.
    pub fn rmpp_data1(&self) -> u32 {
        u32_at::<4, 232>(self.bytes)
    }
    pub fn rmpp_data2(&self) -> u32 {
        u32_at::<8, 232>(self.bytes)
    }
    pub fn sm_key(&self) -> u64 {
        u64_at::<12, 232>(self.bytes)
    }
    /// In 8-byte words: the stride of the records in a table response.
    pub fn attr_offset(&self) -> u16 {
        u16_at::<20, 232>(self.bytes)
    }
    pub fn component_mask(&self) -> u64 {
        u64_at::<24, 232>(self.bytes)
    }
    pub fn data(&self) -> &'a [u8; 200] {
        sub_at::<32, 200, 232>(self.bytes)
    }
    /// Whether the data starts with a record: true unless it is a later RMPP segment, which
    /// continues a record cut at the previous segment's end.
    pub fn data_starts_a_record(&self) -> bool {
        let active = self.rmpp_flags() & 0x01 != 0;
        !(active && self.rmpp_type() == 1 && self.rmpp_data1() > 1)
    }
}

header_view!(
    /// PathRecord (IBA 15.2.5.16).
    PathRecord, 64, Layer::Sa
);

impl PathRecord<'_> {
    pub fn service_id(&self) -> u64 {
        u64_at::<0, 64>(self.bytes)
    }
    pub fn dgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<8, 16, 64>(self.bytes))
    }
    pub fn sgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<24, 16, 64>(self.bytes))
    }
    pub fn dlid(&self) -> u16 {
        u16_at::<40, 64>(self.bytes)
    }
    pub fn slid(&self) -> u16 {
        u16_at::<42, 64>(self.bytes)
    }
    pub fn raw_traffic(&self) -> bool {
        u8_at::<44, 64>(self.bytes) & 0x80 != 0
    }
    pub fn flow_label(&self) -> u32 {
        (u32_at::<44, 64>(self.bytes) >> 8) & 0x000f_ffff
    }
    pub fn hop_limit(&self) -> u8 {
        u8_at::<47, 64>(self.bytes)
    }
    pub fn tclass(&self) -> u8 {
        u8_at::<48, 64>(self.bytes)
    }
    pub fn reversible(&self) -> bool {
        u8_at::<49, 64>(self.bytes) & 0x80 != 0
    }
    pub fn num_path(&self) -> u8 {
        u8_at::<49, 64>(self.bytes) & 0x7f
    }
    pub fn pkey(&self) -> u16 {
        u16_at::<50, 64>(self.bytes)
    }
    pub fn sl(&self) -> u8 {
        (u16_at::<52, 64>(self.bytes) & 0x0f) as u8
    }
    pub fn mtu_selector(&self) -> u8 {
        u8_at::<54, 64>(self.bytes) >> 6
    }
    /// IBA MTU code: 1 = 256 bytes ... 5 = 4096.
    pub fn mtu(&self) -> u8 {
        u8_at::<54, 64>(self.bytes) & 0x3f
    }
    pub fn rate_selector(&self) -> u8 {
        u8_at::<55, 64>(self.bytes) >> 6
    }
    pub fn rate(&self) -> u8 {
        u8_at::<55, 64>(self.bytes) & 0x3f
    }
    pub fn packet_lifetime_selector(&self) -> u8 {
        u8_at::<56, 64>(self.bytes) >> 6
    }
    pub fn packet_lifetime(&self) -> u8 {
        u8_at::<56, 64>(self.bytes) & 0x3f
    }
    pub fn preference(&self) -> u8 {
        u8_at::<57, 64>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_record_fields() {
        // Hand-assembled from IBA 15.2.5.16: DGID fe80::2:c903:0:1895, SGID fe80::2:c902:24:f636,
        // DLID 2, SLID 4, reversible, P_Key 0xffff, SL 0, MTU 2048 (4) exactly (selector 2),
        // rate 3 and packet lifetime 0x12, both selector 2.
        let mut pr = [0u8; 64];
        pr[8..24].copy_from_slice(&"fe80::2:c903:0:1895".parse::<Ipv6Addr>().unwrap().octets());
        pr[24..40].copy_from_slice(&"fe80::2:c902:24:f636".parse::<Ipv6Addr>().unwrap().octets());
        pr[40..44].copy_from_slice(&[0, 2, 0, 4]);
        pr[49] = 0x80;
        pr[50..52].copy_from_slice(&[0xff, 0xff]);
        pr[54..57].copy_from_slice(&[0x84, 0x83, 0x92]);
        let p = PathRecord::new_checked(&pr, 0).unwrap();
        assert_eq!(p.dgid().to_string(), "fe80::2:c903:0:1895");
        assert_eq!(p.sgid().to_string(), "fe80::2:c902:24:f636");
        assert_eq!((p.dlid(), p.slid(), p.pkey(), p.sl()), (2, 4, 0xffff, 0));
        assert!(p.reversible() && !p.raw_traffic());
        assert_eq!((p.mtu_selector(), p.mtu()), (2, 4));
        assert_eq!((p.rate_selector(), p.rate()), (2, 3));
        assert_eq!(
            (p.packet_lifetime_selector(), p.packet_lifetime()),
            (2, 0x12)
        );
    }
}
