//! The fixed part of the RPC-over-RDMA version 1 header (RFC 8166, 4.2.4): XID, version,
//! credits and the message type ("proc"), before the chunk lists.

use super::super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// The RPC message's XID, repeated so the receiver can match without the RPC header.
    pub const XID: Field = 0..4;
    pub const VERS: Field = 4..8;
    /// Credits requested (call) or granted (reply).
    pub const CREDITS: Field = 8..12;
    pub const PROC: Field = 12..16;
}

pub const HEADER_LEN: usize = field::PROC.end;

/// The only version RFC 8166 defines.
pub const VERSION_1: u32 = 1;

/// Message types (RFC 8166, 4.2.4): RDMA_MSGP and RDMA_DONE are reserved since RFC 8166
/// and never sent by a version 1 implementation that follows it.
pub mod proc {
    pub const RDMA_MSG: u32 = 0;
    pub const RDMA_NOMSG: u32 = 1;
    pub const RDMA_MSGP: u32 = 2;
    pub const RDMA_DONE: u32 = 3;
    pub const RDMA_ERROR: u32 = 4;
}

header_view!(
    /// The 16 bytes every RPC-over-RDMA message begins with.
    Header, HEADER_LEN, Layer::RpcRdma
);

impl Header<'_> {
    pub fn xid(&self) -> u32 {
        get!(u32_at, self.bytes, field::XID)
    }
    pub fn version(&self) -> u32 {
        get!(u32_at, self.bytes, field::VERS)
    }
    pub fn credits(&self) -> u32 {
        get!(u32_at, self.bytes, field::CREDITS)
    }
    pub fn proc(&self) -> u32 {
        get!(u32_at, self.bytes, field::PROC)
    }
}

/// Wireshark's name of a message type.
pub fn proc_name(proc: u32) -> &'static str {
    match proc {
        proc::RDMA_MSG => "RDMA_MSG",
        proc::RDMA_NOMSG => "RDMA_NOMSG",
        proc::RDMA_MSGP => "RDMA_MSGP",
        proc::RDMA_DONE => "RDMA_DONE",
        proc::RDMA_ERROR => "RDMA_ERROR",
        _ => "unknown",
    }
}

/// RDMA_ERROR codes (RFC 8166, 4.2.4): the version is not supported, or a chunk was bad.
pub fn error_name(code: u32) -> &'static str {
    match code {
        1 => "ERR_VERS",
        2 => "ERR_CHUNK",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_header() {
        // RFC 8166 4.2.4: XID 0x1a2b3c4d, version 1, 32 credits, RDMA_NOMSG.
        let b = [0x1a, 0x2b, 0x3c, 0x4d, 0, 0, 0, 1, 0, 0, 0, 32, 0, 0, 0, 1];
        let h = Header::new_checked(&b, 0).unwrap();
        assert_eq!(h.xid(), 0x1a2b_3c4d);
        assert_eq!(h.version(), VERSION_1);
        assert_eq!(h.credits(), 32);
        assert_eq!(proc_name(h.proc()), "RDMA_NOMSG");
        assert!(Header::new_checked(&b[..15], 40).is_err());
    }
}
