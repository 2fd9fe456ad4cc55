//! Reliable Datagram Extended Transport Header (IBA 9.3.1).

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// After one reserved byte.
    pub const EE_CONTEXT: Field = 1..4;
}

const HEADER_LEN: usize = field::EE_CONTEXT.end;

header_view!(
    /// The 4-byte RDETH.
    Rdeth, HEADER_LEN, Layer::Rdeth
);

impl Rdeth<'_> {
    /// EE-Context: the end-to-end context the RD packet belongs to.
    #[inline]
    pub fn eecnxt(&self) -> u32 {
        get!(u24_at, self.bytes, field::EE_CONTEXT)
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
