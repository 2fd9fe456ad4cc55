//! Immediate Data Extended Transport Header (IBA 9.3.4).

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const IMMEDIATE_DATA: Field = 0..4;
}

const HEADER_LEN: usize = field::IMMEDIATE_DATA.end;

header_view!(
    /// The 4-byte ImmDt.
    ImmDt, HEADER_LEN, Layer::ImmDt
);

impl ImmDt<'_> {
    /// The immediate value, as the big-endian word on the wire.
    #[inline]
    pub fn value(&self) -> u32 {
        get!(u32_at, self.bytes, field::IMMEDIATE_DATA)
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
        assert_eq!(err, crate::wire::DecodeError::short(Layer::ImmDt, 54, 4, 2));
    }
}
