//! RPC-over-RDMA in its session: the transport header, the RPC call or reply inside, and
//! the NFS names; a reply is paired with its call by XID.

use super::session::{CallBody, CallLink, Exchange, Parsed, SessionMessage, SessionRef};
use crate::wire::rpcrdma::chunks::RpcRdma;
use crate::wire::rpcrdma::header::{self, HEADER_LEN, VERSION_1, proc};
use crate::wire::rpcrdma::nfs::{self, COMPOUND, Compound, NFS_PROGRAM};
use crate::wire::rpcrdma::rpc::{self, Call, RpcMessage};

/// One RPC-over-RDMA frame.
#[derive(Debug, Clone, Copy)]
pub struct RpcFrame<'a> {
    pub session: SessionRef,
    pub msg: RpcRdma<'a>,
    /// The RPC message an RDMA_MSG carries, when its header decodes.
    pub rpc: Option<RpcMessage<'a>>,
    /// For a reply (or an RDMA_ERROR), the call it answers, when that was captured.
    pub call: Option<CallLink>,
}

impl<'a> RpcFrame<'a> {
    pub fn xid(&self) -> u32 {
        self.msg.header().xid()
    }

    /// An RDMA_MSG whose RPC message repeats the header's XID: what traffic may learn a
    /// connection from.
    pub(super) fn teaches(&self) -> bool {
        self.msg.header().proc() == proc::RDMA_MSG
            && self.rpc.is_some_and(|r| r.xid() == self.xid())
    }

    /// The RPC call inside, if this frame is one.
    pub fn rpc_call(&self) -> Option<Call<'a>> {
        match self.rpc {
            Some(RpcMessage::Call(c)) => Some(c),
            _ => None,
        }
    }

    /// Whether this frame answers a call (reply, RDMA_ERROR, or a long reply in the reply
    /// chunk).
    pub fn is_reply(&self) -> bool {
        matches!(exchange(self), Exchange::Reply(_))
    }

    /// How the call went, as far as this frame says: the RDMA_ERROR code, the RPC reject or
    /// accept status, or the NFS status the results begin with.
    pub fn status(&self) -> Option<&'static str> {
        if let Some(code) = self.msg.error_code() {
            return Some(header::error_name(code));
        }
        let Some(RpcMessage::Reply(reply)) = self.rpc else {
            return None;
        };
        if let Some(stat) = reply.reject_stat {
            return Some(rpc::reject_stat_name(stat));
        }
        if !reply.is_success() {
            return reply.accept_stat.map(rpc::accept_stat_name);
        }
        match (self.nfs_status(), self.call.map(|c| c.body)) {
            (Some(status), Some(CallBody::Rpc { version, .. })) => {
                Some(nfs::status_name(version == 4, status))
            }
            _ => Some(rpc::accept_stat_name(rpc::SUCCESS)),
        }
    }

    /// The NFS status an accepted reply to an NFSv3 or NFSv4 call (not NULL) begins with.
    pub fn nfs_status(&self) -> Option<u32> {
        let Some(RpcMessage::Reply(reply)) = self.rpc else {
            return None;
        };
        match self.call?.body {
            CallBody::Rpc {
                program: NFS_PROGRAM,
                version: 3 | 4,
                procedure,
            } if procedure != 0 && reply.is_success() => {
                crate::wire::rpcrdma::word(reply.results, 0)
            }
            _ => None,
        }
    }
}

impl SessionMessage for RpcFrame<'_> {
    fn session(&self) -> SessionRef {
        self.session
    }
    fn request(&self) -> Option<CallLink> {
        exchange(self).call()
    }
    fn answered(&self) -> Option<&CallLink> {
        self.call.as_ref()
    }
    fn outcome(&self) -> Option<&'static str> {
        self.status()
    }
    fn failed(&self) -> bool {
        self.status().is_some_and(is_error_status)
    }
}

/// Whether a status names a failure.
pub fn is_error_status(status: &str) -> bool {
    !matches!(status, "SUCCESS" | "NFS3_OK" | "NFS4_OK")
}

/// The name a call is counted and shown under: the NFSv3 procedure, the NFSv4 COMPOUND's
/// main operation, or the RPC program.
pub fn call_name(call: &Call<'_>) -> &'static str {
    let h = call.header;
    match (h.program(), h.version(), h.procedure()) {
        (NFS_PROGRAM, 3, p) => nfs::v3_procedure_name(p),
        (NFS_PROGRAM, 4, 0) => "NULL",
        (NFS_PROGRAM, 4, COMPOUND) => Compound::of_args(call.args)
            .and_then(|c| c.main_op())
            .map_or("COMPOUND", nfs::v4_op_name),
        (program, _, _) => program_name(program),
    }
}

/// The RPC programs that share NFS's connections, by name.
pub fn program_name(program: u32) -> &'static str {
    match program {
        100000 => "PORTMAP",
        100003 => "NFS",
        100005 => "MOUNT",
        100021 => "NLM",
        100024 => "STATUS",
        100227 => "NFSACL",
        _ => "RPC",
    }
}

fn exchange(f: &RpcFrame<'_>) -> Exchange {
    let xid = u64::from(f.xid());
    match f.rpc {
        Some(RpcMessage::Call(call)) => {
            let h = call.header;
            let written: u64 = f
                .msg
                .read_segments()
                .filter(|r| r.position() != 0)
                .map(|r| u64::from(r.segment().length()))
                .sum();
            Exchange::Call(CallLink {
                frame: 0,
                latency_ns: None,
                key: xid,
                name: call_name(&call),
                body: CallBody::Rpc {
                    program: h.program(),
                    version: h.version(),
                    procedure: h.procedure(),
                },
                read_len: f.msg.write_chunks().map(|c| c.length()).sum(),
                write_len: written,
            })
        }
        Some(RpcMessage::Reply(_)) => Exchange::Reply(xid),
        None => match f.msg.header().proc() {
            proc::RDMA_ERROR => Exchange::Reply(xid),
            // A long reply went by RDMA WRITE into the reply chunk; a long call is read
            // from the position-0 read chunk, and cannot be named.
            proc::RDMA_NOMSG if f.msg.read_segments().next().is_none() => Exchange::Reply(xid),
            _ => Exchange::Neither,
        },
    }
}

/// Version 1 in the second word and a message type RFC 8166 defines: the test a SEND pays
/// before anything else is looked at.
#[inline]
pub(super) fn could_start(payload: &[u8]) -> bool {
    match payload.get(..HEADER_LEN) {
        Some(h) => h[4..8] == VERSION_1.to_be_bytes() && h[12..15] == [0, 0, 0] && h[15] <= 4,
        None => false,
    }
}

pub(super) fn parse(payload: &[u8]) -> Option<(Exchange, Parsed<'_>)> {
    let msg = RpcRdma::new_checked(payload, 0).ok()?;
    if msg.header().version() != VERSION_1 {
        return None;
    }
    let rpc = msg
        .rpc()
        .and_then(|b| RpcMessage::new_checked(b, msg.rpc_offset()).ok());
    let frame = RpcFrame {
        session: SessionRef::UNPLACED,
        msg,
        rpc,
        call: None,
    };
    Some((exchange(&frame), Parsed::Rpc(frame)))
}
