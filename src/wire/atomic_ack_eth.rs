//! Atomic Acknowledge Extended Transport Header (IBA 9.5.3).

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const ORIG_REM_DT: Field = 0..8;
}

const HEADER_LEN: usize = field::ORIG_REM_DT.end;

header_view!(
    /// The 8-byte AtomicAckETH.
    AtomicAckEth, HEADER_LEN, Layer::AtomicAckEth
);

impl AtomicAckEth<'_> {
    /// OrigRemDt: the value at the target before the atomic operation.
    #[inline]
    pub fn orig(&self) -> u64 {
        get!(u64_at, self.bytes, field::ORIG_REM_DT)
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
            crate::wire::DecodeError::short(Layer::AtomicAckEth, 58, 8, 7)
        );
    }
}
