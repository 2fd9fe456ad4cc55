//! Datagram Extended Transport Header (IBA 9.3.2): UD and RD requests.

use super::{Layer, header_view, u24_at, u32_at};

header_view!(
    /// The 8-byte DETH.
    Deth, 8, Layer::Deth
);

impl Deth<'_> {
    /// Q_Key: queue key.
    #[inline]
    pub fn qkey(&self) -> u32 {
        u32_at::<0, 8>(self.bytes)
    }
    /// SrcQP: the sender's queue pair.
    #[inline]
    pub fn src_qp(&self) -> u32 {
        u24_at::<5, 8>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        // Hand-assembled: Q_Key 0x80010000 (a GSI-style key), reserved byte, SrcQP 1.
        let bytes = [0x80, 0x01, 0x00, 0x00, 0xee, 0x00, 0x00, 0x01];
        let deth = Deth::new_checked(&bytes, 0).unwrap();
        assert_eq!(deth.qkey(), 0x8001_0000);
        assert_eq!(deth.src_qp(), 1);
    }
}
