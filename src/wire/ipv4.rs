//! IPv4 header (RFC 791), options included.

use std::net::Ipv4Addr;

use super::{Layer, array_at, header_view, u8_at, u16_at};

header_view!(
    /// The fixed 20 bytes of the IPv4 header; options follow up to `header_len()`.
    Ipv4Header, 20, Layer::Ipv4
);

impl Ipv4Header<'_> {
    /// Version: 4.
    #[inline]
    pub fn version(&self) -> u8 {
        self.bytes[0] >> 4
    }
    /// IHL × 4: header length in bytes, options included.
    #[inline]
    pub fn header_len(&self) -> usize {
        usize::from(self.bytes[0] & 0x0f) * 4
    }
    /// DSCP: differentiated services code point.
    #[inline]
    pub fn dscp(&self) -> u8 {
        self.bytes[1] >> 2
    }
    /// ECN: 3 is Congestion Experienced.
    #[inline]
    pub fn ecn(&self) -> u8 {
        self.bytes[1] & 0x03
    }
    /// Total Length of the datagram.
    #[inline]
    pub fn total_len(&self) -> u16 {
        u16_at::<2, 20>(self.bytes)
    }
    /// More Fragments flag or a non-zero fragment offset: this is a fragment.
    #[inline]
    pub fn is_fragment(&self) -> bool {
        u16_at::<6, 20>(self.bytes) & 0x3fff != 0
    }
    /// TTL.
    #[inline]
    pub fn ttl(&self) -> u8 {
        u8_at::<8, 20>(self.bytes)
    }
    /// Protocol: 17 for UDP.
    #[inline]
    pub fn protocol(&self) -> u8 {
        u8_at::<9, 20>(self.bytes)
    }
    /// Source address.
    #[inline]
    pub fn src(&self) -> Ipv4Addr {
        Ipv4Addr::from(array_at::<12, 4, 20>(self.bytes))
    }
    /// Destination address.
    #[inline]
    pub fn dst(&self) -> Ipv4Addr {
        Ipv4Addr::from(array_at::<16, 4, 20>(self.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from RFC 791 section 3.1: version 4, IHL 6 (one 4-byte option, a NOP and
    // End of Option List padded), TOS 0x6b (DSCP 26, ECN 3), total length 84, ID 0x1234, DF,
    // TTL 64, protocol 17, checksum 0, 192.168.10.1 -> 10.0.0.2.
    static BYTES: [u8; 24] = [
        0x46, 0x6b, 0x00, 0x54, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 192, 168, 10, 1,
        10, 0, 0, 2, 0x01, 0x00, 0x00, 0x00,
    ];

    #[test]
    fn fields() {
        let ip = Ipv4Header::new_checked(&BYTES, 14).unwrap();
        assert_eq!(ip.version(), 4);
        assert_eq!(ip.header_len(), 24);
        assert_eq!(ip.dscp(), 26);
        assert_eq!(ip.ecn(), 3);
        assert_eq!(ip.total_len(), 84);
        assert!(!ip.is_fragment(), "DF alone is not a fragment");
        assert_eq!(ip.ttl(), 64);
        assert_eq!(ip.protocol(), 17);
        assert_eq!(ip.src(), Ipv4Addr::new(192, 168, 10, 1));
        assert_eq!(ip.dst(), Ipv4Addr::new(10, 0, 0, 2));
    }

    #[test]
    fn more_fragments_or_an_offset_is_a_fragment() {
        // Flags and Fragment Offset share bytes 6-7: MF is 0x2000, the offset the low 13 bits.
        for flags_and_offset in [[0x20, 0x00], [0x00, 0x01], [0x1f, 0xff]] {
            let mut bytes = BYTES;
            bytes[6..8].copy_from_slice(&flags_and_offset);
            let ip = Ipv4Header::new_checked(&bytes, 0).unwrap();
            assert!(ip.is_fragment(), "{flags_and_offset:02x?}");
        }
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = Ipv4Header::new_checked(&BYTES[..19], 14).unwrap_err();
        assert_eq!(
            err,
            super::super::DecodeError::short(Layer::Ipv4, 14, 20, 19)
        );
    }
}
