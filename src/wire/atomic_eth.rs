//! Atomic Extended Transport Header (IBA 9.3.6): CmpSwap and FetchAdd requests.

use super::{Layer, header_view, u32_at, u64_at};

header_view!(
    /// The 28-byte AtomicETH.
    AtomicEth, 28, Layer::AtomicEth
);

impl AtomicEth<'_> {
    /// Virtual Address of the 8-byte target.
    #[inline]
    pub fn va(&self) -> u64 {
        u64_at::<0, 28>(self.bytes)
    }
    /// R_Key: remote key.
    #[inline]
    pub fn rkey(&self) -> u32 {
        u32_at::<8, 28>(self.bytes)
    }
    /// Swap (or Add) Data.
    #[inline]
    pub fn swap(&self) -> u64 {
        u64_at::<12, 28>(self.bytes)
    }
    /// Compare Data.
    #[inline]
    pub fn compare(&self) -> u64 {
        u64_at::<20, 28>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields() {
        let mut bytes = [0u8; 28];
        bytes[7] = 0x40; // VA 0x40
        bytes[11] = 0x07; // R_Key 7
        bytes[19] = 0x01; // Swap 1
        bytes[20] = 0x80; // Compare 0x8000000000000000
        let eth = super::AtomicEth::new_checked(&bytes, 0).unwrap();
        assert_eq!(eth.va(), 0x40);
        assert_eq!(eth.rkey(), 7);
        assert_eq!(eth.swap(), 1);
        assert_eq!(eth.compare(), 0x8000_0000_0000_0000);
    }
}
