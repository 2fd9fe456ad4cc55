//! The iSCSI Basic Header Segment (RFC 7143, 11.2): 48 bytes every iSCSI PDU begins with.
//! The first 20 are common (opcode, flags, lengths, LUN, Initiator Task Tag); the rest
//! depend on the opcode, and only the words a SCSI Command, a SCSI Response, a Data-In and
//! a Login, Logout or Task Management response give are read here.

use super::super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Immediate delivery (0x40) and the opcode (low six bits).
    pub const OPCODE: usize = 0;
    /// Final (0x80), then opcode-specific flags.
    pub const FLAGS: usize = 1;
    /// Response byte of a SCSI, Task Management or Logout Response.
    pub const RESPONSE: usize = 2;
    /// SCSI status of a SCSI Response, or of a Data-In with its S bit.
    pub const STATUS: usize = 3;
    pub const TOTAL_AHS_LEN: usize = 4;
    pub const DATA_SEGMENT_LEN: Field = 5..8;
    pub const LUN: Field = 8..16;
    pub const ITT: Field = 16..20;
    /// SCSI Command: Expected Data Transfer Length.
    pub const EDTL: Field = 20..24;
    /// CmdSN of a request, StatSN of a target PDU.
    pub const SN: Field = 24..28;
    pub const LOGIN_STATUS_CLASS: usize = 36;
    pub const LOGIN_STATUS_DETAIL: usize = 37;
    pub const CDB: Field = 32..48;
    /// SCSI Response and Data-In: Residual Count.
    pub const RESIDUAL: Field = 44..48;
}

pub const BHS_LEN: usize = field::CDB.end;

/// The ITT of a PDU that belongs to no task (RFC 7143 11.18: an unsolicited NOP).
pub const RESERVED_ITT: u32 = 0xffff_ffff;

/// iSCSI opcodes (RFC 7143, 11.2.1.2): initiator opcodes below 0x20, target ones above.
pub mod opcode {
    pub const NOP_OUT: u8 = 0x00;
    pub const SCSI_COMMAND: u8 = 0x01;
    pub const TASK_MGMT_REQUEST: u8 = 0x02;
    pub const LOGIN_REQUEST: u8 = 0x03;
    pub const TEXT_REQUEST: u8 = 0x04;
    pub const DATA_OUT: u8 = 0x05;
    pub const LOGOUT_REQUEST: u8 = 0x06;
    pub const SNACK_REQUEST: u8 = 0x10;
    pub const NOP_IN: u8 = 0x20;
    pub const SCSI_RESPONSE: u8 = 0x21;
    pub const TASK_MGMT_RESPONSE: u8 = 0x22;
    pub const LOGIN_RESPONSE: u8 = 0x23;
    pub const TEXT_RESPONSE: u8 = 0x24;
    pub const DATA_IN: u8 = 0x25;
    pub const LOGOUT_RESPONSE: u8 = 0x26;
    pub const R2T: u8 = 0x31;
    pub const ASYNC_MESSAGE: u8 = 0x32;
    pub const REJECT: u8 = 0x3f;
}

header_view!(
    /// The 48-byte Basic Header Segment.
    Bhs, BHS_LEN, Layer::Iscsi
);

impl<'a> Bhs<'a> {
    pub fn opcode(&self) -> u8 {
        self.bytes[field::OPCODE] & 0x3f
    }
    pub fn immediate(&self) -> bool {
        self.bytes[field::OPCODE] & 0x40 != 0
    }
    pub fn flags(&self) -> u8 {
        self.bytes[field::FLAGS]
    }
    pub fn final_bit(&self) -> bool {
        self.flags() & 0x80 != 0
    }
    pub fn total_ahs_len(&self) -> u8 {
        self.bytes[field::TOTAL_AHS_LEN]
    }
    pub fn data_segment_len(&self) -> u32 {
        get!(u24_at, self.bytes, field::DATA_SEGMENT_LEN)
    }
    pub fn lun(&self) -> u64 {
        get!(u64_at, self.bytes, field::LUN)
    }
    /// Initiator Task Tag: what pairs a response with its request.
    pub fn itt(&self) -> u32 {
        get!(u32_at, self.bytes, field::ITT)
    }
    /// SCSI Command: the initiator expects to read (R, 0x40) data.
    pub fn read_flag(&self) -> bool {
        self.flags() & 0x40 != 0
    }
    /// SCSI Command: the initiator expects to write (W, 0x20) data.
    pub fn write_flag(&self) -> bool {
        self.flags() & 0x20 != 0
    }
    /// Data-In: the S bit, the PDU carries the command's status.
    pub fn status_flag(&self) -> bool {
        self.flags() & 0x01 != 0
    }
    pub fn expected_data_len(&self) -> u32 {
        get!(u32_at, self.bytes, field::EDTL)
    }
    /// CmdSN: the word at 24 of a request that is numbered (not a Data-Out or SNACK).
    pub fn cmdsn(&self) -> Option<u32> {
        let numbered = self.is_initiator()
            && !matches!(self.opcode(), opcode::DATA_OUT | opcode::SNACK_REQUEST);
        numbered.then(|| get!(u32_at, self.bytes, field::SN))
    }
    /// StatSN: the word at 24 of a target PDU.
    pub fn statsn(&self) -> Option<u32> {
        self.is_target()
            .then(|| get!(u32_at, self.bytes, field::SN))
    }
    pub fn response(&self) -> u8 {
        self.bytes[field::RESPONSE]
    }
    pub fn status(&self) -> u8 {
        self.bytes[field::STATUS]
    }
    pub fn login_status(&self) -> (u8, u8) {
        (
            self.bytes[field::LOGIN_STATUS_CLASS],
            self.bytes[field::LOGIN_STATUS_DETAIL],
        )
    }
    pub fn residual_count(&self) -> u32 {
        get!(u32_at, self.bytes, field::RESIDUAL)
    }
    pub fn cdb(&self) -> &'a [u8; 16] {
        get!(sub_at, self.bytes, field::CDB)
    }
    pub fn is_initiator(&self) -> bool {
        is_initiator_opcode(self.opcode())
    }
    pub fn is_target(&self) -> bool {
        is_target_opcode(self.opcode())
    }
}

pub fn is_initiator_opcode(op: u8) -> bool {
    matches!(op, 0x00..=0x06 | opcode::SNACK_REQUEST | 0x1c..=0x1e)
}

pub fn is_target_opcode(op: u8) -> bool {
    matches!(op, 0x20..=0x26 | opcode::R2T | opcode::ASYNC_MESSAGE | 0x3c..=0x3f)
}

/// Wireshark's name of an iSCSI opcode.
pub fn opcode_name(op: u8) -> &'static str {
    match op {
        opcode::NOP_OUT => "NOP Out",
        opcode::SCSI_COMMAND => "SCSI Command",
        opcode::TASK_MGMT_REQUEST => "Task Management Function",
        opcode::LOGIN_REQUEST => "Login Command",
        opcode::TEXT_REQUEST => "Text Command",
        opcode::DATA_OUT => "SCSI Data Out",
        opcode::LOGOUT_REQUEST => "Logout Command",
        opcode::SNACK_REQUEST => "SNACK Request",
        0x1c..=0x1e => "Vendor Specific",
        opcode::NOP_IN => "NOP In",
        opcode::SCSI_RESPONSE => "SCSI Response",
        opcode::TASK_MGMT_RESPONSE => "Task Management Function Response",
        opcode::LOGIN_RESPONSE => "Login Response",
        opcode::TEXT_RESPONSE => "Text Response",
        opcode::DATA_IN => "SCSI Data In",
        opcode::LOGOUT_RESPONSE => "Logout Response",
        opcode::R2T => "Ready To Transfer",
        opcode::ASYNC_MESSAGE => "Asynchronous Message",
        0x3c..=0x3e => "Vendor Specific",
        opcode::REJECT => "Reject",
        _ => "Unknown",
    }
}

/// SCSI status codes (SAM-5, 5.3.1).
pub fn scsi_status_name(status: u8) -> &'static str {
    match status {
        0x00 => "GOOD",
        0x02 => "CHECK CONDITION",
        0x04 => "CONDITION MET",
        0x08 => "BUSY",
        0x18 => "RESERVATION CONFLICT",
        0x28 => "TASK SET FULL",
        0x30 => "ACA ACTIVE",
        0x40 => "TASK ABORTED",
        _ => "UNKNOWN STATUS",
    }
}

/// The response byte of a SCSI Response (RFC 7143, 11.4.3).
pub fn scsi_response_name(response: u8) -> &'static str {
    match response {
        0x00 => "Command Completed at Target",
        0x01 => "Target Failure",
        _ => "Vendor Specific",
    }
}

/// The response byte of a Task Management Function Response (RFC 7143, 11.6.1).
pub fn task_mgmt_response_name(response: u8) -> &'static str {
    match response {
        0 => "Function Complete",
        1 => "Task Does Not Exist",
        2 => "LUN Does Not Exist",
        3 => "Task Still Allegiant",
        4 => "Task Allegiance Reassignment Not Supported",
        5 => "Task Management Function Not Supported",
        6 => "Function Authorization Failed",
        255 => "Function Rejected",
        _ => "Reserved",
    }
}

/// The response byte of a Logout Response (RFC 7143, 11.15.1).
pub fn logout_response_name(response: u8) -> &'static str {
    match response {
        0 => "Connection Closed Successfully",
        1 => "CID Not Found",
        2 => "Connection Recovery Not Supported",
        3 => "Cleanup Failed",
        _ => "Reserved",
    }
}

/// The Status-Class of a Login Response (RFC 7143, 11.13.5).
pub fn login_status_class_name(class: u8) -> &'static str {
    match class {
        0 => "Success",
        1 => "Redirection",
        2 => "Initiator Error",
        3 => "Target Error",
        _ => "Reserved",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scsi_command_words() {
        // RFC 7143 11.3: immediate SCSI Command, F and R, 8 bytes of data segment, LUN 1,
        // ITT 0x10, EDTL 4096, CmdSN 7, CDB READ(10).
        let mut b = [0u8; BHS_LEN];
        b[0] = 0x41;
        b[1] = 0xc1;
        b[5..8].copy_from_slice(&[0, 0, 8]);
        b[8..16].copy_from_slice(&0x0001_0000_0000_0000u64.to_be_bytes());
        b[16..20].copy_from_slice(&0x10u32.to_be_bytes());
        b[20..24].copy_from_slice(&4096u32.to_be_bytes());
        b[24..28].copy_from_slice(&7u32.to_be_bytes());
        b[32] = 0x28;
        let h = Bhs::new_checked(&b, 0).unwrap();
        assert_eq!(opcode_name(h.opcode()), "SCSI Command");
        assert!(h.immediate() && h.final_bit() && h.read_flag() && !h.write_flag());
        assert_eq!(h.data_segment_len(), 8);
        assert_eq!(h.lun(), 0x0001_0000_0000_0000);
        assert_eq!(
            (h.itt(), h.expected_data_len(), h.cmdsn()),
            (0x10, 4096, Some(7))
        );
        assert_eq!(h.statsn(), None);
        assert_eq!(h.cdb()[0], 0x28);
        assert!(h.is_initiator() && !h.is_target());
        assert!(Bhs::new_checked(&b[..47], 28).is_err());
    }

    #[test]
    fn scsi_response_status() {
        let mut b = [0u8; BHS_LEN];
        b[0] = 0x21;
        b[1] = 0x80;
        b[3] = 0x02;
        let h = Bhs::new_checked(&b, 0).unwrap();
        assert!(h.is_target());
        assert_eq!(
            scsi_response_name(h.response()),
            "Command Completed at Target"
        );
        assert_eq!(scsi_status_name(h.status()), "CHECK CONDITION");
    }
}
