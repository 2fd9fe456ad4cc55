//! MAC Control frames (EtherType 0x8808): 802.3x PAUSE and 802.1Qbb PFC.

use super::{Layer, header_view, u16_at};

header_view!(
    /// The 2-byte MAC Control opcode.
    MacControlOpcode, 2, Layer::MacControl
);

header_view!(
    /// 802.1Qbb priority-based flow control: opcode, class-enable vector, eight quanta.
    Pfc, 20, Layer::MacControl
);

header_view!(
    /// 802.3x PAUSE: opcode and one quanta.
    Pause, 4, Layer::MacControl
);

pub const OPCODE_PAUSE: u16 = 0x0001;
pub const OPCODE_PFC: u16 = 0x0101;

impl MacControlOpcode<'_> {
    #[inline]
    pub fn opcode(&self) -> u16 {
        u16_at::<0, 2>(self.bytes)
    }
}

impl Pfc<'_> {
    /// Class-enable vector: bit n set means priority n's quanta is valid.
    #[inline]
    pub fn class_enable(&self) -> u16 {
        u16_at::<2, 20>(self.bytes)
    }
    /// Whether priority `n` (0..=7) is enabled in this frame.
    #[inline]
    pub fn enabled(&self, priority: usize) -> bool {
        priority < 8 && self.class_enable() & (1 << priority) != 0
    }
    /// Pause quanta of priorities 0..=7; each quantum is 512 bit times.
    #[inline]
    pub fn quanta(&self) -> [u16; 8] {
        let b = self.bytes;
        std::array::from_fn(|i| u16::from_be_bytes([b[4 + 2 * i], b[5 + 2 * i]]))
    }
}

impl Pause<'_> {
    /// Pause quanta; 0 resumes transmission.
    #[inline]
    pub fn quanta(&self) -> u16 {
        u16_at::<2, 4>(self.bytes)
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
