//! TCP header (RFC 9293), the fixed 20 bytes.

use super::{Layer, header_view, u8_at, u16_at, u32_at};

header_view!(
    /// The fixed 20-byte TCP header; options follow when the data offset says so.
    TcpHeader, 20, Layer::Tcp
);

impl TcpHeader<'_> {
    /// Source Port.
    #[inline]
    pub fn src_port(&self) -> u16 {
        u16_at::<0, 20>(self.bytes)
    }
    /// Destination Port.
    #[inline]
    pub fn dst_port(&self) -> u16 {
        u16_at::<2, 20>(self.bytes)
    }
    /// Sequence Number.
    #[inline]
    pub fn seq(&self) -> u32 {
        u32_at::<4, 20>(self.bytes)
    }
    /// Data Offset, in bytes.
    #[inline]
    pub fn header_len(&self) -> usize {
        usize::from(u8_at::<12, 20>(self.bytes) >> 4) * 4
    }
    /// The eight flag bits, CWR to FIN.
    #[inline]
    pub fn flags(&self) -> u8 {
        u8_at::<13, 20>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        // Hand-assembled from RFC 9293: 34170 -> 22, seq 1, data offset 8 words, SYN.
        let bytes = [
            0x85, 0x7a, 0x00, 0x16, 0, 0, 0, 1, 0, 0, 0, 0, 0x80, 0x02, 0x80, 0xd7, 0, 0, 0, 0,
        ];
        let tcp = TcpHeader::new_checked(&bytes, 44).unwrap();
        assert_eq!((tcp.src_port(), tcp.dst_port()), (34170, 22));
        assert_eq!((tcp.seq(), tcp.header_len(), tcp.flags()), (1, 32, 0x02));
    }
}
