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
