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

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from IBA vol 1 9.5.3 (AtomicAckETH: one 64-bit OrigRemDt):
    // 0xfedcba9876543210.
    static BYTES: [u8; 8] = [0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10];

    #[test]
    fn fields() {
        let ack = AtomicAckEth::new_checked(&BYTES, 58).unwrap();
        assert_eq!(ack.orig(), 0xfedcba9876543210);
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = AtomicAckEth::new_checked(&BYTES[..7], 58).unwrap_err();
        assert_eq!(
            err,
            super::super::DecodeError::short(Layer::AtomicAckEth, 58, 8, 7)
        );
    }
}
