//! XRC Extended Transport Header (IBA annex A14): the target shared receive queue.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// After eight reserved bits.
    pub const XRCSRQ: Field = 1..4;
}

const HEADER_LEN: usize = field::XRCSRQ.end;

header_view!(
    /// The 4-byte XRCETH.
    XrcEth, HEADER_LEN, Layer::XrcEth
);

impl XrcEth<'_> {
    /// XRCSRQ: the XRC shared receive queue number.
    #[inline]
    pub fn xrcsrq(&self) -> u32 {
        get!(u24_at, self.bytes, field::XRCSRQ)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from IBA vol 1 annex A14 (XRCETH: 8 reserved bits, 24-bit XRCSRQ):
    // reserved byte 0xff, which must not leak into the SRQ number, XRCSRQ 0x123456.
    static BYTES: [u8; 4] = [0xff, 0x12, 0x34, 0x56];

    #[test]
    fn fields() {
        let xrceth = XrcEth::new_checked(&BYTES, 54).unwrap();
        assert_eq!(xrceth.xrcsrq(), 0x123456);
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = XrcEth::new_checked(&BYTES[..3], 54).unwrap_err();
        assert_eq!(
            err,
            crate::wire::DecodeError::short(Layer::XrcEth, 54, 4, 3)
        );
    }
}
