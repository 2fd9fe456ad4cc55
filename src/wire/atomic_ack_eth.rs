//! Atomic Acknowledge Extended Transport Header (IBA 9.5.3).

use super::{Layer, header_view, u64_at};

header_view!(
    /// The 8-byte AtomicAckETH.
    AtomicAckEth, 8, Layer::AtomicAckEth
);

impl AtomicAckEth<'_> {
    /// OrigRemDt: the value at the target before the atomic operation.
    #[inline]
    pub fn orig(&self) -> u64 {
        u64_at::<0, 8>(self.bytes)
    }
}
