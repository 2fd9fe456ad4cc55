//! MAC Control frames (EtherType 0x8808): 802.3x PAUSE and 802.1Qbb PFC.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Every MAC Control frame begins with it.
    pub const OPCODE: Field = 0..2;

    pub mod pfc {
        use super::Field;

        pub const CLASS_ENABLE_VECTOR: Field = 2..4;
        /// Time (quanta) of priorities 0 to 7, two bytes each.
        pub const TIMES: Field = 4..20;
    }

    pub mod pause {
        use super::Field;

        pub const QUANTA: Field = 2..4;
    }
}

header_view!(
    /// The 2-byte MAC Control opcode.
    MacControlOpcode, field::OPCODE.end, Layer::MacControl
);

header_view!(
    /// 802.1Qbb priority-based flow control: opcode, class-enable vector, eight quanta.
    Pfc, field::pfc::TIMES.end, Layer::MacControl
);

header_view!(
    /// 802.3x PAUSE: opcode and one quanta.
    Pause, field::pause::QUANTA.end, Layer::MacControl
);

pub const OPCODE_PAUSE: u16 = 0x0001;
pub const OPCODE_PFC: u16 = 0x0101;

impl MacControlOpcode<'_> {
    /// MAC Control Opcode: PAUSE or PFC.
    #[inline]
    pub fn opcode(&self) -> u16 {
        get!(u16_at, self.bytes, field::OPCODE)
    }
}

impl Pfc<'_> {
    /// Class-enable vector: bit n set means priority n's quanta is valid.
    #[inline]
    pub fn class_enable(&self) -> u16 {
        get!(u16_at, self.bytes, field::pfc::CLASS_ENABLE_VECTOR)
    }
    /// Whether priority `n` (0..=7) is enabled in this frame.
    #[inline]
    pub fn enabled(&self, priority: usize) -> bool {
        priority < 8 && self.class_enable() & (1 << priority) != 0
    }
    /// Pause quanta of priorities 0..=7; each quantum is 512 bit times.
    #[inline]
    pub fn quanta(&self) -> [u16; 8] {
        let times: [u8; 16] = get!(array_at, self.bytes, field::pfc::TIMES);
        std::array::from_fn(|i| u16::from_be_bytes([times[2 * i], times[2 * i + 1]]))
    }
}

impl Pause<'_> {
    /// Pause quanta; 0 resumes transmission.
    #[inline]
    pub fn quanta(&self) -> u16 {
        get!(u16_at, self.bytes, field::pause::QUANTA)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn pfc_fields() {
        // Opcode 0x0101, priorities 3 and 7 enabled, quanta 0xffff for 3 and 0 (XON) for 7.
        let mut bytes = [0u8; 20];
        bytes[..4].copy_from_slice(&[0x01, 0x01, 0x00, 0x88]);
        bytes[10] = 0xff;
        bytes[11] = 0xff;
        let pfc = super::Pfc::new_checked(&bytes, 14).unwrap();
        assert_eq!(pfc.class_enable(), 0x88);
        assert!(pfc.enabled(3) && pfc.enabled(7) && !pfc.enabled(0));
        assert_eq!(pfc.quanta(), [0, 0, 0, 0xffff, 0, 0, 0, 0]);
    }
}
