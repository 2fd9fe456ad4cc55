//! IPv6 fixed header (RFC 8200).

use std::net::Ipv6Addr;

use super::{Layer, array_at, header_view, u8_at, u16_at, u32_at};

header_view!(
    /// The 40-byte IPv6 header.
    Ipv6Header, 40, Layer::Ipv6
);

pub mod next_header {
    pub const HOP_BY_HOP: u8 = 0;
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    pub const ROUTING: u8 = 43;
    pub const FRAGMENT: u8 = 44;
    pub const DEST_OPTIONS: u8 = 60;
    pub const ICMPV6: u8 = 58;
}

impl Ipv6Header<'_> {
    /// Version: 6.
    #[inline]
    pub fn version(&self) -> u8 {
        self.bytes[0] >> 4
    }
    /// Traffic Class, DSCP and ECN together.
    #[inline]
    pub fn traffic_class(&self) -> u8 {
        ((u16_at::<0, 40>(self.bytes) >> 4) & 0xff) as u8
    }
    /// Flow Label.
    #[inline]
    pub fn flow_label(&self) -> u32 {
        u32_at::<0, 40>(self.bytes) & 0x000f_ffff
    }
    /// Payload Length: bytes after this header.
    #[inline]
    pub fn payload_len(&self) -> u16 {
        u16_at::<4, 40>(self.bytes)
    }
    /// Next Header.
    #[inline]
    pub fn next_header(&self) -> u8 {
        u8_at::<6, 40>(self.bytes)
    }
    /// Hop Limit.
    #[inline]
    pub fn hop_limit(&self) -> u8 {
        u8_at::<7, 40>(self.bytes)
    }
    /// Source address.
    #[inline]
    pub fn src(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<8, 16, 40>(self.bytes))
    }
    /// Destination address.
    #[inline]
    pub fn dst(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<24, 16, 40>(self.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from RFC 8200 section 3: version 6, traffic class 0x6a, flow label
    // 0xabcde (first word 0x66aabcde), payload length 48, next header 17, hop limit 32,
    // fd00::a -> fd00::b.
    static BYTES: [u8; 40] = [
        0x66, 0xaa, 0xbc, 0xde, 0x00, 0x30, 0x11, 0x20, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x0a, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b,
    ];

    #[test]
    fn fields() {
        let ip = Ipv6Header::new_checked(&BYTES, 18).unwrap();
        assert_eq!(ip.version(), 6);
        assert_eq!(ip.traffic_class(), 0x6a);
        assert_eq!(ip.flow_label(), 0xabcde);
        assert_eq!(ip.payload_len(), 48);
        assert_eq!(ip.next_header(), 17);
        assert_eq!(ip.hop_limit(), 32);
        assert_eq!(ip.src(), "fd00::a".parse::<Ipv6Addr>().unwrap());
        assert_eq!(ip.dst(), "fd00::b".parse::<Ipv6Addr>().unwrap());
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = Ipv6Header::new_checked(&BYTES[..39], 18).unwrap_err();
        assert_eq!(
            err,
            super::super::DecodeError::short(Layer::Ipv6, 18, 40, 39)
        );
    }
}
