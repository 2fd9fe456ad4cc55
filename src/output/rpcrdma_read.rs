//! The RPC-over-RDMA part of `read`: the `rpcrdma` layer of `--json` (which `-V` draws), and
//! the summary at the end of a text line: `NFS READ xid 0x1a2b`, `NFS READ reply xid 0x1a2b
//! NFS3_OK call frame 4 latency 250.000 us`.

use std::io::Write;

use super::call_link::{self, write_tail};
use super::jsonw::Obj;
use crate::dissect::{RpcFrame, rpc_call_name};
use crate::wire::rpcrdma::header;
use crate::wire::rpcrdma::nfs::{self, COMPOUND, Compound, NFS_PROGRAM};
use crate::wire::rpcrdma::rpc::RpcMessage;

/// The NFSv4 COMPOUND's operations, when the frame is one.
fn compound<'a>(f: &RpcFrame<'a>) -> Option<Compound<'a>> {
    let call = f.rpc_call()?;
    let h = call.header;
    (h.program() == NFS_PROGRAM && h.version() == 4 && h.procedure() == COMPOUND)
        .then(|| Compound::of_args(call.args))
        .flatten()
}

/// What a call is called in a summary: `NFS READ`, `MOUNT`, `RPC prog 100099`.
fn prefix(name: &str) -> &'static str {
    match name {
        "PORTMAP" | "MOUNT" | "NLM" | "STATUS" | "NFSACL" | "RPC" => "",
        _ => "NFS ",
    }
}

/// Appends ` | NFS ...` to a text line.
pub fn write_summary(out: &mut Vec<u8>, f: &RpcFrame<'_>) {
    out.extend_from_slice(b" |");
    let xid = f.xid();
    if let Some(code) = f.msg.error_code() {
        let _ = write!(
            out,
            " RPC-over-RDMA RDMA_ERROR {} xid {xid:#x}",
            header::error_name(code)
        );
        if let Some(link) = &f.call {
            write_tail(out, link);
        }
        return;
    }
    match (f.rpc, &f.call) {
        (Some(RpcMessage::Call(call)), _) => {
            let name = rpc_call_name(&call);
            let _ = write!(out, " {}{name}", prefix(name));
            if name == "RPC" {
                let _ = write!(
                    out,
                    " prog {} v{} proc {}",
                    call.header.program(),
                    call.header.version(),
                    call.header.procedure()
                );
            }
            let _ = write!(out, " xid {xid:#x}");
            if let Some(c) = compound(f) {
                out.extend_from_slice(b" (");
                for (i, op) in c.ops().enumerate() {
                    if i > 0 {
                        out.push(b' ');
                    }
                    out.extend_from_slice(nfs::v4_op_name(op).as_bytes());
                }
                out.push(b')');
            }
        }
        (_, Some(link)) => {
            let _ = write!(
                out,
                " {}{} reply xid {xid:#x}",
                prefix(link.name),
                link.name
            );
            if let Some(status) = f.status() {
                let _ = write!(out, " {status}");
            }
            write_tail(out, link);
        }
        (Some(RpcMessage::Reply(_)), None) => {
            let _ = write!(out, " RPC reply xid {xid:#x}");
            if let Some(status) = f.status() {
                let _ = write!(out, " {status}");
            }
        }
        (None, None) => {
            let _ = write!(
                out,
                " RPC-over-RDMA {} xid {xid:#x}",
                header::proc_name(f.msg.header().proc())
            );
        }
    }
    let (reads, writes, reply) = (f.msg.read_count(), f.msg.write_count(), f.msg.reply_count());
    if reads + writes + reply > 0 {
        let _ = write!(out, " chunks read {reads} write {writes} reply {reply}");
    }
}

/// The `rpcrdma` object of `read --json`.
pub fn write_json(o: &mut Obj<'_>, f: &RpcFrame<'_>) {
    let mut r = o.obj("rpcrdma");
    let h = f.msg.header();
    r.u64("session", f.session.index)
        .name("recognised_by", f.session.recognised_by.name())
        .u64("xid", h.xid())
        .u64("version", h.version())
        .u64("credits", h.credits())
        .u64("msg_type", h.proc())
        .name("msg_type_name", header::proc_name(h.proc()));
    if f.msg.has_lists() {
        r.u64("reads_count", f.msg.read_count())
            .u64("writes_count", f.msg.write_count())
            .u64("reply_count", f.msg.reply_count());
    }
    if let Some(code) = f.msg.error_code() {
        r.u64("error_code", code)
            .name("error_name", header::error_name(code));
        if let (Some(low), Some(high)) = (f.msg.vers_low(), f.msg.vers_high()) {
            r.u64("vers_low", low).u64("vers_high", high);
        }
    }
    if f.msg.read_count() > 0 {
        let mut reads = r.arr("reads");
        for read in f.msg.read_segments() {
            let s = read.segment();
            reads
                .obj()
                .u64("position", read.position())
                .u64("handle", s.handle())
                .u64("length", s.length())
                .u64("offset", s.offset());
        }
    }
    if f.msg.write_count() > 0 {
        let mut writes = r.arr("writes");
        for (chunk, c) in f.msg.write_chunks().enumerate() {
            for s in c.segments() {
                writes
                    .obj()
                    .u64("chunk", chunk as u64)
                    .u64("handle", s.handle())
                    .u64("length", s.length())
                    .u64("offset", s.offset());
            }
        }
    }
    if let Some(reply) = f.msg.reply_chunk() {
        let mut segments = r.arr("reply_chunk");
        for s in reply.segments() {
            segments
                .obj()
                .u64("handle", s.handle())
                .u64("length", s.length())
                .u64("offset", s.offset());
        }
    }
    match f.rpc {
        Some(RpcMessage::Call(call)) => {
            let c = call.header;
            let mut p = r.obj("rpc");
            p.u64("xid", c.xid())
                .u64("msg_type", 0u64)
                .u64("program", c.program())
                .u64("version", c.version())
                .u64("procedure", c.procedure())
                .name("name", rpc_call_name(&call));
            if let Some(comp) = compound(f) {
                p.u64("minor_version", comp.minor_version)
                    .u64("op_count", comp.op_count);
                let mut ops = p.arr("ops");
                for op in comp.ops() {
                    ops.obj().u64("op", op).name("name", nfs::v4_op_name(op));
                }
            }
        }
        Some(RpcMessage::Reply(reply)) => {
            let mut p = r.obj("rpc");
            p.u64("xid", reply.header.xid())
                .u64("msg_type", 1u64)
                .u64("reply_stat", reply.header.reply_stat());
            if let Some(stat) = reply.accept_stat {
                p.u64("accept_stat", stat);
            }
            if let Some(stat) = reply.reject_stat {
                p.u64("reject_stat", stat);
            }
            if let Some(status) = f.nfs_status() {
                p.u64("nfs_status", status);
            }
        }
        None => {}
    }
    if let Some(status) = f.status() {
        r.name("status", status);
    }
    if let Some(link) = &f.call {
        call_link::write_json(&mut r, link);
    }
}
