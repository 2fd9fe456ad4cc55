//! The submission queue entry a command capsule begins with (NVMe base 2.0, 4.2; NVMe-oF
//! 1.1, 3.3.1 for the Fabrics commands, which put their type where NSID would be).

use super::super::{Field, Layer, get, header_view};
use super::le;
use super::sgl::Sgl;

mod field {
    use super::Field;

    pub const OPCODE: usize = 0;
    /// FUSE in bits 0-1, PSDT in bits 6-7.
    pub const FLAGS: usize = 1;
    pub const CID: Field = 2..4;
    pub const NSID: Field = 4..8;
    /// Fabrics commands: the command type, in the first byte of NSID.
    pub const FCTYPE: usize = 4;
    pub const MPTR: Field = 16..24;
    pub const SGL1: Field = 24..40;
    pub const CDW10: Field = 40..44;
    pub const CDW11: Field = 44..48;
    pub const CDW12: Field = 48..52;
    pub const CDW13: Field = 52..56;
    pub const CDW14: Field = 56..60;
    pub const CDW15: Field = 60..64;
    /// Read, Write and their kin: the starting LBA over CDW10-11, the 0-based block count
    /// in CDW12's low half.
    pub const SLBA: Field = 40..48;
    pub const NLB: Field = 48..50;
    /// Connect (NVMe-oF 1.1, figure 20).
    pub const CONNECT_RECFMT: Field = 40..42;
    pub const CONNECT_QID: Field = 42..44;
    pub const CONNECT_SQSIZE: Field = 44..46;
    pub const CONNECT_CATTR: usize = 46;
    pub const CONNECT_KATO: Field = 48..52;
    /// Property Get and Set (figures 27 and 29): size attribute, offset, the value to set.
    pub const PROPERTY_ATTRIB: usize = 40;
    pub const PROPERTY_OFFSET: Field = 44..48;
    pub const PROPERTY_VALUE: Field = 48..56;
}

pub const SQE_LEN: usize = field::CDW15.end;

/// The opcode that makes a command a Fabrics command.
pub const FABRICS_OPCODE: u8 = 0x7f;

header_view!(
    /// The 64-byte submission queue entry.
    Sqe, SQE_LEN, Layer::Nvme
);

impl<'a> Sqe<'a> {
    pub fn opcode(&self) -> u8 {
        self.bytes[field::OPCODE]
    }
    pub fn fuse(&self) -> u8 {
        self.bytes[field::FLAGS] & 0x03
    }
    /// PRP or SGL for data transfer: 1 (SGL) is the only value NVMe-oF allows.
    pub fn psdt(&self) -> u8 {
        self.bytes[field::FLAGS] >> 6
    }
    pub fn cid(&self) -> u16 {
        le!(u16, self.bytes, field::CID)
    }
    pub fn is_fabrics(&self) -> bool {
        self.opcode() == FABRICS_OPCODE
    }
    /// Fabrics commands only: the command type (Connect, Property Get...).
    pub fn fctype(&self) -> Option<u8> {
        self.is_fabrics().then_some(self.bytes[field::FCTYPE])
    }
    /// Namespace; Fabrics commands have none.
    pub fn nsid(&self) -> Option<u32> {
        (!self.is_fabrics()).then(|| le!(u32, self.bytes, field::NSID))
    }
    pub fn mptr(&self) -> u64 {
        le!(u64, self.bytes, field::MPTR)
    }
    pub fn sgl(&self) -> Sgl<'a> {
        let bytes: &'a [u8; 16] = get!(sub_at, self.bytes, field::SGL1);
        match Sgl::new_checked(bytes, field::SGL1.start) {
            Ok(sgl) => sgl,
            // Sixteen bytes are always enough for a descriptor.
            Err(_) => unreachable!(),
        }
    }
    /// Command dwords 10 to 15, in order.
    pub fn cdws(&self) -> [u32; 6] {
        [
            le!(u32, self.bytes, field::CDW10),
            le!(u32, self.bytes, field::CDW11),
            le!(u32, self.bytes, field::CDW12),
            le!(u32, self.bytes, field::CDW13),
            le!(u32, self.bytes, field::CDW14),
            le!(u32, self.bytes, field::CDW15),
        ]
    }
    /// Starting LBA, for the I/O commands that address blocks.
    pub fn slba(&self) -> Option<u64> {
        self.addresses_blocks()
            .then(|| le!(u64, self.bytes, field::SLBA))
    }
    /// Number of logical blocks as the field holds it: 0-based (0 means one block).
    pub fn nlb(&self) -> Option<u16> {
        self.addresses_blocks()
            .then(|| le!(u16, self.bytes, field::NLB))
    }
    /// Flush (0x00) addresses none; Write, Read, Write Uncorrectable, Compare, Write Zeroes,
    /// Verify do. Only I/O queues carry them, which the opcode alone does not say: an admin
    /// command with the same opcode is read the same way, as tshark reads it on an unknown
    /// queue.
    fn addresses_blocks(&self) -> bool {
        matches!(self.opcode(), 0x01 | 0x02 | 0x04 | 0x05 | 0x08 | 0x0c)
    }
    pub fn connect_recfmt(&self) -> u16 {
        le!(u16, self.bytes, field::CONNECT_RECFMT)
    }
    pub fn connect_qid(&self) -> u16 {
        le!(u16, self.bytes, field::CONNECT_QID)
    }
    pub fn connect_sqsize(&self) -> u16 {
        le!(u16, self.bytes, field::CONNECT_SQSIZE)
    }
    pub fn connect_cattr(&self) -> u8 {
        self.bytes[field::CONNECT_CATTR]
    }
    pub fn connect_kato(&self) -> u32 {
        le!(u32, self.bytes, field::CONNECT_KATO)
    }
    /// Property size: 0 for 4 bytes, 1 for 8.
    pub fn property_size(&self) -> u8 {
        self.bytes[field::PROPERTY_ATTRIB] & 0x07
    }
    pub fn property_offset(&self) -> u32 {
        le!(u32, self.bytes, field::PROPERTY_OFFSET)
    }
    pub fn property_value(&self) -> u64 {
        le!(u64, self.bytes, field::PROPERTY_VALUE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_command() {
        // Hand-assembled from NVMe-oF 1.1 figure 20: opcode 0x7f, PSDT 1 (flags 0x40), CID 0,
        // FCTYPE 0x01; SGL1 keyed (0x40) length 1024 key 0x1724; RECFMT 0, QID 0, SQSIZE 31,
        // KATO 15000 ms.
        let mut b = [0u8; 64];
        b[0] = 0x7f;
        b[1] = 0x40;
        b[4] = 0x01;
        b[32..35].copy_from_slice(&[0x00, 0x04, 0x00]);
        b[35..39].copy_from_slice(&[0x24, 0x17, 0, 0]);
        b[39] = 0x40;
        b[44] = 31;
        b[48..52].copy_from_slice(&15000u32.to_le_bytes());
        let sqe = Sqe::new_checked(&b, 0).unwrap();
        assert!(sqe.is_fabrics());
        assert_eq!(sqe.psdt(), 1);
        assert_eq!(sqe.fctype(), Some(1));
        assert_eq!(sqe.nsid(), None);
        assert_eq!(sqe.sgl().length(), 1024);
        assert_eq!(sqe.sgl().key(), Some(0x1724));
        assert_eq!(sqe.connect_sqsize(), 31);
        assert_eq!(sqe.connect_kato(), 15000);
    }

    #[test]
    fn read_command() {
        // Opcode 0x02 Read, CID 12 (0x0c 0x00), NSID 1, SLBA 2048 (0x800), NLB 7 (8 blocks).
        let mut b = [0u8; 64];
        b[0] = 0x02;
        b[1] = 0x40;
        b[2] = 12;
        b[4] = 1;
        b[40..48].copy_from_slice(&[0x00, 0x08, 0, 0, 0, 0, 0, 0]);
        b[48] = 7;
        let sqe = Sqe::new_checked(&b, 0).unwrap();
        assert_eq!(sqe.cid(), 12);
        assert_eq!(sqe.nsid(), Some(1));
        assert_eq!(sqe.slba(), Some(2048));
        assert_eq!(sqe.nlb(), Some(7));
        assert_eq!(sqe.fctype(), None);
    }
}
