//! Invalidate Extended Transport Header (IBA 9.3.7): SEND with Invalidate.

use super::{Layer, header_view, u32_at};

header_view!(
    /// The 4-byte IETH.
    Ieth, 4, Layer::Ieth
);

impl Ieth<'_> {
    /// The R_Key to invalidate.
    #[inline]
    pub fn rkey(&self) -> u32 {
        u32_at::<0, 4>(self.bytes)
    }
}
