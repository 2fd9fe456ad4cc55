//! The iSER header (RFC 7145, 9.2): an opcode and two validity flags, then the write and
//! read STags with their base offsets; and the 8-byte Hello and HelloReply messages (9.3,
//! 9.4), whose first word holds versions and the IRD or ORD instead.

use super::super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Opcode in the top nibble; WSV (0x08) and RSV (0x04), or REJ (0x01) in a HelloReply.
    pub const FLAGS: usize = 0;
    pub const WRITE_STAG: Field = 4..8;
    pub const WRITE_VA: Field = 8..16;
    pub const READ_STAG: Field = 16..20;
    pub const READ_VA: Field = 20..28;
}

pub const HEADER_LEN: usize = field::READ_VA.end;

mod hello {
    use super::Field;

    pub const FLAGS: usize = 0;
    /// MaxVer in the top nibble, MinVer (CurVer in a HelloReply) below.
    pub const VERSIONS: usize = 1;
    /// Hello: iSER-IRD; HelloReply: iSER-ORD.
    pub const IRD_ORD: Field = 2..4;
    pub const RESERVED: Field = 4..8;
}

pub const HELLO_LEN: usize = hello::RESERVED.end;

/// The iSER opcodes (RFC 7145, 9.2), the top nibble of the first byte.
pub mod opcode {
    pub const ISCSI_CONTROL: u8 = 0x1;
    pub const HELLO: u8 = 0x2;
    pub const HELLO_REPLY: u8 = 0x3;
}

const WSV: u8 = 0x08;
const RSV: u8 = 0x04;
const REJ: u8 = 0x01;

header_view!(
    /// The iSER header every iSER message begins with.
    IserHeader, HEADER_LEN, Layer::Iser
);

impl IserHeader<'_> {
    /// The whole first byte, as Wireshark's `iser.flags`.
    pub fn flags(&self) -> u8 {
        self.bytes[field::FLAGS]
    }
    pub fn opcode(&self) -> u8 {
        self.flags() >> 4
    }
    /// Write STag Valid: the initiator's buffer the target RDMA READs (SCSI write data).
    pub fn wsv(&self) -> bool {
        self.flags() & WSV != 0
    }
    /// Read STag Valid: the initiator's buffer the target RDMA WRITEs (SCSI read data).
    pub fn rsv(&self) -> bool {
        self.flags() & RSV != 0
    }
    pub fn write_stag(&self) -> u32 {
        get!(u32_at, self.bytes, field::WRITE_STAG)
    }
    pub fn write_va(&self) -> u64 {
        get!(u64_at, self.bytes, field::WRITE_VA)
    }
    pub fn read_stag(&self) -> u32 {
        get!(u32_at, self.bytes, field::READ_STAG)
    }
    pub fn read_va(&self) -> u64 {
        get!(u64_at, self.bytes, field::READ_VA)
    }
    /// A control-type PDU whose low nibble holds only WSV and RSV, as RFC 7145 requires
    /// (the reserved bits are zero when sent).
    pub fn is_valid_control(&self) -> bool {
        self.opcode() == opcode::ISCSI_CONTROL && self.flags() & 0x03 == 0
    }
}

header_view!(
    /// A Hello or HelloReply message, exchanged on iWARP before the login.
    Hello, HELLO_LEN, Layer::Iser
);

impl Hello<'_> {
    pub fn flags(&self) -> u8 {
        self.bytes[hello::FLAGS]
    }
    pub fn opcode(&self) -> u8 {
        self.bytes[hello::FLAGS] >> 4
    }
    /// HelloReply: the target rejects the connection.
    pub fn rej(&self) -> bool {
        self.bytes[hello::FLAGS] & REJ != 0
    }
    pub fn max_version(&self) -> u8 {
        self.bytes[hello::VERSIONS] >> 4
    }
    /// MinVer of a Hello, CurVer of a HelloReply.
    pub fn min_version(&self) -> u8 {
        self.bytes[hello::VERSIONS] & 0x0f
    }
    /// iSER-IRD of a Hello, iSER-ORD of a HelloReply.
    pub fn ird_ord(&self) -> u16 {
        get!(u16_at, self.bytes, hello::IRD_ORD)
    }
}

/// Wireshark's name of an iSER opcode.
pub fn opcode_name(op: u8) -> &'static str {
    match op {
        opcode::ISCSI_CONTROL => "iSCSI Control-Type PDU",
        opcode::HELLO => "Hello Message",
        opcode::HELLO_REPLY => "HelloReply Message",
        _ => "Reserved",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_header_with_both_stags() {
        // RFC 7145 9.2: opcode 0x1, WSV and RSV, write STag 0x1234 at 0x1000, read STag
        // 0x5678 at 0x2000.
        let mut b = [0u8; HEADER_LEN];
        b[0] = 0x1c;
        b[4..8].copy_from_slice(&0x1234u32.to_be_bytes());
        b[8..16].copy_from_slice(&0x1000u64.to_be_bytes());
        b[16..20].copy_from_slice(&0x5678u32.to_be_bytes());
        b[20..28].copy_from_slice(&0x2000u64.to_be_bytes());
        let h = IserHeader::new_checked(&b, 0).unwrap();
        assert_eq!(h.opcode(), opcode::ISCSI_CONTROL);
        assert!(h.wsv() && h.rsv() && h.is_valid_control());
        assert_eq!((h.write_stag(), h.write_va()), (0x1234, 0x1000));
        assert_eq!((h.read_stag(), h.read_va()), (0x5678, 0x2000));
        assert!(IserHeader::new_checked(&b[..27], 40).is_err());
    }

    #[test]
    fn hello_versions_and_ird() {
        // RFC 7145 9.3: Hello, versions 0xa and 0xa, IRD 16.
        let b = [0x20, 0xaa, 0x00, 0x10, 0, 0, 0, 0];
        let h = Hello::new_checked(&b, 0).unwrap();
        assert_eq!(opcode_name(h.opcode()), "Hello Message");
        assert_eq!(
            (h.max_version(), h.min_version(), h.ird_ord()),
            (10, 10, 16)
        );
        assert!(Hello::new_checked(&b[..7], 0).is_err());
    }
}
