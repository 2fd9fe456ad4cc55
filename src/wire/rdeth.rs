//! Reliable Datagram Extended Transport Header (IBA 9.3.1).

use super::{Layer, header_view, u24_at};

header_view!(
    /// The 4-byte RDETH.
    Rdeth, 4, Layer::Rdeth
);

impl Rdeth<'_> {
    /// EE-Context: the end-to-end context the RD packet belongs to.
    #[inline]
    pub fn eecnxt(&self) -> u32 {
        u24_at::<1, 4>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields() {
        let bytes = [0xff, 0x12, 0x34, 0x56];
        assert_eq!(
            super::Rdeth::new_checked(&bytes, 0).unwrap().eecnxt(),
            0x123456
        );
    }
}
