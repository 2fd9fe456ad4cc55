//! RPC-over-RDMA (RFC 8166) and the RPC call or reply inside it, with NFS's names; under
//! Wireshark's `rpcordma.*`, `rpc.*` and `nfs.*` names where the value is the same.

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, int};
use crate::dissect::{CallBody, CallLink, Packet, RpcFrame, Ulp};
use crate::wire::rpcrdma::chunks::{ReadSegment, Segment};
use crate::wire::rpcrdma::nfs::{COMPOUND, Compound, NFS_PROGRAM, v4_op_name};
use crate::wire::rpcrdma::rpc::{Call, Reply, RpcMessage};

/// Segments or operations a list field gives at most: twice the PFC classes, since a READ
/// of a large file scatters into several segments.
const MAX_LIST: usize = 2 * MAX_ELEMENTS;

fn rpcrdma<'p, 'a>(p: &'p Packet<'a>) -> Option<&'p RpcFrame<'a>> {
    match &p.ulp {
        Some(Ulp::Rpc(f)) => Some(f),
        _ => None,
    }
}

fn call<'a>(p: &Packet<'a>) -> Option<Call<'a>> {
    rpcrdma(p).and_then(|f| f.rpc_call())
}

fn reply<'a>(p: &Packet<'a>) -> Option<Reply<'a>> {
    rpcrdma(p).and_then(|f| match f.rpc {
        Some(RpcMessage::Reply(r)) => Some(r),
        _ => None,
    })
}

/// A message with chunk lists: what their counts are given for.
fn listed<'p, 'a>(p: &'p Packet<'a>) -> Option<&'p RpcFrame<'a>> {
    rpcrdma(p).filter(|f| f.msg.has_lists())
}

fn link(p: &Packet<'_>) -> Option<CallLink> {
    rpcrdma(p).and_then(|f| f.call)
}

fn read<'a>(p: &Packet<'a>, i: usize) -> Option<ReadSegment<'a>> {
    rpcrdma(p).and_then(|f| f.msg.read_segments().nth(i))
}

/// Write list segment `i` across the chunks, with its chunk's index.
fn write<'a>(p: &Packet<'a>, i: usize) -> Option<(usize, Segment<'a>)> {
    rpcrdma(p).and_then(|f| {
        f.msg
            .write_chunks()
            .enumerate()
            .flat_map(|(n, c)| c.segments().map(move |s| (n, s)))
            .nth(i)
    })
}

fn reply_segment<'a>(p: &Packet<'a>, i: usize) -> Option<Segment<'a>> {
    rpcrdma(p).and_then(|f| f.msg.reply_chunk()?.segments().nth(i))
}

fn compound<'a>(p: &Packet<'a>) -> Option<Compound<'a>> {
    let c = call(p)?;
    let h = c.header;
    (h.program() == NFS_PROGRAM && h.version() == 4 && h.procedure() == COMPOUND)
        .then(|| Compound::of_args(c.args))
        .flatten()
}

fn op(p: &Packet<'_>, i: usize) -> Option<u32> {
    compound(p).and_then(|c| c.ops().nth(i))
}

/// The call's program, version and procedure, on the call and on its reply, as Wireshark
/// shows them on both.
fn body(p: &Packet<'_>) -> Option<(u32, u32, u32)> {
    if let Some(c) = call(p) {
        let h = c.header;
        return Some((h.program(), h.version(), h.procedure()));
    }
    match link(p)?.body {
        CallBody::Rpc {
            program,
            version,
            procedure,
        } => Some((program, version, procedure)),
        _ => None,
    }
}

pub(super) const RPCRDMA: &[Field] = &[
    int!(
        "rpcrdma.session",
        "RPC-over-RDMA connection, numbered as the capture makes them known",
        |p| rpcrdma(p).map(|f| f.session.index)
    ),
    string!(
        "rpcrdma.recognised_by",
        "how the connection was recognised as RPC-over-RDMA: cm, traffic or option",
        |p| rpcrdma(p).map(|f| f.session.recognised_by.name())
    ),
    int!("rpcrdma.xid", "RPC-over-RDMA XID", |p| rpcrdma(p)
        .map(|f| f.xid()))
    .wireshark("rpcordma.xid"),
    int!(
        "rpcrdma.version",
        "RPC-over-RDMA version, 1 in RFC 8166",
        |p| rpcrdma(p).map(|f| f.msg.header().version())
    )
    .wireshark("rpcordma.version"),
    int!(
        "rpcrdma.credits",
        "RPC-over-RDMA credits requested or granted",
        |p| rpcrdma(p).map(|f| f.msg.header().credits())
    )
    .wireshark("rpcordma.flow_control"),
    int!(
        "rpcrdma.msg_type",
        "RPC-over-RDMA message type (0 RDMA_MSG, 1 RDMA_NOMSG, 4 RDMA_ERROR)",
        |p| rpcrdma(p).map(|f| f.msg.header().proc())
    )
    .wireshark("rpcordma.msg_type"),
    string!(
        "rpcrdma.msg_type_name",
        "RPC-over-RDMA message type name",
        |p| rpcrdma(p).map(|f| crate::wire::rpcrdma::header::proc_name(f.msg.header().proc()))
    ),
    int!("rpcrdma.reads_count", "read list entries", |p| listed(p)
        .map(|f| f.msg.read_count()))
    .wireshark("rpcordma.reads_count"),
    int!("rpcrdma.writes_count", "write list chunks", |p| listed(p)
        .map(|f| f.msg.write_count()))
    .wireshark("rpcordma.writes_count"),
    int!(
        "rpcrdma.reply_count",
        "reply chunk segments (0: no reply chunk)",
        |p| listed(p).map(|f| f.msg.reply_count())
    ),
    int!("rpcrdma.error_code", "RDMA_ERROR code", |p| rpcrdma(p)
        .and_then(|f| f.msg.error_code()))
    .wireshark("rpcordma.errcode"),
    string!(
        "rpcrdma.error_name",
        "RDMA_ERROR code name (ERR_VERS, ERR_CHUNK)",
        |p| rpcrdma(p)
            .and_then(|f| f.msg.error_code())
            .map(crate::wire::rpcrdma::header::error_name)
    ),
    int!(
        "rpcrdma.vers_low",
        "RDMA_ERROR ERR_VERS: lowest version supported",
        |p| rpcrdma(p).and_then(|f| f.msg.vers_low())
    )
    .wireshark("rpcordma.vers_low"),
    int!(
        "rpcrdma.vers_high",
        "RDMA_ERROR ERR_VERS: highest version supported",
        |p| rpcrdma(p).and_then(|f| f.msg.vers_high())
    )
    .wireshark("rpcordma.vers_high"),
    each!(
        "rpcrdma.reads.position",
        Type::Int,
        "read segment's position in the XDR stream (0: the whole RPC message)",
        |p, i| read(p, i).map(|r| r.position()),
        int,
        MAX_LIST
    )
    .wireshark("rpcordma.position"),
    each!(
        "rpcrdma.reads.handle",
        Type::Int,
        "read segment's handle: the R_Key the responder's RDMA READ carries",
        |p, i| read(p, i).map(|r| r.segment().handle()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.reads.length",
        Type::Int,
        "read segment's length",
        |p, i| read(p, i).map(|r| r.segment().length()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.reads.offset",
        Type::Int,
        "read segment's address",
        |p, i| read(p, i).map(|r| r.segment().offset()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.writes.chunk",
        Type::Int,
        "write segment's chunk, counted from 0 in the write list",
        |p, i| write(p, i).map(|(n, _)| n as u64),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.writes.handle",
        Type::Int,
        "write segment's handle: the R_Key the responder's RDMA WRITE carries",
        |p, i| write(p, i).map(|(_, s)| s.handle()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.writes.length",
        Type::Int,
        "write segment's length",
        |p, i| write(p, i).map(|(_, s)| s.length()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.writes.offset",
        Type::Int,
        "write segment's address",
        |p, i| write(p, i).map(|(_, s)| s.offset()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.reply_chunk.handle",
        Type::Int,
        "reply chunk segment's handle",
        |p, i| reply_segment(p, i).map(|s| s.handle()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.reply_chunk.length",
        Type::Int,
        "reply chunk segment's length",
        |p, i| reply_segment(p, i).map(|s| s.length()),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.reply_chunk.offset",
        Type::Int,
        "reply chunk segment's address",
        |p, i| reply_segment(p, i).map(|s| s.offset()),
        int,
        MAX_LIST
    ),
    int!("rpcrdma.rpc.xid", "RPC XID", |p| rpcrdma(p)
        .and_then(|f| f.rpc)
        .map(|r| r.xid()))
    .wireshark("rpc.xid"),
    int!(
        "rpcrdma.rpc.msg_type",
        "RPC message type (0 call, 1 reply)",
        |p| { rpcrdma(p).and_then(|f| f.rpc).map(|r| r.msg_type()) }
    )
    .wireshark("rpc.msgtyp"),
    int!(
        "rpcrdma.rpc.program",
        "RPC call: program (100003 NFS)",
        |p| { call(p).map(|c| c.header.program()) }
    ),
    int!("rpcrdma.rpc.version", "RPC call: program version", |p| {
        call(p).map(|c| c.header.version())
    }),
    int!("rpcrdma.rpc.procedure", "RPC call: procedure", |p| call(p)
        .map(|c| c.header.procedure())),
    string!(
        "rpcrdma.rpc.name",
        "RPC call's name: NFSv3 procedure, NFSv4 COMPOUND's main operation, or program",
        |p| call(p).map(|c| crate::dissect::rpc_call_name(&c))
    ),
    int!(
        "rpcrdma.rpc.minor_version",
        "NFSv4 COMPOUND minor version",
        |p| compound(p).map(|c| c.minor_version)
    )
    .wireshark("nfs.minorversion"),
    int!(
        "rpcrdma.rpc.op_count",
        "NFSv4 COMPOUND operation count",
        |p| compound(p).map(|c| c.op_count)
    )
    .wireshark("nfs.ops.count"),
    each!(
        "rpcrdma.rpc.ops.op",
        Type::Int,
        "NFSv4 COMPOUND operation, as far as the arguments are walked",
        |p, i| op(p, i),
        int,
        MAX_LIST
    ),
    each!(
        "rpcrdma.rpc.ops.name",
        Type::Str,
        "NFSv4 COMPOUND operation name",
        |p, i| op(p, i).map(v4_op_name),
        Value::Str,
        MAX_LIST
    ),
    int!(
        "rpcrdma.rpc.reply_stat",
        "RPC reply: 0 accepted, 1 denied",
        |p| { reply(p).map(|r| r.header.reply_stat()) }
    )
    .wireshark("rpc.replystat"),
    int!(
        "rpcrdma.rpc.accept_stat",
        "RPC accepted reply status (0 SUCCESS)",
        |p| reply(p).and_then(|r| r.accept_stat)
    )
    .wireshark("rpc.state_accept"),
    int!("rpcrdma.rpc.reject_stat", "RPC denied reply status", |p| {
        reply(p).and_then(|r| r.reject_stat)
    })
    .wireshark("rpc.state_reject"),
    int!(
        "rpcrdma.rpc.nfs_status",
        "NFS status an NFSv3 or NFSv4 reply begins with",
        |p| rpcrdma(p).and_then(|f| f.nfs_status())
    ),
    string!(
        "rpcrdma.status",
        "how the call went: NFS status, RPC status, or RDMA_ERROR code",
        |p| rpcrdma(p).and_then(|f| f.status())
    ),
];

/// Values Wireshark shows on calls and replies alike, or splits by NFS version.
pub(super) const WIRESHARK: &[Field] = &[
    int!(
        "rpc.program",
        "RPC program, of a call or of the call a reply answers",
        |p| body(p).map(|b| b.0)
    )
    .wireshark_only(),
    int!(
        "rpc.programversion",
        "RPC program version, of a call or of the call a reply answers",
        |p| body(p).map(|b| b.1)
    )
    .wireshark_only(),
    int!(
        "rpc.procedure",
        "RPC procedure, of a call or of the call a reply answers",
        |p| body(p).map(|b| b.2)
    )
    .wireshark_only(),
    int!("nfs.procedure_v3", "NFSv3 procedure", |p| body(p)
        .filter(|b| b.0 == NFS_PROGRAM && b.1 == 3)
        .map(|b| b.2))
    .wireshark_only(),
    int!("nfs.status", "NFSv3 reply status", |p| rpcrdma(p)
        .filter(|f| matches!(
            f.call.map(|c| c.body),
            Some(CallBody::Rpc { version: 3, .. })
        ))
        .and_then(|f| f.nfs_status()))
    .wireshark_only(),
    Field {
        each: Some(Each {
            get: |p, i| op(p, i).map(int),
            max: MAX_LIST,
        }),
        ..int!("nfs.opcode", "NFSv4 COMPOUND operation of a call", |p| op(
            p, 0
        ))
        .wireshark_only()
    },
];

pub(super) const CALL: [Field; 3] = call_link_fields!("rpcrdma", link, "rpc.reqframe", "rpc.time");

pub(super) const PRESENT: &[Field] = &[
    header!("rpcrdma", "is RPC-over-RDMA", |p| rpcrdma(p).is_some()),
    protocol!(
        "rpcordma",
        "RPC-over-RDMA: its header and chunk lists",
        |p| rpcrdma(p).is_some()
    ),
    protocol!("rpc", "ONC RPC, as RPC-over-RDMA carries it", |p| {
        rpcrdma(p).is_some_and(|f| f.rpc.is_some())
    }),
    protocol!("nfs", "NFS, as RPC-over-RDMA carries it", |p| body(p)
        .is_some_and(|b| b.0 == NFS_PROGRAM)),
];

/// How many occurrences the list field `name` has in a frame, for the export's list
/// columns: one per read, write or reply segment, or per COMPOUND operation.
pub fn list_len(name: &str) -> Option<fn(&Packet<'_>) -> usize> {
    let (list, _) = name.strip_prefix("rpcrdma.")?.rsplit_once('.')?;
    match list {
        "reads" => Some(|p| rpcrdma(p).map_or(0, |f| f.msg.read_count() as usize)),
        "writes" => Some(|p| {
            rpcrdma(p).map_or(0, |f| {
                f.msg.write_chunks().map(|c| c.count() as usize).sum()
            })
        }),
        "reply_chunk" => Some(|p| rpcrdma(p).map_or(0, |f| f.msg.reply_count() as usize)),
        "rpc.ops" => Some(|p| compound(p).map_or(0, |c| c.ops().count())),
        _ => None,
    }
}
