//! RDMA Extended Transport Header (IBA 9.3.3): the remote buffer of a WRITE or READ.

use super::{Layer, header_view, u32_at, u64_at};

header_view!(
    /// The 16-byte RETH.
    Reth, 16, Layer::Reth
);

impl Reth<'_> {
    /// Virtual Address of the remote buffer.
    #[inline]
    pub fn va(&self) -> u64 {
        u64_at::<0, 16>(self.bytes)
    }
    /// R_Key: remote key.
    #[inline]
    pub fn rkey(&self) -> u32 {
        u32_at::<8, 16>(self.bytes)
    }
    /// DMA Length in bytes.
    #[inline]
    pub fn dma_len(&self) -> u32 {
        u32_at::<12, 16>(self.bytes)
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
