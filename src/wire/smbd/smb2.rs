//! The SMB2 packet header (MS-SMB2 2.2.1) an SMB Direct data transfer message carries: the
//! command, whether it is a request or a response, the message ID that pairs them, the
//! status of a response; and the message's body, up to the next compounded one.

use super::super::{DecodeError, Field, Layer, get, header_view, le};

mod field {
    use super::Field;

    /// 0xFE 'S' 'M' 'B'.
    pub const PROTOCOL_ID: Field = 0..4;
    /// 64.
    pub const STRUCTURE_SIZE: Field = 4..6;
    pub const CREDIT_CHARGE: Field = 6..8;
    /// The NTSTATUS of a response; ChannelSequence and reserved in a request.
    pub const STATUS: Field = 8..12;
    pub const COMMAND: Field = 12..14;
    /// CreditRequest in a request, CreditResponse in a response.
    pub const CREDITS: Field = 14..16;
    pub const FLAGS: Field = 16..20;
    /// From this header to the next compounded message's, 0 for the last.
    pub const NEXT_COMMAND: Field = 20..24;
    pub const MESSAGE_ID: Field = 24..32;
    /// A sync header: ProcessId (reserved) then TreeId; an async one: AsyncId.
    pub const TREE_ID: Field = 36..40;
    pub const ASYNC_ID: Field = 32..40;
    pub const SESSION_ID: Field = 40..48;
    pub const SIGNATURE: Field = 48..64;
}

pub const HEADER_LEN: usize = field::SIGNATURE.end;
pub const PROTOCOL_ID: [u8; 4] = [0xFE, b'S', b'M', b'B'];

/// Header flags (MS-SMB2 2.2.1.2).
pub mod flags {
    /// The message is a response (SMB2_FLAGS_SERVER_TO_REDIR).
    pub const SERVER_TO_REDIR: u32 = 0x0000_0001;
    pub const ASYNC_COMMAND: u32 = 0x0000_0002;
    /// A compounded message related to the one before it.
    pub const RELATED_OPERATIONS: u32 = 0x0000_0004;
    pub const SIGNED: u32 = 0x0000_0008;
    pub const DFS_OPERATIONS: u32 = 0x1000_0000;
    pub const REPLAY_OPERATION: u32 = 0x2000_0000;
}

/// Commands (MS-SMB2 2.2.1.2).
pub mod command {
    pub const NEGOTIATE: u16 = 0x0000;
    pub const SESSION_SETUP: u16 = 0x0001;
    pub const LOGOFF: u16 = 0x0002;
    pub const TREE_CONNECT: u16 = 0x0003;
    pub const TREE_DISCONNECT: u16 = 0x0004;
    pub const CREATE: u16 = 0x0005;
    pub const CLOSE: u16 = 0x0006;
    pub const FLUSH: u16 = 0x0007;
    pub const READ: u16 = 0x0008;
    pub const WRITE: u16 = 0x0009;
    pub const LOCK: u16 = 0x000A;
    pub const IOCTL: u16 = 0x000B;
    pub const CANCEL: u16 = 0x000C;
    pub const ECHO: u16 = 0x000D;
    pub const QUERY_DIRECTORY: u16 = 0x000E;
    pub const CHANGE_NOTIFY: u16 = 0x000F;
    pub const QUERY_INFO: u16 = 0x0010;
    pub const SET_INFO: u16 = 0x0011;
    pub const OPLOCK_BREAK: u16 = 0x0012;
    pub const SERVER_TO_CLIENT_NOTIFICATION: u16 = 0x0013;
}

header_view!(
    /// The 64-byte SMB2 header.
    Smb2Header, HEADER_LEN, Layer::Smb2
);

impl Smb2Header<'_> {
    pub fn protocol_id(&self) -> [u8; 4] {
        get!(array_at, self.bytes, field::PROTOCOL_ID)
    }
    pub fn structure_size(&self) -> u16 {
        le!(u16, self.bytes, field::STRUCTURE_SIZE)
    }
    pub fn credit_charge(&self) -> u16 {
        le!(u16, self.bytes, field::CREDIT_CHARGE)
    }
    /// The NTSTATUS, meaningful in a response.
    pub fn status(&self) -> u32 {
        le!(u32, self.bytes, field::STATUS)
    }
    pub fn command(&self) -> u16 {
        le!(u16, self.bytes, field::COMMAND)
    }
    /// Credits requested (request) or granted (response).
    pub fn credits(&self) -> u16 {
        le!(u16, self.bytes, field::CREDITS)
    }
    pub fn flags(&self) -> u32 {
        le!(u32, self.bytes, field::FLAGS)
    }
    pub fn is_response(&self) -> bool {
        self.flags() & flags::SERVER_TO_REDIR != 0
    }
    pub fn is_async(&self) -> bool {
        self.flags() & flags::ASYNC_COMMAND != 0
    }
    pub fn next_command(&self) -> u32 {
        le!(u32, self.bytes, field::NEXT_COMMAND)
    }
    pub fn message_id(&self) -> u64 {
        le!(u64, self.bytes, field::MESSAGE_ID)
    }
    /// The TreeId of a sync header.
    pub fn tree_id(&self) -> Option<u32> {
        (!self.is_async()).then(|| le!(u32, self.bytes, field::TREE_ID))
    }
    /// The AsyncId of an async header.
    pub fn async_id(&self) -> Option<u64> {
        self.is_async()
            .then(|| le!(u64, self.bytes, field::ASYNC_ID))
    }
    pub fn session_id(&self) -> u64 {
        le!(u64, self.bytes, field::SESSION_ID)
    }
}

/// The first SMB2 message of an SMB Direct message's data: its header, and its body up to
/// the next compounded message (or the end of the bytes present).
#[derive(Debug, Clone, Copy)]
pub struct Smb2<'a> {
    pub header: Smb2Header<'a>,
    /// The whole message from its header on, to find what offsets from the header name.
    pub message: &'a [u8],
    pub body: &'a [u8],
}

impl<'a> Smb2<'a> {
    /// Checks the protocol ID and the header's size; `offset` labels an error.
    pub fn new_checked(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError> {
        let header = Smb2Header::new_checked(buf, offset)?;
        if header.protocol_id() != PROTOCOL_ID {
            return Err(DecodeError::invalid(
                Layer::Smb2,
                offset,
                "protocol ID is not 0xFE 'SMB'",
            ));
        }
        if usize::from(header.structure_size()) != HEADER_LEN {
            return Err(DecodeError::invalid(
                Layer::Smb2,
                offset + field::STRUCTURE_SIZE.start,
                "header StructureSize is not 64",
            ));
        }
        let next = header.next_command() as usize;
        let end = if next >= HEADER_LEN {
            next.min(buf.len())
        } else {
            buf.len()
        };
        Ok(Smb2 {
            header,
            message: &buf[..end],
            body: &buf[HEADER_LEN..end],
        })
    }

    /// Whether another compounded message follows this one.
    pub fn is_compounded(&self) -> bool {
        self.header.next_command() != 0
    }
}

/// The command's name, as MS-SMB2 and Wireshark spell it.
pub fn command_name(cmd: u16) -> &'static str {
    match cmd {
        command::NEGOTIATE => "NEGOTIATE",
        command::SESSION_SETUP => "SESSION_SETUP",
        command::LOGOFF => "LOGOFF",
        command::TREE_CONNECT => "TREE_CONNECT",
        command::TREE_DISCONNECT => "TREE_DISCONNECT",
        command::CREATE => "CREATE",
        command::CLOSE => "CLOSE",
        command::FLUSH => "FLUSH",
        command::READ => "READ",
        command::WRITE => "WRITE",
        command::LOCK => "LOCK",
        command::IOCTL => "IOCTL",
        command::CANCEL => "CANCEL",
        command::ECHO => "ECHO",
        command::QUERY_DIRECTORY => "QUERY_DIRECTORY",
        command::CHANGE_NOTIFY => "CHANGE_NOTIFY",
        command::QUERY_INFO => "QUERY_INFO",
        command::SET_INFO => "SET_INFO",
        command::OPLOCK_BREAK => "OPLOCK_BREAK",
        command::SERVER_TO_CLIENT_NOTIFICATION => "SERVER_TO_CLIENT_NOTIFICATION",
        _ => "UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(cmd: u16, flags: u32, next: u32, mid: u64) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_LEN];
        b[..4].copy_from_slice(&PROTOCOL_ID);
        b[4..6].copy_from_slice(&64u16.to_le_bytes());
        b[12..14].copy_from_slice(&cmd.to_le_bytes());
        b[16..20].copy_from_slice(&flags.to_le_bytes());
        b[20..24].copy_from_slice(&next.to_le_bytes());
        b[24..32].copy_from_slice(&mid.to_le_bytes());
        b[36..40].copy_from_slice(&7u32.to_le_bytes());
        b
    }

    #[test]
    fn header_and_compounded_body() {
        // MS-SMB2 2.2.1.2: a READ request (mid 5, tree 7) compounded with a second message
        // 72 bytes on: the body ends there.
        let mut b = header(command::READ, 0, 72, 5);
        b.extend([1u8; 8]);
        b.extend(header(command::CLOSE, flags::RELATED_OPERATIONS, 0, 6));
        let m = Smb2::new_checked(&b, 24).unwrap();
        assert_eq!(command_name(m.header.command()), "READ");
        assert!(!m.header.is_response() && m.is_compounded());
        assert_eq!((m.header.message_id(), m.header.tree_id()), (5, Some(7)));
        assert_eq!(m.body, &[1u8; 8]);
        let mut bad = b.clone();
        bad[0] = 0xFF;
        assert!(Smb2::new_checked(&bad, 24).is_err());
        assert!(Smb2::new_checked(&b[..63], 24).is_err());
    }
}
