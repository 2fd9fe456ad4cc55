//! UDP header (RFC 768).

use super::{DecodeError, Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const LENGTH: Field = 4..6;
    pub const CHECKSUM: Field = 6..8;
}

const HEADER_LEN: usize = field::CHECKSUM.end;

header_view!(
    /// The 8-byte UDP header.
    UdpHeader, HEADER_LEN, Layer::Udp
);

/// The IANA port of RoCE v2.
pub const ROCE_V2_PORT: u16 = 4791;

impl UdpHeader<'_> {
    /// Source Port.
    #[inline]
    pub fn src_port(&self) -> u16 {
        get!(u16_at, self.bytes, field::SRC_PORT)
    }
    /// Destination Port.
    #[inline]
    pub fn dst_port(&self) -> u16 {
        get!(u16_at, self.bytes, field::DST_PORT)
    }
    /// Length: header and data.
    #[inline]
    pub fn length(&self) -> u16 {
        get!(u16_at, self.bytes, field::LENGTH)
    }
    /// Checksum.
    #[inline]
    pub fn checksum(&self) -> u16 {
        get!(u16_at, self.bytes, field::CHECKSUM)
    }

    /// Checks Length: it must cover the header and fit the `room` the IP datagram leaves
    /// from the header's start. `offset`, the header's, labels an error. The datagram's
    /// length in bytes.
    #[inline]
    pub fn check_len(&self, offset: usize, room: usize) -> Result<usize, DecodeError> {
        let length = usize::from(self.length());
        let at = offset + field::LENGTH.start;
        if length < HEADER_LEN {
            return Err(DecodeError::invalid(Layer::Udp, at, "UDP length below 8"));
        }
        if length > room {
            return Err(DecodeError::invalid(
                Layer::Udp,
                at,
                "UDP length exceeds the IP datagram",
            ));
        }
        Ok(length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from RFC 768: source port 49152, destination port 4791 (RoCE v2),
    // length 56, checksum 0x1f2e.
    static BYTES: [u8; 8] = [0xc0, 0x00, 0x12, 0xb7, 0x00, 0x38, 0x1f, 0x2e];

    #[test]
    fn fields() {
        let udp = UdpHeader::new_checked(&BYTES, 34).unwrap();
        assert_eq!(udp.src_port(), 49152);
        assert_eq!(udp.dst_port(), ROCE_V2_PORT);
        assert_eq!(udp.length(), 56);
        assert_eq!(udp.checksum(), 0x1f2e);
    }

    #[test]
    fn length_covers_the_header_and_fits_the_datagram() {
        let udp = UdpHeader::new_checked(&BYTES, 34).unwrap();
        assert_eq!(udp.check_len(34, 56), Ok(56));
        assert_eq!(udp.check_len(34, 100), Ok(56));
        assert_eq!(
            udp.check_len(34, 55),
            Err(DecodeError::invalid(
                Layer::Udp,
                38,
                "UDP length exceeds the IP datagram"
            ))
        );
        let mut short = BYTES;
        short[4..6].copy_from_slice(&[0, 7]);
        let udp = UdpHeader::new_checked(&short, 34).unwrap();
        assert_eq!(
            udp.check_len(34, 56),
            Err(DecodeError::invalid(Layer::Udp, 38, "UDP length below 8"))
        );
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = UdpHeader::new_checked(&BYTES[..7], 34).unwrap_err();
        assert_eq!(err, DecodeError::short(Layer::Udp, 34, 8, 7));
    }
}
