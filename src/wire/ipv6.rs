//! IPv6 fixed header (RFC 8200).

use std::net::Ipv6Addr;

use super::{DecodeError, Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Version, Traffic Class and Flow Label share the first word.
    pub const VER_TC_FLOW: Field = 0..4;
    pub const PAYLOAD_LEN: Field = 4..6;
    pub const NEXT_HEADER: usize = 6;
    pub const HOP_LIMIT: usize = 7;
    pub const SRC_ADDR: Field = 8..24;
    pub const DST_ADDR: Field = 24..40;
}

const HEADER_LEN: usize = field::DST_ADDR.end;

header_view!(
    /// The 40-byte IPv6 header.
    Ipv6Header, HEADER_LEN, Layer::Ipv6
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
        (self.first_word() >> 28) as u8
    }
    /// Traffic Class, DSCP and ECN together.
    #[inline]
    pub fn traffic_class(&self) -> u8 {
        (self.first_word() >> 20) as u8
    }
    /// Flow Label.
    #[inline]
    pub fn flow_label(&self) -> u32 {
        self.first_word() & 0x000f_ffff
    }
    /// Payload Length: bytes after this header.
    #[inline]
    pub fn payload_len(&self) -> u16 {
        get!(u16_at, self.bytes, field::PAYLOAD_LEN)
    }
    /// Next Header.
    #[inline]
    pub fn next_header(&self) -> u8 {
        self.bytes[field::NEXT_HEADER]
    }
    /// Hop Limit.
    #[inline]
    pub fn hop_limit(&self) -> u8 {
        self.bytes[field::HOP_LIMIT]
    }
    /// Source address.
    #[inline]
    pub fn src(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.bytes, field::SRC_ADDR))
    }
    /// Destination address.
    #[inline]
    pub fn dst(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.bytes, field::DST_ADDR))
    }
    #[inline]
    fn first_word(&self) -> u32 {
        get!(u32_at, self.bytes, field::VER_TC_FLOW)
    }

    /// Checks Payload Length: the header and its payload must fit the `room` the frame
    /// leaves from the header's start. `offset`, the header's, labels an error. The
    /// datagram's length in bytes, this header included.
    #[inline]
    pub fn check_len(&self, offset: usize, room: usize) -> Result<usize, DecodeError> {
        let len = HEADER_LEN + usize::from(self.payload_len());
        if len > room {
            return Err(DecodeError::invalid(
                Layer::Ipv6,
                offset + field::PAYLOAD_LEN.start,
                "payload length exceeds the frame",
            ));
        }
        Ok(len)
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
    fn payload_length_fits_the_frame() {
        let ip = Ipv6Header::new_checked(&BYTES, 18).unwrap();
        assert_eq!(ip.check_len(18, 88), Ok(88));
        let too_long = DecodeError::invalid(Layer::Ipv6, 22, "payload length exceeds the frame");
        assert_eq!(ip.check_len(18, 87), Err(too_long));
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = Ipv6Header::new_checked(&BYTES[..39], 18).unwrap_err();
        assert_eq!(err, DecodeError::short(Layer::Ipv6, 18, 40, 39));
    }
}
