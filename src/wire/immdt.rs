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
