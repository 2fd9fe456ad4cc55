//! Atomic Extended Transport Header (IBA 9.3.6): CmpSwap and FetchAdd requests.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const VA: Field = 0..8;
    pub const R_KEY: Field = 8..12;
    pub const SWAP_ADD_DATA: Field = 12..20;
    pub const COMPARE_DATA: Field = 20..28;
}

const HEADER_LEN: usize = field::COMPARE_DATA.end;

header_view!(
    /// The 28-byte AtomicETH.
    AtomicEth, HEADER_LEN, Layer::AtomicEth
);

impl AtomicEth<'_> {
    /// Virtual Address of the 8-byte target.
    #[inline]
    pub fn va(&self) -> u64 {
        get!(u64_at, self.bytes, field::VA)
    }
    /// R_Key: remote key.
    #[inline]
    pub fn rkey(&self) -> u32 {
        get!(u32_at, self.bytes, field::R_KEY)
    }
    /// Swap (or Add) Data.
    #[inline]
    pub fn swap(&self) -> u64 {
        get!(u64_at, self.bytes, field::SWAP_ADD_DATA)
    }
    /// Compare Data.
    #[inline]
    pub fn compare(&self) -> u64 {
        get!(u64_at, self.bytes, field::COMPARE_DATA)
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
