//! XRC Extended Transport Header (IBA annex A14): the target shared receive queue.

use super::{Layer, header_view, u24_at};

header_view!(
    /// The 4-byte XRCETH.
    XrcEth, 4, Layer::XrcEth
);

impl XrcEth<'_> {
    /// XRCSRQ: the XRC shared receive queue number.
    #[inline]
    pub fn xrcsrq(&self) -> u32 {
        u24_at::<1, 4>(self.bytes)
    }
}
