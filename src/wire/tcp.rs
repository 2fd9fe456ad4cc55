//! TCP header (RFC 9293), the fixed 20 bytes.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const SEQ_NUM: Field = 4..8;
    pub const ACK_NUM: Field = 8..12;
    /// Data Offset and four reserved bits.
    pub const DATA_OFFSET: usize = 12;
    pub const FLAGS: usize = 13;
    pub const WINDOW: Field = 14..16;
    pub const CHECKSUM: Field = 16..18;
    pub const URGENT_POINTER: Field = 18..20;
}

const HEADER_LEN: usize = field::URGENT_POINTER.end;

header_view!(
    /// The fixed 20-byte TCP header; options follow when the data offset says so.
    TcpHeader, HEADER_LEN, Layer::Tcp
);

impl TcpHeader<'_> {
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
    /// Sequence Number.
    #[inline]
    pub fn seq(&self) -> u32 {
        get!(u32_at, self.bytes, field::SEQ_NUM)
    }
    /// Acknowledgment Number.
    #[inline]
    pub fn ack(&self) -> u32 {
        get!(u32_at, self.bytes, field::ACK_NUM)
    }
    /// Data Offset, in bytes.
    #[inline]
    pub fn header_len(&self) -> usize {
        usize::from(self.bytes[field::DATA_OFFSET] >> 4) * 4
    }
    /// The eight flag bits, CWR to FIN.
    #[inline]
    pub fn flags(&self) -> u8 {
        self.bytes[field::FLAGS]
    }
    /// Window.
    #[inline]
    pub fn window(&self) -> u16 {
        get!(u16_at, self.bytes, field::WINDOW)
    }
    /// Checksum.
    #[inline]
    pub fn checksum(&self) -> u16 {
        get!(u16_at, self.bytes, field::CHECKSUM)
    }
    /// Urgent Pointer.
    #[inline]
    pub fn urgent_pointer(&self) -> u16 {
        get!(u16_at, self.bytes, field::URGENT_POINTER)
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
        assert_eq!(
            (
                tcp.ack(),
                tcp.window(),
                tcp.checksum(),
                tcp.urgent_pointer()
            ),
            (0, 0x80d7, 0, 0)
        );
    }
}
