//! The BTH opcode table (IBA 9.2, table 38; XRC annex A14; RoCE v2 annex A17 for the CNP):
//! names, the extended headers each opcode carries, and whether it is a request or a response.

/// Extended transport headers, as a bit set, listed in the order they appear on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtSet(u16);

impl ExtSet {
    pub const NONE: ExtSet = ExtSet(0);
    pub const RDETH: ExtSet = ExtSet(1 << 0);
    pub const DETH: ExtSet = ExtSet(1 << 1);
    pub const XRCETH: ExtSet = ExtSet(1 << 2);
    pub const FETH: ExtSet = ExtSet(1 << 3);
    pub const RETH: ExtSet = ExtSet(1 << 4);
    pub const ATOMIC_ETH: ExtSet = ExtSet(1 << 5);
    pub const AETH: ExtSet = ExtSet(1 << 6);
    pub const ATOMIC_ACK_ETH: ExtSet = ExtSet(1 << 7);
    pub const IMMDT: ExtSet = ExtSet(1 << 8);
    pub const IETH: ExtSet = ExtSet(1 << 9);

    pub const fn with(self, other: ExtSet) -> ExtSet {
        ExtSet(self.0 | other.0)
    }

    #[inline]
    pub const fn has(self, other: ExtSet) -> bool {
        self.0 & other.0 != 0
    }
}

/// Which PSN space an opcode belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// SEND, WRITE, READ request, atomics: the requester's PSN space.
    Request,
    /// ACK/NAK, READ responses, atomic ACKs: the responder's PSN space.
    Response,
    /// RoCE v2 congestion notification.
    Cnp,
    /// Reserved or vendor-specific opcodes.
    Unknown,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Request => "request",
            Role::Response => "response",
            Role::Cnp => "cnp",
            Role::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct OpcodeInfo {
    pub name: &'static str,
    pub ext: ExtSet,
    pub role: Role,
    /// False for reserved and vendor-specific codes, whose headers cannot be known.
    pub known: bool,
}

pub const CNP: u8 = 0x81;
pub const RDMA_READ_REQUEST_OP: u8 = 0x0c;
pub const RC_SEND_ONLY: u8 = 0x04;
pub const RC_SEND_ONLY_WITH_IMMEDIATE: u8 = 0x05;
pub const UD_SEND_ONLY: u8 = 0x64;
pub const UD_SEND_ONLY_WITH_IMMEDIATE: u8 = 0x65;

/// Looks up an opcode. Never fails: unknown codes come back with `known == false`.
#[inline]
pub fn info(opcode: u8) -> &'static OpcodeInfo {
    &TABLE[opcode as usize]
}

/// True for RC, UC and XRC: the transports whose requests to a QP form one PSN sequence.
#[inline]
pub fn is_connected(opcode: u8) -> bool {
    matches!(opcode >> 5, 0 | 1 | 5)
}

/// True for the RDMA READ request of any transport (RC, RD, XRC).
#[inline]
pub fn is_read_request(opcode: u8) -> bool {
    opcode & 0x1f == RDMA_READ_REQUEST_OP && info(opcode).known
}

/// READ response FIRST, MIDDLE, LAST and ONLY, of any transport.
#[inline]
pub fn is_read_response(opcode: u8) -> bool {
    matches!(opcode & 0x1f, 0x0d..=0x10) && info(opcode).known
}

/// COMPARE_SWAP and FETCH_ADD, whose response returns 8 bytes.
#[inline]
pub fn is_atomic_request(opcode: u8) -> bool {
    matches!(opcode & 0x1f, 0x13 | 0x14)
}

/// FIRST and MIDDLE packets (of requests and of READ responses) carry exactly one path MTU
/// of payload.
#[inline]
pub fn carries_one_pmtu(opcode: u8) -> bool {
    matches!(opcode & 0x1f, 0x00 | 0x01 | 0x06 | 0x07 | 0x0d | 0x0e)
}

/// FLUSH and ATOMIC WRITE (IBA 1.5 / 1.7 persistent-memory extensions), RC and RD only.
const FLUSH_OP: u8 = 0x1c;
const ATOMIC_WRITE_OP: u8 = 0x1d;

// The operation in the low five bits, as RC numbers it; other transports reuse the numbering.
// 0x18..0x1b are reserved; their entries are never marked valid.
const OPS: [(&str, ExtSet); 30] = [
    ("SEND_FIRST", ExtSet::NONE),
    ("SEND_MIDDLE", ExtSet::NONE),
    ("SEND_LAST", ExtSet::NONE),
    ("SEND_LAST_WITH_IMMEDIATE", ExtSet::IMMDT),
    ("SEND_ONLY", ExtSet::NONE),
    ("SEND_ONLY_WITH_IMMEDIATE", ExtSet::IMMDT),
    ("RDMA_WRITE_FIRST", ExtSet::RETH),
    ("RDMA_WRITE_MIDDLE", ExtSet::NONE),
    ("RDMA_WRITE_LAST", ExtSet::NONE),
    ("RDMA_WRITE_LAST_WITH_IMMEDIATE", ExtSet::IMMDT),
    ("RDMA_WRITE_ONLY", ExtSet::RETH),
    (
        "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        ExtSet::RETH.with(ExtSet::IMMDT),
    ),
    ("RDMA_READ_REQUEST", ExtSet::RETH),
    ("RDMA_READ_RESPONSE_FIRST", ExtSet::AETH),
    ("RDMA_READ_RESPONSE_MIDDLE", ExtSet::NONE),
    ("RDMA_READ_RESPONSE_LAST", ExtSet::AETH),
    ("RDMA_READ_RESPONSE_ONLY", ExtSet::AETH),
    ("ACKNOWLEDGE", ExtSet::AETH),
    (
        "ATOMIC_ACKNOWLEDGE",
        ExtSet::AETH.with(ExtSet::ATOMIC_ACK_ETH),
    ),
    ("COMPARE_SWAP", ExtSet::ATOMIC_ETH),
    ("FETCH_ADD", ExtSet::ATOMIC_ETH),
    ("RESYNC", ExtSet::NONE),
    ("SEND_LAST_WITH_INVALIDATE", ExtSet::IETH),
    ("SEND_ONLY_WITH_INVALIDATE", ExtSet::IETH),
    ("RESERVED", ExtSet::NONE),
    ("RESERVED", ExtSet::NONE),
    ("RESERVED", ExtSet::NONE),
    ("RESERVED", ExtSet::NONE),
    // FETH precedes RETH on the wire (as Linux rxe lays it out).
    ("FLUSH", ExtSet::FETH.with(ExtSet::RETH)),
    // The 8 bytes written atomically are the payload.
    ("ATOMIC_WRITE", ExtSet::RETH),
];

const fn is_persistence_op(op: u8) -> bool {
    op == FLUSH_OP || op == ATOMIC_WRITE_OP
}

const fn op_is_response(op: u8) -> bool {
    op >= 0x0d && op <= 0x12
}

const UNKNOWN: OpcodeInfo = OpcodeInfo {
    name: "RESERVED",
    ext: ExtSet::NONE,
    role: Role::Unknown,
    known: false,
};

const fn build(code: u8) -> OpcodeInfo {
    let op = code & 0x1f;
    let (prefix_names, valid, extra, extra_on_responses): (&[&str], bool, ExtSet, ExtSet) =
        match code >> 5 {
            // RC: everything but RESYNC.
            0 => (
                &RC_NAMES,
                (op <= 0x17 && op != 0x15) || is_persistence_op(op),
                ExtSet::NONE,
                ExtSet::NONE,
            ),
            // UC: sends and writes only.
            1 => (&UC_NAMES, op <= 0x0b, ExtSet::NONE, ExtSet::NONE),
            // RD: RDETH on every packet, DETH on requests, RESYNC allowed.
            2 => (
                &RD_NAMES,
                op <= 0x15 || is_persistence_op(op),
                ExtSet::RDETH.with(ExtSet::DETH),
                ExtSet::RDETH,
            ),
            // UD: SEND Only with or without immediate.
            3 => (
                &UD_NAMES,
                op == 0x04 || op == 0x05,
                ExtSet::DETH,
                ExtSet::NONE,
            ),
            // XRC: XRCETH on requests.
            5 => (
                &XRC_NAMES,
                op <= 0x17 && op != 0x15,
                ExtSet::XRCETH,
                ExtSet::NONE,
            ),
            _ => (&RC_NAMES, false, ExtSet::NONE, ExtSet::NONE),
        };
    if code == CNP {
        return OpcodeInfo {
            name: "CNP",
            ext: ExtSet::NONE,
            role: Role::Cnp,
            known: true,
        };
    }
    if code >= 0xc0 {
        return OpcodeInfo {
            name: "MANUFACTURER_SPECIFIC",
            ..UNKNOWN
        };
    }
    if !valid {
        return UNKNOWN;
    }
    let response = op_is_response(op);
    let added = if response { extra_on_responses } else { extra };
    OpcodeInfo {
        name: prefix_names[op as usize],
        ext: added.with(OPS[op as usize].1),
        role: if response {
            Role::Response
        } else {
            Role::Request
        },
        known: true,
    }
}

// Full names ("RC_SEND_ONLY") are spelled out as constants so that lookup is a table read
// and the name a `&'static str`, with no formatting per packet.
macro_rules! names {
    ($name:ident, $prefix:literal) => {
        const $name: [&str; 30] = [
            concat!($prefix, "SEND_FIRST"),
            concat!($prefix, "SEND_MIDDLE"),
            concat!($prefix, "SEND_LAST"),
            concat!($prefix, "SEND_LAST_WITH_IMMEDIATE"),
            concat!($prefix, "SEND_ONLY"),
            concat!($prefix, "SEND_ONLY_WITH_IMMEDIATE"),
            concat!($prefix, "RDMA_WRITE_FIRST"),
            concat!($prefix, "RDMA_WRITE_MIDDLE"),
            concat!($prefix, "RDMA_WRITE_LAST"),
            concat!($prefix, "RDMA_WRITE_LAST_WITH_IMMEDIATE"),
            concat!($prefix, "RDMA_WRITE_ONLY"),
            concat!($prefix, "RDMA_WRITE_ONLY_WITH_IMMEDIATE"),
            concat!($prefix, "RDMA_READ_REQUEST"),
            concat!($prefix, "RDMA_READ_RESPONSE_FIRST"),
            concat!($prefix, "RDMA_READ_RESPONSE_MIDDLE"),
            concat!($prefix, "RDMA_READ_RESPONSE_LAST"),
            concat!($prefix, "RDMA_READ_RESPONSE_ONLY"),
            concat!($prefix, "ACKNOWLEDGE"),
            concat!($prefix, "ATOMIC_ACKNOWLEDGE"),
            concat!($prefix, "COMPARE_SWAP"),
            concat!($prefix, "FETCH_ADD"),
            concat!($prefix, "RESYNC"),
            concat!($prefix, "SEND_LAST_WITH_INVALIDATE"),
            concat!($prefix, "SEND_ONLY_WITH_INVALIDATE"),
            "RESERVED",
            "RESERVED",
            "RESERVED",
            "RESERVED",
            concat!($prefix, "FLUSH"),
            concat!($prefix, "ATOMIC_WRITE"),
        ];
    };
}
names!(RC_NAMES, "RC_");
names!(UC_NAMES, "UC_");
names!(RD_NAMES, "RD_");
names!(UD_NAMES, "UD_");
names!(XRC_NAMES, "XRC_");

static TABLE: [OpcodeInfo; 256] = {
    let mut table = [UNKNOWN; 256];
    let mut code = 0;
    while code < 256 {
        table[code] = build(code as u8);
        code += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spot_checks_against_the_spec_table() {
        let rc_send_only = info(0x04);
        assert_eq!(rc_send_only.name, "RC_SEND_ONLY");
        assert_eq!(rc_send_only.ext, ExtSet::NONE);
        assert_eq!(rc_send_only.role, Role::Request);

        let atomic_ack = info(0x12);
        assert!(atomic_ack.ext.has(ExtSet::AETH) && atomic_ack.ext.has(ExtSet::ATOMIC_ACK_ETH));
        assert_eq!(atomic_ack.role, Role::Response);

        let rd_send = info(0x44);
        assert!(rd_send.ext.has(ExtSet::RDETH) && rd_send.ext.has(ExtSet::DETH));
        let rd_ack = info(0x51);
        assert!(rd_ack.ext.has(ExtSet::RDETH) && !rd_ack.ext.has(ExtSet::DETH));

        let ud_imm = info(0x65);
        assert_eq!(ud_imm.name, "UD_SEND_ONLY_WITH_IMMEDIATE");
        assert!(ud_imm.ext.has(ExtSet::DETH) && ud_imm.ext.has(ExtSet::IMMDT));
        assert!(!info(0x60).known, "UD has no SEND First");

        let xrc_write = info(0xaa);
        assert_eq!(xrc_write.name, "XRC_RDMA_WRITE_ONLY");
        assert!(xrc_write.ext.has(ExtSet::XRCETH) && xrc_write.ext.has(ExtSet::RETH));
        assert!(
            !info(0xb1).ext.has(ExtSet::XRCETH),
            "XRC ACK carries no XRCETH"
        );

        assert_eq!(info(0x81).name, "CNP");
        assert_eq!(info(0x81).role, Role::Cnp);
        assert!(!info(0x80).known);
        assert!(!info(0x2c).known, "UC has no READ");
        assert!(!info(0x15).known, "RC has no RESYNC");
        assert!(is_read_request(0x0c) && is_read_request(0x4c) && is_read_request(0xac));
        assert!(!is_read_request(0x2c));
    }

    #[test]
    fn flush_and_atomic_write_sit_at_0x1c_and_0x1d() {
        let flush = info(0x1c);
        assert_eq!(flush.name, "RC_FLUSH");
        assert_eq!(flush.ext, ExtSet::FETH.with(ExtSet::RETH));
        assert_eq!(flush.role, Role::Request);
        let atomic_write = info(0x1d);
        assert_eq!(atomic_write.name, "RC_ATOMIC_WRITE");
        assert_eq!(atomic_write.ext, ExtSet::RETH);
        for reserved in 0x18..=0x1b {
            assert!(!info(reserved).known, "{reserved:#x} is reserved");
        }
        assert_eq!(info(0x5c).name, "RD_FLUSH");
        assert!(info(0x5c).ext.has(ExtSet::RDETH) && info(0x5c).ext.has(ExtSet::DETH));
        assert!(!info(0x3c).known, "UC has no FLUSH");
        assert!(!info(0xbc).known, "XRC has no FLUSH");
    }
}
