//! UDP header (RFC 768).

use super::{Layer, header_view, u16_at};

header_view!(
    /// The 8-byte UDP header.
    UdpHeader, 8, Layer::Udp
);

/// The IANA port of RoCE v2.
pub const ROCE_V2_PORT: u16 = 4791;

impl UdpHeader<'_> {
    /// Source Port.
    #[inline]
    pub fn src_port(&self) -> u16 {
        u16_at::<0, 8>(self.bytes)
    }
    /// Destination Port.
    #[inline]
    pub fn dst_port(&self) -> u16 {
        u16_at::<2, 8>(self.bytes)
    }
    /// Length: header and data.
    #[inline]
    pub fn length(&self) -> u16 {
        u16_at::<4, 8>(self.bytes)
    }
    /// Checksum.
    #[inline]
    pub fn checksum(&self) -> u16 {
        u16_at::<6, 8>(self.bytes)
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
    fn short_buffer_names_layer_and_offset() {
        let err = UdpHeader::new_checked(&BYTES[..7], 34).unwrap_err();
        assert_eq!(err, super::super::DecodeError::short(Layer::Udp, 34, 8, 7));
    }
}
