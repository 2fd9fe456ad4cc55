//! Immediate Data Extended Transport Header (IBA 9.3.4).

use super::{Layer, header_view, u32_at};

header_view!(
    /// The 4-byte ImmDt.
    ImmDt, 4, Layer::ImmDt
);

impl ImmDt<'_> {
    /// The immediate value, as the big-endian word on the wire.
    #[inline]
    pub fn value(&self) -> u32 {
        u32_at::<0, 4>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from IBA vol 1 9.3.4 (ImmDt: one 32-bit word): 0xdeadbeef.
    static BYTES: [u8; 4] = [0xde, 0xad, 0xbe, 0xef];

    #[test]
    fn fields() {
        let immdt = ImmDt::new_checked(&BYTES, 54).unwrap();
        assert_eq!(immdt.value(), 0xdeadbeef);
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = ImmDt::new_checked(&BYTES[..2], 54).unwrap_err();
        assert_eq!(
            err,
            super::super::DecodeError::short(Layer::ImmDt, 54, 4, 2)
        );
    }
}
