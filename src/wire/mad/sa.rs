//! Subnet administration (class 0x03, IBA 15.2): the RMPP header, the SA header, and the
//! PathRecord attribute.

use std::net::Ipv6Addr;

use super::super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub mod sa_body {
        use super::Field;

        pub const RMPP_VERSION: usize = 0;
        pub const RMPP_TYPE: usize = 1;
        pub const RMPP_FLAGS: usize = 2;
        pub const RMPP_STATUS: usize = 3;
        pub const RMPP_DATA1: Field = 4..8;
        pub const RMPP_DATA2: Field = 8..12;
        pub const SM_KEY: Field = 12..20;
        pub const ATTR_OFFSET: Field = 20..22;
        pub const COMPONENT_MASK: Field = 24..32;
        pub const DATA: Field = 32..232;
    }

    pub mod path_record {
        use super::Field;

        pub const SERVICE_ID: Field = 0..8;
        pub const DGID: Field = 8..24;
        pub const SGID: Field = 24..40;
        pub const DLID: Field = 40..42;
        pub const SLID: Field = 42..44;
        pub const RAW_TRAFFIC: usize = 44;
        /// After RawTraffic and three reserved bits.
        pub const FLOW_LABEL: Field = 44..47;
        pub const HOP_LIMIT: usize = 47;
        pub const TCLASS: usize = 48;
        pub const REVERSIBLE: usize = 49;
        pub const NUM_PATH: usize = 49;
        pub const PKEY: Field = 50..52;
        pub const SL: Field = 52..54;
        pub const MTU_SELECTOR: usize = 54;
        pub const MTU: usize = 54;
        pub const RATE_SELECTOR: usize = 55;
        pub const RATE: usize = 55;
        pub const PACKET_LIFETIME_SELECTOR: usize = 56;
        pub const PACKET_LIFETIME: usize = 56;
        pub const PREFERENCE: usize = 57;
    }
}

pub const ATTR_PATH_RECORD: u16 = 0x0035;

/// Offset of the SA data from the start of the SA body (after the MAD header).
pub const DATA_OFFSET: usize = field::sa_body::DATA.start;

header_view!(
    /// The 232 bytes after the MAD header: RMPP header, SA header and SA data.
    SaBody, field::sa_body::DATA.end, Layer::Sa
);

impl<'a> SaBody<'a> {
    pub fn rmpp_version(&self) -> u8 {
        self.bytes[field::sa_body::RMPP_VERSION]
    }
    /// 1 DATA, 2 ACK, 3 STOP, 4 ABORT; 0 when RMPP is not in use.
    pub fn rmpp_type(&self) -> u8 {
        self.bytes[field::sa_body::RMPP_TYPE]
    }
    pub fn rmpp_flags(&self) -> u8 {
        self.bytes[field::sa_body::RMPP_FLAGS] & 0x07
    }
    pub fn rmpp_status(&self) -> u8 {
        self.bytes[field::sa_body::RMPP_STATUS]
    }
    /// The segment number of an RMPP DATA packet.
    pub fn rmpp_data1(&self) -> u32 {
        get!(u32_at, self.bytes, field::sa_body::RMPP_DATA1)
    }
    pub fn rmpp_data2(&self) -> u32 {
        get!(u32_at, self.bytes, field::sa_body::RMPP_DATA2)
    }
    pub fn sm_key(&self) -> u64 {
        get!(u64_at, self.bytes, field::sa_body::SM_KEY)
    }
    /// In 8-byte words: the stride of the records in a table response.
    pub fn attr_offset(&self) -> u16 {
        get!(u16_at, self.bytes, field::sa_body::ATTR_OFFSET)
    }
    pub fn component_mask(&self) -> u64 {
        get!(u64_at, self.bytes, field::sa_body::COMPONENT_MASK)
    }
    pub fn data(&self) -> &'a [u8; 200] {
        get!(sub_at, self.bytes, field::sa_body::DATA)
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
        get!(u64_at, self.bytes, field::path_record::SERVICE_ID)
    }
    pub fn dgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.bytes, field::path_record::DGID))
    }
    pub fn sgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.bytes, field::path_record::SGID))
    }
    pub fn dlid(&self) -> u16 {
        get!(u16_at, self.bytes, field::path_record::DLID)
    }
    pub fn slid(&self) -> u16 {
        get!(u16_at, self.bytes, field::path_record::SLID)
    }
    pub fn raw_traffic(&self) -> bool {
        self.bytes[field::path_record::RAW_TRAFFIC] & 0x80 != 0
    }
    pub fn flow_label(&self) -> u32 {
        get!(u24_at, self.bytes, field::path_record::FLOW_LABEL) & 0x000f_ffff
    }
    pub fn hop_limit(&self) -> u8 {
        self.bytes[field::path_record::HOP_LIMIT]
    }
    pub fn tclass(&self) -> u8 {
        self.bytes[field::path_record::TCLASS]
    }
    pub fn reversible(&self) -> bool {
        self.bytes[field::path_record::REVERSIBLE] & 0x80 != 0
    }
    pub fn num_path(&self) -> u8 {
        self.bytes[field::path_record::NUM_PATH] & 0x7f
    }
    pub fn pkey(&self) -> u16 {
        get!(u16_at, self.bytes, field::path_record::PKEY)
    }
    pub fn sl(&self) -> u8 {
        (get!(u16_at, self.bytes, field::path_record::SL) & 0x0f) as u8
    }
    pub fn mtu_selector(&self) -> u8 {
        self.bytes[field::path_record::MTU_SELECTOR] >> 6
    }
    /// IBA MTU code: 1 = 256 bytes ... 5 = 4096.
    pub fn mtu(&self) -> u8 {
        self.bytes[field::path_record::MTU] & 0x3f
    }
    pub fn rate_selector(&self) -> u8 {
        self.bytes[field::path_record::RATE_SELECTOR] >> 6
    }
    pub fn rate(&self) -> u8 {
        self.bytes[field::path_record::RATE] & 0x3f
    }
    pub fn packet_lifetime_selector(&self) -> u8 {
        self.bytes[field::path_record::PACKET_LIFETIME_SELECTOR] >> 6
    }
    pub fn packet_lifetime(&self) -> u8 {
        self.bytes[field::path_record::PACKET_LIFETIME] & 0x3f
    }
    pub fn preference(&self) -> u8 {
        self.bytes[field::path_record::PREFERENCE]
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
