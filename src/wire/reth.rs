//! RDMA Extended Transport Header (IBA 9.3.3): the remote buffer of a WRITE or READ.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const VA: Field = 0..8;
    pub const R_KEY: Field = 8..12;
    pub const DMA_LENGTH: Field = 12..16;
}

const HEADER_LEN: usize = field::DMA_LENGTH.end;

header_view!(
    /// The 16-byte RETH.
    Reth, HEADER_LEN, Layer::Reth
);

impl Reth<'_> {
    /// Virtual Address of the remote buffer.
    #[inline]
    pub fn va(&self) -> u64 {
        get!(u64_at, self.bytes, field::VA)
    }
    /// R_Key: remote key.
    #[inline]
    pub fn rkey(&self) -> u32 {
        get!(u32_at, self.bytes, field::R_KEY)
    }
    /// DMA Length in bytes.
    #[inline]
    pub fn dma_len(&self) -> u32 {
        get!(u32_at, self.bytes, field::DMA_LENGTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled: VA 0x0102030405060708, R_Key 0x11223344, DMA length 4096.
    static BYTES: [u8; 16] = [
        1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 0, 0x10, 0,
    ];

    #[test]
    fn fields() {
        let reth = Reth::new_checked(&BYTES, 0).unwrap();
        assert_eq!(reth.va(), 0x0102030405060708);
        assert_eq!(reth.rkey(), 0x11223344);
        assert_eq!(reth.dma_len(), 4096);
    }
}
