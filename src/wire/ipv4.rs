//! IPv4 header (RFC 791), options included.

use std::net::Ipv4Addr;

use super::{DecodeError, Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Version and IHL share the first byte.
    pub const VER_IHL: usize = 0;
    /// DSCP and ECN: the former type of service.
    pub const DSCP_ECN: usize = 1;
    pub const TOTAL_LEN: Field = 2..4;
    pub const IDENT: Field = 4..6;
    pub const FLAGS_FRAG_OFFSET: Field = 6..8;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: Field = 10..12;
    pub const SRC_ADDR: Field = 12..16;
    pub const DST_ADDR: Field = 16..20;
}

/// The header without options.
const HEADER_LEN: usize = field::DST_ADDR.end;

header_view!(
    /// The fixed 20 bytes of the IPv4 header; options follow up to `header_len()`.
    Ipv4Header, HEADER_LEN, Layer::Ipv4
);

impl Ipv4Header<'_> {
    /// Version: 4.
    #[inline]
    pub fn version(&self) -> u8 {
        self.bytes[field::VER_IHL] >> 4
    }
    /// IHL × 4: header length in bytes, options included.
    #[inline]
    pub fn header_len(&self) -> usize {
        usize::from(self.bytes[field::VER_IHL] & 0x0f) * 4
    }
    /// DSCP: differentiated services code point.
    #[inline]
    pub fn dscp(&self) -> u8 {
        self.bytes[field::DSCP_ECN] >> 2
    }
    /// ECN: 3 is Congestion Experienced.
    #[inline]
    pub fn ecn(&self) -> u8 {
        self.bytes[field::DSCP_ECN] & 0x03
    }
    /// Total Length of the datagram.
    #[inline]
    pub fn total_len(&self) -> u16 {
        get!(u16_at, self.bytes, field::TOTAL_LEN)
    }
    /// Identification.
    #[inline]
    pub fn ident(&self) -> u16 {
        get!(u16_at, self.bytes, field::IDENT)
    }
    /// More Fragments flag or a non-zero fragment offset: this is a fragment.
    #[inline]
    pub fn is_fragment(&self) -> bool {
        get!(u16_at, self.bytes, field::FLAGS_FRAG_OFFSET) & 0x3fff != 0
    }
    /// TTL.
    #[inline]
    pub fn ttl(&self) -> u8 {
        self.bytes[field::TTL]
    }
    /// Protocol: 17 for UDP.
    #[inline]
    pub fn protocol(&self) -> u8 {
        self.bytes[field::PROTOCOL]
    }
    /// Header Checksum.
    #[inline]
    pub fn checksum(&self) -> u16 {
        get!(u16_at, self.bytes, field::CHECKSUM)
    }
    /// Source address.
    #[inline]
    pub fn src(&self) -> Ipv4Addr {
        Ipv4Addr::from(get!(array_at, self.bytes, field::SRC_ADDR))
    }
    /// Destination address.
    #[inline]
    pub fn dst(&self) -> Ipv4Addr {
        Ipv4Addr::from(get!(array_at, self.bytes, field::DST_ADDR))
    }

    /// Checks IHL and Total Length: the header at least its fixed 20 bytes, the datagram at
    /// least its header and within the `room` the frame leaves from the header's start.
    /// `offset`, the header's, labels an error. The datagram's length in bytes.
    #[inline]
    pub fn check_len(&self, offset: usize, room: usize) -> Result<usize, DecodeError> {
        let header_len = self.header_len();
        if header_len < HEADER_LEN {
            return Err(DecodeError::invalid(
                Layer::Ipv4,
                offset + field::VER_IHL,
                "IHL below 5",
            ));
        }
        let total_len = usize::from(self.total_len());
        let at = offset + field::TOTAL_LEN.start;
        if total_len < header_len {
            return Err(DecodeError::invalid(
                Layer::Ipv4,
                at,
                "total length shorter than the header",
            ));
        }
        if total_len > room {
            return Err(DecodeError::invalid(
                Layer::Ipv4,
                at,
                "total length exceeds the frame",
            ));
        }
        Ok(total_len)
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
        assert_eq!((ip.ident(), ip.checksum()), (0x1234, 0));
    }

    #[test]
    fn lengths_hold_the_header_and_fit_the_frame() {
        let ip = Ipv4Header::new_checked(&BYTES, 14).unwrap();
        assert_eq!(ip.check_len(14, 84), Ok(84));
        let too_long = DecodeError::invalid(Layer::Ipv4, 16, "total length exceeds the frame");
        assert_eq!(ip.check_len(14, 83), Err(too_long));
        let mut bytes = BYTES;
        bytes[0] = 0x44;
        let ip = Ipv4Header::new_checked(&bytes, 14).unwrap();
        let ihl = DecodeError::invalid(Layer::Ipv4, 14, "IHL below 5");
        assert_eq!(ip.check_len(14, 84), Err(ihl));
        let mut bytes = BYTES;
        bytes[2..4].copy_from_slice(&[0, 23]);
        let ip = Ipv4Header::new_checked(&bytes, 14).unwrap();
        let short = DecodeError::invalid(Layer::Ipv4, 16, "total length shorter than the header");
        assert_eq!(ip.check_len(14, 84), Err(short));
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
        assert_eq!(err, DecodeError::short(Layer::Ipv4, 14, 20, 19));
    }
}
