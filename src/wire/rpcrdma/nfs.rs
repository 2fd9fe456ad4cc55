//! NFS as it rides on RPC: the program number, the NFSv3 procedure names (RFC 1813), the
//! NFSv4 COMPOUND's operations (RFC 7530, RFC 8881), and the status a reply begins with.

use super::{opaque_len, word};

pub const NFS_PROGRAM: u32 = 100003;
pub const COMPOUND: u32 = 1;

/// NFSv3 procedures (RFC 1813, section 3).
pub fn v3_procedure_name(proc: u32) -> &'static str {
    match proc {
        0 => "NULL",
        1 => "GETATTR",
        2 => "SETATTR",
        3 => "LOOKUP",
        4 => "ACCESS",
        5 => "READLINK",
        6 => "READ",
        7 => "WRITE",
        8 => "CREATE",
        9 => "MKDIR",
        10 => "SYMLINK",
        11 => "MKNOD",
        12 => "REMOVE",
        13 => "RMDIR",
        14 => "RENAME",
        15 => "LINK",
        16 => "READDIR",
        17 => "READDIRPLUS",
        18 => "FSSTAT",
        19 => "FSINFO",
        20 => "PATHCONF",
        21 => "COMMIT",
        _ => "unknown",
    }
}

/// NFSv3 READ and WRITE, whose data RPC-over-RDMA moves in chunks.
pub mod v3 {
    pub const READ: u32 = 6;
    pub const WRITE: u32 = 7;
}

/// NFSv4 operations (RFC 8881, section 18; RFC 7862, RFC 8276).
pub mod op {
    pub const READ: u32 = 25;
    pub const WRITE: u32 = 38;
    pub const SEQUENCE: u32 = 53;
    pub const PUTFH: u32 = 22;
    pub const PUTPUBFH: u32 = 23;
    pub const PUTROOTFH: u32 = 24;
}

pub fn v4_op_name(op: u32) -> &'static str {
    match op {
        3 => "ACCESS",
        4 => "CLOSE",
        5 => "COMMIT",
        6 => "CREATE",
        7 => "DELEGPURGE",
        8 => "DELEGRETURN",
        9 => "GETATTR",
        10 => "GETFH",
        11 => "LINK",
        12 => "LOCK",
        13 => "LOCKT",
        14 => "LOCKU",
        15 => "LOOKUP",
        16 => "LOOKUPP",
        17 => "NVERIFY",
        18 => "OPEN",
        19 => "OPENATTR",
        20 => "OPEN_CONFIRM",
        21 => "OPEN_DOWNGRADE",
        22 => "PUTFH",
        23 => "PUTPUBFH",
        24 => "PUTROOTFH",
        25 => "READ",
        26 => "READDIR",
        27 => "READLINK",
        28 => "REMOVE",
        29 => "RENAME",
        30 => "RENEW",
        31 => "RESTOREFH",
        32 => "SAVEFH",
        33 => "SECINFO",
        34 => "SETATTR",
        35 => "SETCLIENTID",
        36 => "SETCLIENTID_CONFIRM",
        37 => "VERIFY",
        38 => "WRITE",
        39 => "RELEASE_LOCKOWNER",
        40 => "BACKCHANNEL_CTL",
        41 => "BIND_CONN_TO_SESSION",
        42 => "EXCHANGE_ID",
        43 => "CREATE_SESSION",
        44 => "DESTROY_SESSION",
        45 => "FREE_STATEID",
        46 => "GET_DIR_DELEGATION",
        47 => "GETDEVICEINFO",
        48 => "GETDEVICELIST",
        49 => "LAYOUTCOMMIT",
        50 => "LAYOUTGET",
        51 => "LAYOUTRETURN",
        52 => "SECINFO_NO_NAME",
        53 => "SEQUENCE",
        54 => "SET_SSV",
        55 => "TEST_STATEID",
        56 => "WANT_DELEGATION",
        57 => "DESTROY_CLIENTID",
        58 => "RECLAIM_COMPLETE",
        59 => "ALLOCATE",
        60 => "COPY",
        61 => "COPY_NOTIFY",
        62 => "DEALLOCATE",
        63 => "IO_ADVISE",
        64 => "LAYOUTERROR",
        65 => "LAYOUTSTATS",
        66 => "OFFLOAD_CANCEL",
        67 => "OFFLOAD_STATUS",
        68 => "READ_PLUS",
        69 => "SEEK",
        70 => "WRITE_SAME",
        71 => "CLONE",
        72 => "GETXATTR",
        73 => "SETXATTR",
        74 => "LISTXATTRS",
        75 => "REMOVEXATTR",
        10044 => "ILLEGAL",
        _ => "unknown",
    }
}

/// The size of an operation's arguments when it is fixed or self-describing, so that the
/// operations after it can be found; `None` for those whose arguments are not walked
/// (OPEN, WRITE whose data a read chunk may have taken out of the stream...): the walk
/// names that operation and stops.
fn v4_args_len(op: u32, args: &[u8]) -> Option<usize> {
    let bitmap = |at: usize| {
        let n = word(args, at)? as usize;
        n.checked_mul(4)?.checked_add(4)
    };
    match op {
        // GETFH, PUTPUBFH, PUTROOTFH, READLINK, RESTOREFH, SAVEFH, LOOKUPP: no arguments.
        10 | 16 | 23 | 24 | 27 | 31 | 32 => Some(0),
        // ACCESS, RECLAIM_COMPLETE, SECINFO_NO_NAME: one word.
        3 | 52 | 58 => Some(4),
        // RENEW, DESTROY_CLIENTID: a client ID.
        30 | 57 => Some(8),
        // COMMIT: offset and count.
        5 => Some(12),
        // DESTROY_SESSION: a session ID.
        44 => Some(16),
        // CLOSE: seqid and stateid.
        4 => Some(20),
        // READ: stateid, offset, count.
        25 => Some(28),
        // SEQUENCE: session ID, sequence and slot IDs, highest slot, cache this.
        53 => Some(32),
        // GETATTR: a bitmap.
        9 => bitmap(0),
        // PUTFH, LOOKUP, REMOVE: one opaque (a file handle or a name).
        22 | 15 | 28 => opaque_len(word(args, 0)?),
        // READDIR: cookie, verifier, dircount, maxcount, then a bitmap.
        26 => bitmap(24).map(|n| n + 24),
        _ => None,
    }
}

/// The COMPOUND arguments' head: tag, minor version, operation count; the operations start
/// after it.
#[derive(Debug, Clone, Copy)]
pub struct Compound<'a> {
    pub minor_version: u32,
    pub op_count: u32,
    ops: &'a [u8],
}

impl<'a> Compound<'a> {
    /// The head of COMPOUND arguments, if the bytes hold it.
    pub fn of_args(args: &'a [u8]) -> Option<Self> {
        let after_tag = opaque_len(word(args, 0)?)?;
        Some(Compound {
            minor_version: word(args, after_tag)?,
            op_count: word(args, after_tag + 4)?,
            ops: args.get(after_tag + 8..)?,
        })
    }

    /// The operations, in order, as far as their arguments can be walked: each one is
    /// named, and the walk stops after one whose arguments it cannot skip, or at the count
    /// or the end of the bytes, whichever comes first.
    pub fn ops(&self) -> impl Iterator<Item = u32> + 'a {
        let bytes = self.ops;
        let mut left = self.op_count;
        let mut at = Some(0usize);
        std::iter::from_fn(move || {
            let here = at?;
            if left == 0 {
                return None;
            }
            left -= 1;
            let op = word(bytes, here)?;
            at = bytes
                .get(here + 4..)
                .and_then(|args| v4_args_len(op, args))
                .map(|len| here + 4 + len);
            Some(op)
        })
    }

    /// The operation that says what the COMPOUND does: the first that is not SEQUENCE or
    /// one setting the current file handle, else the last one named.
    pub fn main_op(&self) -> Option<u32> {
        let mut last = None;
        for op in self.ops() {
            if !matches!(op, op::SEQUENCE | op::PUTFH | op::PUTPUBFH | op::PUTROOTFH) {
                return Some(op);
            }
            last = Some(op);
        }
        last
    }
}

/// NFS status codes (RFC 1813 2.6, RFC 8881 15.1) a reply's results begin with. NFSv3 and
/// NFSv4 share the numbers they both have.
pub fn status_name(v4: bool, status: u32) -> &'static str {
    macro_rules! both {
        ($($code:literal => $name:literal),* $(,)?) => {
            match (v4, status) {
                $((false, $code) => concat!("NFS3ERR_", $name),
                  (true, $code) => concat!("NFS4ERR_", $name),)*
                (false, _) => "NFS3ERR_unknown",
                (true, _) => "NFS4ERR_unknown",
            }
        };
    }
    match (v4, status) {
        (false, 0) => "NFS3_OK",
        (true, 0) => "NFS4_OK",
        _ => both! {
            1 => "PERM", 2 => "NOENT", 5 => "IO", 6 => "NXIO", 13 => "ACCES", 17 => "EXIST",
            18 => "XDEV", 19 => "NODEV", 20 => "NOTDIR", 21 => "ISDIR", 22 => "INVAL",
            27 => "FBIG", 28 => "NOSPC", 30 => "ROFS", 31 => "MLINK", 63 => "NAMETOOLONG",
            66 => "NOTEMPTY", 69 => "DQUOT", 70 => "STALE", 71 => "REMOTE",
            10001 => "BADHANDLE", 10002 => "NOT_SYNC", 10003 => "BAD_COOKIE",
            10004 => "NOTSUPP", 10005 => "TOOSMALL", 10006 => "SERVERFAULT",
            10007 => "BADTYPE", 10008 => "DELAY", 10009 => "SAME", 10010 => "DENIED",
            10011 => "EXPIRED", 10012 => "LOCKED", 10013 => "GRACE", 10014 => "FHEXPIRED",
            10015 => "SHARE_DENIED", 10016 => "WRONGSEC", 10017 => "CLID_INUSE",
            10018 => "RESOURCE", 10019 => "MOVED", 10020 => "NOFILEHANDLE",
            10022 => "STALE_CLIENTID", 10023 => "STALE_STATEID", 10025 => "BAD_STATEID",
            10026 => "BAD_SEQID", 10052 => "BADSESSION", 10053 => "BADSLOT",
            10063 => "SEQ_MISORDERED",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn compound_ops_are_walked_as_far_as_their_arguments_are_known() {
        // RFC 8881 16.2: empty tag, minor version 1, 4 operations: SEQUENCE (32 bytes),
        // PUTFH (a 6-byte handle, padded to 8), READ (28 bytes), GETATTR (bitmap of 2).
        let mut b = words(&[0, 1, 4, 53]);
        b.extend([0; 32]);
        b.extend(words(&[22, 6]));
        b.extend([1, 2, 3, 4, 5, 6, 0, 0]);
        b.extend(words(&[25]));
        b.extend([0; 28]);
        b.extend(words(&[9, 2, 0x10, 0x20]));
        let c = Compound::of_args(&b).unwrap();
        assert_eq!(c.minor_version, 1);
        assert_eq!(c.ops().collect::<Vec<_>>(), [53, 22, 25, 9]);
        assert_eq!(c.main_op(), Some(op::READ));
        // OPEN's arguments are not walked: it is named, then the walk stops.
        let b = words(&[0, 0, 3, 22, 0, 18, 1, 2, 3]);
        let c = Compound::of_args(&b).unwrap();
        assert_eq!(c.ops().collect::<Vec<_>>(), [22, 18]);
    }

    #[test]
    fn a_huge_op_count_stops_at_the_bytes() {
        let b = words(&[0, 0, u32::MAX, 10, 10, 10]);
        assert_eq!(Compound::of_args(&b).unwrap().ops().count(), 3);
        assert_eq!(status_name(false, 2), "NFS3ERR_NOENT");
        assert_eq!(status_name(true, 10008), "NFS4ERR_DELAY");
    }
}
