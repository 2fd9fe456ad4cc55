//! The SCSI Command Descriptor Block a SCSI Command carries (SPC-4 4.2): its operation code
//! with the name a storage engineer reads, and the LBA and transfer length of the READ and
//! WRITE commands (SBC-3 5.11 to 5.16, 5.32 to 5.36).

/// The operation codes named here.
pub mod op {
    pub const TEST_UNIT_READY: u8 = 0x00;
    pub const REQUEST_SENSE: u8 = 0x03;
    pub const READ_6: u8 = 0x08;
    pub const WRITE_6: u8 = 0x0a;
    pub const INQUIRY: u8 = 0x12;
    pub const MODE_SELECT_6: u8 = 0x15;
    pub const MODE_SENSE_6: u8 = 0x1a;
    pub const START_STOP_UNIT: u8 = 0x1b;
    pub const READ_CAPACITY_10: u8 = 0x25;
    pub const READ_10: u8 = 0x28;
    pub const WRITE_10: u8 = 0x2a;
    pub const SYNCHRONIZE_CACHE_10: u8 = 0x35;
    pub const UNMAP: u8 = 0x42;
    pub const LOG_SENSE: u8 = 0x4d;
    pub const MODE_SELECT_10: u8 = 0x55;
    pub const MODE_SENSE_10: u8 = 0x5a;
    pub const PERSISTENT_RESERVE_IN: u8 = 0x5e;
    pub const PERSISTENT_RESERVE_OUT: u8 = 0x5f;
    pub const READ_16: u8 = 0x88;
    pub const COMPARE_AND_WRITE: u8 = 0x89;
    pub const WRITE_16: u8 = 0x8a;
    pub const SYNCHRONIZE_CACHE_16: u8 = 0x91;
    pub const WRITE_SAME_16: u8 = 0x93;
    /// SERVICE ACTION IN(16): READ CAPACITY(16) is its service action 0x10.
    pub const SERVICE_ACTION_IN_16: u8 = 0x9e;
    pub const REPORT_LUNS: u8 = 0xa0;
    pub const MAINTENANCE_IN: u8 = 0xa3;
    pub const READ_12: u8 = 0xa8;
    pub const WRITE_12: u8 = 0xaa;
}

const READ_CAPACITY_16_ACTION: u8 = 0x10;

/// The name of a CDB's command.
pub fn name(cdb: &[u8; 16]) -> &'static str {
    match cdb[0] {
        op::TEST_UNIT_READY => "TEST UNIT READY",
        op::REQUEST_SENSE => "REQUEST SENSE",
        op::READ_6 => "READ(6)",
        op::WRITE_6 => "WRITE(6)",
        op::INQUIRY => "INQUIRY",
        op::MODE_SELECT_6 => "MODE SELECT(6)",
        op::MODE_SENSE_6 => "MODE SENSE(6)",
        op::START_STOP_UNIT => "START STOP UNIT",
        op::READ_CAPACITY_10 => "READ CAPACITY(10)",
        op::READ_10 => "READ(10)",
        op::WRITE_10 => "WRITE(10)",
        op::SYNCHRONIZE_CACHE_10 => "SYNCHRONIZE CACHE(10)",
        op::UNMAP => "UNMAP",
        op::LOG_SENSE => "LOG SENSE",
        op::MODE_SELECT_10 => "MODE SELECT(10)",
        op::MODE_SENSE_10 => "MODE SENSE(10)",
        op::PERSISTENT_RESERVE_IN => "PERSISTENT RESERVE IN",
        op::PERSISTENT_RESERVE_OUT => "PERSISTENT RESERVE OUT",
        op::READ_16 => "READ(16)",
        op::COMPARE_AND_WRITE => "COMPARE AND WRITE",
        op::WRITE_16 => "WRITE(16)",
        op::SYNCHRONIZE_CACHE_16 => "SYNCHRONIZE CACHE(16)",
        op::WRITE_SAME_16 => "WRITE SAME(16)",
        op::SERVICE_ACTION_IN_16 if cdb[1] & 0x1f == READ_CAPACITY_16_ACTION => "READ CAPACITY(16)",
        op::SERVICE_ACTION_IN_16 => "SERVICE ACTION IN(16)",
        op::REPORT_LUNS => "REPORT LUNS",
        op::MAINTENANCE_IN => "MAINTENANCE IN",
        op::READ_12 => "READ(12)",
        op::WRITE_12 => "WRITE(12)",
        _ => "SCSI",
    }
}

/// The logical block address and the transfer length in blocks of a READ or WRITE (10) or
/// (16); `None` for other commands.
pub fn lba_and_blocks(cdb: &[u8; 16]) -> Option<(u64, u32)> {
    let be32 = |at: usize| u32::from_be_bytes([cdb[at], cdb[at + 1], cdb[at + 2], cdb[at + 3]]);
    match cdb[0] {
        op::READ_10 | op::WRITE_10 => Some((
            u64::from(be32(2)),
            u32::from(u16::from_be_bytes([cdb[7], cdb[8]])),
        )),
        op::READ_16 | op::WRITE_16 => {
            Some((u64::from(be32(2)) << 32 | u64::from(be32(6)), be32(10)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_and_write_lba_and_length() {
        // SBC-3 5.12: READ(10) LBA 0x00001000, 8 blocks.
        let mut read10 = [0u8; 16];
        read10[..10].copy_from_slice(&[0x28, 0, 0, 0, 0x10, 0, 0, 0, 8, 0]);
        assert_eq!(name(&read10), "READ(10)");
        assert_eq!(lba_and_blocks(&read10), Some((0x1000, 8)));
        // SBC-3 5.36: WRITE(16) LBA 0x1_0000_0002, 0x20 blocks.
        let mut write16 = [0u8; 16];
        write16[0] = 0x8a;
        write16[2..10].copy_from_slice(&0x1_0000_0002u64.to_be_bytes());
        write16[10..14].copy_from_slice(&0x20u32.to_be_bytes());
        assert_eq!(name(&write16), "WRITE(16)");
        assert_eq!(lba_and_blocks(&write16), Some((0x1_0000_0002, 0x20)));
        let mut capacity16 = [0u8; 16];
        capacity16[..2].copy_from_slice(&[0x9e, 0x10]);
        assert_eq!(name(&capacity16), "READ CAPACITY(16)");
        assert_eq!(lba_and_blocks(&capacity16), None);
    }
}
