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
