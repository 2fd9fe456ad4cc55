//! Datagram Extended Transport Header (IBA 9.3.2): UD and RD requests.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const Q_KEY: Field = 0..4;
    /// After one reserved byte.
    pub const SRC_QP: Field = 5..8;
}

const HEADER_LEN: usize = field::SRC_QP.end;

header_view!(
    /// The 8-byte DETH.
    Deth, HEADER_LEN, Layer::Deth
);

impl Deth<'_> {
    /// Q_Key: queue key.
    #[inline]
    pub fn qkey(&self) -> u32 {
        get!(u32_at, self.bytes, field::Q_KEY)
    }
    /// SrcQP: the sender's queue pair.
    #[inline]
    pub fn src_qp(&self) -> u32 {
        get!(u24_at, self.bytes, field::SRC_QP)
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
