//! Names of NVMe opcodes, Fabrics command types, properties and status codes, as the
//! specifications (and tshark's summary lines) give them.

/// Fabrics command types (NVMe-oF 1.1 figure 13).
pub mod fctype {
    pub const PROPERTY_SET: u8 = 0x00;
    pub const CONNECT: u8 = 0x01;
    pub const PROPERTY_GET: u8 = 0x04;
    pub const AUTH_SEND: u8 = 0x05;
    pub const AUTH_RECEIVE: u8 = 0x06;
    pub const DISCONNECT: u8 = 0x08;
}

/// I/O command opcodes of the NVM command set that move data (NVMe NVM command set 1.0).
pub mod io {
    pub const FLUSH: u8 = 0x00;
    pub const WRITE: u8 = 0x01;
    pub const READ: u8 = 0x02;
}

pub fn fabrics_name(fctype: u8) -> &'static str {
    match fctype {
        fctype::PROPERTY_SET => "Property Set",
        fctype::CONNECT => "Connect",
        fctype::PROPERTY_GET => "Property Get",
        fctype::AUTH_SEND => "Authentication Send",
        fctype::AUTH_RECEIVE => "Authentication Receive",
        fctype::DISCONNECT => "Disconnect",
        _ => "Unknown Fabrics Command",
    }
}

/// Admin command names (NVMe base 2.0 figure 28).
pub fn admin_name(opcode: u8) -> &'static str {
    match opcode {
        0x00 => "Delete I/O Submission Queue",
        0x01 => "Create I/O Submission Queue",
        0x02 => "Get Log Page",
        0x04 => "Delete I/O Completion Queue",
        0x05 => "Create I/O Completion Queue",
        0x06 => "Identify",
        0x08 => "Abort",
        0x09 => "Set Features",
        0x0a => "Get Features",
        0x0c => "Asynchronous Event Request",
        0x0d => "Namespace Management",
        0x10 => "Firmware Commit",
        0x11 => "Firmware Image Download",
        0x14 => "Device Self-test",
        0x15 => "Namespace Attachment",
        0x18 => "Keep Alive",
        0x19 => "Directive Send",
        0x1a => "Directive Receive",
        0x1c => "Virtualization Management",
        0x1d => "NVMe-MI Send",
        0x1e => "NVMe-MI Receive",
        0x7c => "Doorbell Buffer Config",
        0x80 => "Format NVM",
        0x81 => "Security Send",
        0x82 => "Security Receive",
        0x84 => "Sanitize",
        0x86 => "Get LBA Status",
        _ => "Unknown Admin Command",
    }
}

/// I/O command names of the NVM command set (NVMe NVM command set 1.0 figure 18).
pub fn io_name(opcode: u8) -> &'static str {
    match opcode {
        0x00 => "Flush",
        0x01 => "Write",
        0x02 => "Read",
        0x04 => "Write Uncorrectable",
        0x05 => "Compare",
        0x08 => "Write Zeroes",
        0x09 => "Dataset Management",
        0x0c => "Verify",
        0x0d => "Reservation Register",
        0x0e => "Reservation Report",
        0x11 => "Reservation Acquire",
        0x15 => "Reservation Release",
        0x19 => "Copy",
        _ => "Unknown I/O Command",
    }
}

/// A command's name: Fabrics commands by type, others by opcode in the admin set on the
/// admin queue (QID 0) and the NVM set on I/O queues. When the queue is not known (its CM
/// and Connect were not captured) an opcode is named as an I/O command unless only the
/// admin set has it.
pub fn command_name(opcode: u8, fctype: Option<u8>, qid: Option<u16>) -> &'static str {
    if let Some(fctype) = fctype {
        return fabrics_name(fctype);
    }
    match qid {
        Some(0) => admin_name(opcode),
        Some(_) => io_name(opcode),
        None => match io_name(opcode) {
            "Unknown I/O Command" => admin_name(opcode),
            name => name,
        },
    }
}

/// A property a Property Get or Set names, by offset (NVMe base 2.0 figure 35).
pub fn property_name(offset: u32) -> &'static str {
    match offset {
        0x00 => "Controller Capabilities",
        0x08 => "Version",
        0x14 => "Controller Configuration",
        0x1c => "Controller Status",
        0x20 => "NVM Subsystem Reset",
        _ => "Reserved",
    }
}

/// The CNS of an Identify command, as tshark names its summary.
pub fn identify_cns_name(cns: u8) -> Option<&'static str> {
    match cns {
        0x00 => Some("Namespace"),
        0x01 => Some("Controller"),
        0x02 => Some("Active Namespace List"),
        0x03 => Some("Namespace Identification Descriptor List"),
        _ => None,
    }
}

/// Status code types (NVMe base 2.0 figure 96).
pub fn status_type_name(sct: u8) -> &'static str {
    match sct {
        0 => "Generic Command Status",
        1 => "Command Specific Status",
        2 => "Media and Data Integrity Errors",
        3 => "Path Related Status",
        7 => "Vendor Specific",
        _ => "Reserved",
    }
}

/// A status's short name: the generic codes by name (figure 97), other types by type and
/// code.
pub fn status_name(sct: u8, sc: u8) -> &'static str {
    if sct != 0 {
        return match (sct, sc) {
            (1, 0x01) => "Invalid Completion Queue",
            (1, 0x02) => "Invalid Queue Identifier",
            (1, 0x80) => "Conflicting Attributes",
            (1, 0x82) => "Attempted Write to Read Only Range",
            (1, 0x81) => "Invalid Protection Information",
            (2, 0x80) => "Write Fault",
            (2, 0x81) => "Unrecovered Read Error",
            (2, 0x82) => "End-to-end Guard Check Error",
            (2, 0x86) => "Access Denied",
            (3, 0x00) => "Internal Path Error",
            (3, 0x01) => "Asymmetric Access Persistent Loss",
            (3, 0x02) => "Asymmetric Access Inaccessible",
            _ => status_type_name(sct),
        };
    }
    match sc {
        0x00 => "Successful Completion",
        0x01 => "Invalid Command Opcode",
        0x02 => "Invalid Field in Command",
        0x03 => "Command ID Conflict",
        0x04 => "Data Transfer Error",
        0x05 => "Commands Aborted due to Power Loss Notification",
        0x06 => "Internal Error",
        0x07 => "Command Abort Requested",
        0x08 => "Command Aborted due to SQ Deletion",
        0x09 => "Command Aborted due to Failed Fused Command",
        0x0a => "Command Aborted due to Missing Fused Command",
        0x0b => "Invalid Namespace or Format",
        0x0c => "Command Sequence Error",
        0x0d => "Invalid SGL Segment Descriptor",
        0x0e => "Invalid Number of SGL Descriptors",
        0x0f => "Data SGL Length Invalid",
        0x10 => "Metadata SGL Length Invalid",
        0x11 => "SGL Descriptor Type Invalid",
        0x15 => "Operation Denied",
        0x16 => "SGL Offset Invalid",
        0x1d => "Namespace is Write Protected",
        0x1e => "Command Interrupted",
        0x80 => "LBA Out of Range",
        0x81 => "Capacity Exceeded",
        0x82 => "Namespace Not Ready",
        0x83 => "Reservation Conflict",
        0x84 => "Format In Progress",
        _ => "Generic Command Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_names_follow_the_queue() {
        assert_eq!(command_name(0x7f, Some(0x01), None), "Connect");
        assert_eq!(command_name(0x06, None, Some(0)), "Identify");
        assert_eq!(command_name(0x02, None, Some(1)), "Read");
        assert_eq!(command_name(0x02, None, Some(0)), "Get Log Page");
        assert_eq!(command_name(0x18, None, None), "Keep Alive");
        assert_eq!(command_name(0x01, None, None), "Write");
    }
}
