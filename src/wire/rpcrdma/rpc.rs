//! The ONC RPC message (RFC 5531, section 9) an RDMA_MSG carries: a call names program,
//! version and procedure; a reply says whether it was accepted and how it went. Only the
//! header is read; the arguments and results are handed on as bytes.

use super::super::{DecodeError, Field, Layer, get, header_view};
use super::{opaque_len, word};

mod field {
    use super::Field;

    pub const XID: Field = 0..4;
    pub const MSG_TYPE: Field = 4..8;
    /// Call: RPC version (2), program, version, procedure; then credential and verifier.
    pub const RPCVERS: Field = 8..12;
    pub const PROG: Field = 12..16;
    pub const VERS: Field = 16..20;
    pub const PROC: Field = 20..24;
    /// Reply: accepted (0) or denied (1).
    pub const REPLY_STAT: Field = 8..12;
}

const CALL_LEN: usize = field::PROC.end;
const REPLY_LEN: usize = field::REPLY_STAT.end;

pub const CALL: u32 = 0;
pub const REPLY: u32 = 1;
pub const RPC_VERSION: u32 = 2;
pub const MSG_ACCEPTED: u32 = 0;
pub const MSG_DENIED: u32 = 1;
pub const SUCCESS: u32 = 0;

header_view!(
    /// A call's fixed words.
    CallHeader, CALL_LEN, Layer::Rpc
);
header_view!(
    /// A reply's fixed words.
    ReplyHeader, REPLY_LEN, Layer::Rpc
);

impl CallHeader<'_> {
    pub fn xid(&self) -> u32 {
        get!(u32_at, self.bytes, field::XID)
    }
    pub fn rpcvers(&self) -> u32 {
        get!(u32_at, self.bytes, field::RPCVERS)
    }
    pub fn program(&self) -> u32 {
        get!(u32_at, self.bytes, field::PROG)
    }
    pub fn version(&self) -> u32 {
        get!(u32_at, self.bytes, field::VERS)
    }
    pub fn procedure(&self) -> u32 {
        get!(u32_at, self.bytes, field::PROC)
    }
}

impl ReplyHeader<'_> {
    pub fn xid(&self) -> u32 {
        get!(u32_at, self.bytes, field::XID)
    }
    pub fn reply_stat(&self) -> u32 {
        get!(u32_at, self.bytes, field::REPLY_STAT)
    }
}

/// An RPC call: the header, the credential's flavor, and the arguments as captured.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub header: CallHeader<'a>,
    pub cred_flavor: u32,
    pub args: &'a [u8],
}

/// An RPC reply: the header; for an accepted reply the accept status and the results, for
/// a denied one the reject status.
#[derive(Debug, Clone, Copy)]
pub struct Reply<'a> {
    pub header: ReplyHeader<'a>,
    pub accept_stat: Option<u32>,
    pub reject_stat: Option<u32>,
    pub results: &'a [u8],
}

impl Reply<'_> {
    /// Accepted and executed: the results say the rest.
    pub fn is_success(&self) -> bool {
        self.accept_stat == Some(SUCCESS)
    }
}

#[derive(Debug, Clone, Copy)]
pub enum RpcMessage<'a> {
    Call(Call<'a>),
    Reply(Reply<'a>),
}

impl<'a> RpcMessage<'a> {
    /// Checks the RPC header of `buf`; `offset` (where it starts in the frame) only labels
    /// an error.
    pub fn new_checked(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError> {
        let msg_type =
            word(buf, 4).ok_or_else(|| DecodeError::short(Layer::Rpc, offset, 8, buf.len()))?;
        match msg_type {
            CALL => {
                let header = CallHeader::new_checked(buf, offset)?;
                if header.rpcvers() != RPC_VERSION {
                    return Err(DecodeError::invalid(
                        Layer::Rpc,
                        offset + field::RPCVERS.start,
                        "RPC version is not 2",
                    ));
                }
                // Credential, then verifier: each a flavor and an opaque body.
                let cred_at = CALL_LEN;
                let verf_at = skip_auth(buf, cred_at, offset)?;
                // `skip_auth` proved the flavor present.
                let cred_flavor = word(buf, cred_at).unwrap_or(0);
                let args_at = skip_auth(buf, verf_at, offset)?;
                Ok(RpcMessage::Call(Call {
                    header,
                    cred_flavor,
                    args: &buf[args_at..],
                }))
            }
            REPLY => {
                let header = ReplyHeader::new_checked(buf, offset)?;
                let (accept_stat, reject_stat, results_at) = match header.reply_stat() {
                    MSG_ACCEPTED => {
                        let stat_at = skip_auth(buf, REPLY_LEN, offset)?;
                        let stat = word(buf, stat_at).ok_or_else(|| {
                            DecodeError::short(Layer::Rpc, offset + stat_at, 4, buf.len() - stat_at)
                        })?;
                        (Some(stat), None, stat_at + 4)
                    }
                    MSG_DENIED => {
                        let stat = word(buf, REPLY_LEN).ok_or_else(|| {
                            DecodeError::short(
                                Layer::Rpc,
                                offset + REPLY_LEN,
                                4,
                                buf.len() - REPLY_LEN,
                            )
                        })?;
                        (None, Some(stat), REPLY_LEN + 4)
                    }
                    _ => {
                        return Err(DecodeError::invalid(
                            Layer::Rpc,
                            offset + field::REPLY_STAT.start,
                            "reply status neither accepted nor denied",
                        ));
                    }
                };
                Ok(RpcMessage::Reply(Reply {
                    header,
                    accept_stat,
                    reject_stat,
                    results: &buf[results_at..],
                }))
            }
            _ => Err(DecodeError::invalid(
                Layer::Rpc,
                offset + field::MSG_TYPE.start,
                "message type neither call nor reply",
            )),
        }
    }

    pub fn xid(&self) -> u32 {
        match self {
            RpcMessage::Call(c) => c.header.xid(),
            RpcMessage::Reply(r) => r.header.xid(),
        }
    }

    pub fn msg_type(&self) -> u32 {
        match self {
            RpcMessage::Call(_) => CALL,
            RpcMessage::Reply(_) => REPLY,
        }
    }
}

/// The end of the opaque_auth (flavor, then a body of at most 400 bytes) at `at`.
fn skip_auth(buf: &[u8], at: usize, offset: usize) -> Result<usize, DecodeError> {
    let len = word(buf, at + 4).ok_or_else(|| {
        DecodeError::short(Layer::Rpc, offset + at, 8, buf.len().saturating_sub(at))
    })?;
    if len > 400 {
        return Err(DecodeError::invalid(
            Layer::Rpc,
            offset + at + 4,
            "authentication body longer than 400 bytes",
        ));
    }
    let end = at + 4 + opaque_len(len).unwrap_or(usize::MAX);
    if end > buf.len() {
        return Err(DecodeError::short(
            Layer::Rpc,
            offset + at + 8,
            end - at - 8,
            buf.len().saturating_sub(at + 8),
        ));
    }
    Ok(end)
}

/// Accept statuses (RFC 5531, section 9).
pub fn accept_stat_name(stat: u32) -> &'static str {
    match stat {
        0 => "SUCCESS",
        1 => "PROG_UNAVAIL",
        2 => "PROG_MISMATCH",
        3 => "PROC_UNAVAIL",
        4 => "GARBAGE_ARGS",
        5 => "SYSTEM_ERR",
        _ => "unknown",
    }
}

/// Reject statuses of a denied reply.
pub fn reject_stat_name(stat: u32) -> &'static str {
    match stat {
        0 => "RPC_MISMATCH",
        1 => "AUTH_ERROR",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn call_with_auth_sys_credential() {
        // RFC 5531 9: XID, CALL, RPC 2, NFS (100003) v3 READ (6); AUTH_SYS (1) credential of
        // 5 bytes (padded to 8), AUTH_NONE verifier; then one argument word.
        let mut b = words(&[0x1a2b, 0, 2, 100003, 3, 6, 1, 5]);
        b.extend([1, 2, 3, 4, 5, 0, 0, 0]);
        b.extend(words(&[0, 0, 0xabcd]));
        let RpcMessage::Call(call) = RpcMessage::new_checked(&b, 0).unwrap() else {
            panic!("not a call")
        };
        assert_eq!(call.header.xid(), 0x1a2b);
        assert_eq!(call.header.program(), 100003);
        assert_eq!(call.header.procedure(), 6);
        assert_eq!(call.cred_flavor, 1);
        assert_eq!(call.args, &words(&[0xabcd])[..]);
    }

    #[test]
    fn replies_accepted_and_denied() {
        let b = words(&[9, 1, 0, 0, 0, 0, 2]);
        let RpcMessage::Reply(r) = RpcMessage::new_checked(&b, 0).unwrap() else {
            panic!()
        };
        assert!(r.is_success());
        assert_eq!(r.results, &words(&[2])[..]);
        let b = words(&[9, 1, 1, 1]);
        let RpcMessage::Reply(r) = RpcMessage::new_checked(&b, 0).unwrap() else {
            panic!()
        };
        assert_eq!(r.reject_stat.map(reject_stat_name), Some("AUTH_ERROR"));
    }

    #[test]
    fn a_credential_past_the_bytes_is_short() {
        let b = words(&[9, 0, 2, 100003, 3, 6, 1, 400]);
        let err = RpcMessage::new_checked(&b, 60).unwrap_err();
        assert_eq!((err.layer, err.offset), (Layer::Rpc, 60 + 32));
    }
}
