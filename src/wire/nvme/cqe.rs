//! The completion queue entry a response capsule carries (NVMe base 2.0, 4.2.3).

use super::super::{Field, Layer, header_view};
use super::le;

mod field {
    use super::Field;

    /// Command specific.
    pub const DW0: Field = 0..4;
    pub const DW1: Field = 4..8;
    pub const SQHD: Field = 8..10;
    pub const SQID: Field = 10..12;
    pub const CID: Field = 12..14;
    /// Phase tag in bit 0, then SC (8 bits), SCT (3), CRD (2), M, DNR.
    pub const STATUS: Field = 14..16;
}

pub const CQE_LEN: usize = field::STATUS.end;

header_view!(
    /// The 16-byte completion queue entry.
    Cqe, CQE_LEN, Layer::Nvme
);

impl Cqe<'_> {
    pub fn dw0(&self) -> u32 {
        le!(u32, self.bytes, field::DW0)
    }
    pub fn dw1(&self) -> u32 {
        le!(u32, self.bytes, field::DW1)
    }
    pub fn sq_head(&self) -> u16 {
        le!(u16, self.bytes, field::SQHD)
    }
    pub fn sq_id(&self) -> u16 {
        le!(u16, self.bytes, field::SQID)
    }
    pub fn cid(&self) -> u16 {
        le!(u16, self.bytes, field::CID)
    }
    /// The whole status half-word, phase tag included.
    pub fn status(&self) -> u16 {
        le!(u16, self.bytes, field::STATUS)
    }
    pub fn phase(&self) -> bool {
        self.status() & 1 != 0
    }
    /// Status Code.
    pub fn sc(&self) -> u8 {
        (self.status() >> 1) as u8
    }
    /// Status Code Type: 0 generic, 1 command specific, 2 media and data integrity, 3 path.
    pub fn sct(&self) -> u8 {
        ((self.status() >> 9) & 0x7) as u8
    }
    /// Command Retry Delay.
    pub fn crd(&self) -> u8 {
        ((self.status() >> 12) & 0x3) as u8
    }
    /// More: the controller has more in the Error Information log page.
    pub fn more(&self) -> bool {
        self.status() & 0x4000 != 0
    }
    /// Do Not Retry.
    pub fn dnr(&self) -> bool {
        self.status() & 0x8000 != 0
    }
    /// Success: SCT 0, SC 0.
    pub fn is_success(&self) -> bool {
        self.sct() == 0 && self.sc() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_status() {
        // Hand-assembled: DW0 0x30, SQHD 4, SQID 1, CID 0x0a, status with SCT 0, SC 0x80
        // (LBA Out of Range), DNR set: (0x80 << 1) | 0x8000 = 0x8100.
        let b = [0x30, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0x0a, 0, 0x00, 0x81];
        let cqe = Cqe::new_checked(&b, 0).unwrap();
        assert_eq!(cqe.dw0(), 0x30);
        assert_eq!(cqe.sq_head(), 4);
        assert_eq!(cqe.sq_id(), 1);
        assert_eq!(cqe.cid(), 10);
        assert_eq!(cqe.sc(), 0x80);
        assert_eq!(cqe.sct(), 0);
        assert!(cqe.dnr());
        assert!(!cqe.more());
        assert!(!cqe.is_success());
    }
}
