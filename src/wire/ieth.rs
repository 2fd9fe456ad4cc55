//! Invalidate Extended Transport Header (IBA 9.3.7): SEND with Invalidate.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const R_KEY: Field = 0..4;
}

const HEADER_LEN: usize = field::R_KEY.end;

header_view!(
    /// The 4-byte IETH.
    Ieth, HEADER_LEN, Layer::Ieth
);

impl Ieth<'_> {
    /// The R_Key to invalidate.
    #[inline]
    pub fn rkey(&self) -> u32 {
        get!(u32_at, self.bytes, field::R_KEY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from IBA vol 1 9.3.7 (IETH: one 32-bit R_Key): R_Key 0x89abcdef.
    static BYTES: [u8; 4] = [0x89, 0xab, 0xcd, 0xef];

    #[test]
    fn fields() {
        let ieth = Ieth::new_checked(&BYTES, 54).unwrap();
        assert_eq!(ieth.rkey(), 0x89abcdef);
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = Ieth::new_checked(&BYTES[..3], 54).unwrap_err();
        assert_eq!(err, crate::wire::DecodeError::short(Layer::Ieth, 54, 4, 3));
    }
}
