//! The NVMe-oF part of `read`: the `nvme` layer of `--json` (which `-V` draws), and the
//! summary at the end of a text line, worded as tshark's Info column words it:
//! `NVMe Read cid 12 nsid 1 slba 2048 nlb 8`, `NVMeOF Connect`, `NVMeOF CQE for Connect`.

use std::io::Write;

use super::jsonw::Obj;
use crate::dissect::{CommandLink, Nvme, NvmeMsg, Transfer, sgl_type_name};
use crate::wire::nvme::cm_private::reject_status_name;
use crate::wire::nvme::names::{self, fctype};
use crate::wire::nvme::sqe::Sqe;

/// tshark's prefix: Fabrics commands are `NVMeOF`, the others `NVMe`.
fn prefix(fabrics: bool) -> &'static str {
    if fabrics { "NVMeOF" } else { "NVMe" }
}

fn write_name(out: &mut Vec<u8>, name: &str, detail: Option<&str>) {
    out.extend_from_slice(name.as_bytes());
    if let Some(detail) = detail {
        out.push(b' ');
        out.extend_from_slice(detail.as_bytes());
    }
}

/// Appends ` | NVMe...` to a text line.
pub fn write_summary(out: &mut Vec<u8>, nvme: &Nvme<'_>) {
    out.extend_from_slice(b" |");
    match &nvme.msg {
        NvmeMsg::Command { sqe, in_capsule } => {
            let qid = nvme.queue.qid;
            let _ = write!(out, " {} ", prefix(sqe.is_fabrics()));
            write_name(
                out,
                crate::dissect::command_name(sqe, qid),
                crate::dissect::command_detail(sqe, qid),
            );
            let _ = write!(out, " cid {}", sqe.cid());
            if let Some(nsid) = sqe.nsid().filter(|n| *n != 0) {
                let _ = write!(out, " nsid {nsid}");
            }
            if let (Some(slba), Some(nlb)) = (sqe.slba(), sqe.nlb()) {
                // The field is 0-based; tshark and people count blocks from 1.
                let _ = write!(out, " slba {slba} nlb {}", u32::from(nlb) + 1);
            }
            let sgl = sqe.sgl();
            match sgl.key().filter(|_| sgl.length() > 0) {
                Some(key) => {
                    let _ = write!(out, " sgl len {} key {key:#x}", sgl.length());
                }
                None if *in_capsule > 0 => {
                    let _ = write!(out, " in-capsule {in_capsule}");
                }
                None => {}
            }
        }
        NvmeMsg::Response { cqe, command } => {
            match command {
                Some(link) => {
                    let _ = write!(out, " {} CQE for ", prefix(link.fctype.is_some()));
                    write_name(out, link.name, link.detail);
                }
                None => out.extend_from_slice(b" NVMe CQE"),
            }
            let _ = write!(out, " cid {} sqhd {}", cqe.cid(), cqe.sq_head());
            if !cqe.is_success() {
                let _ = write!(
                    out,
                    " status sct {} sc {:#04x} {}{}",
                    cqe.sct(),
                    cqe.sc(),
                    names::status_name(cqe.sct(), cqe.sc()),
                    if cqe.dnr() { " DNR" } else { "" }
                );
            }
            if let Some(link) = command {
                let _ = write!(out, " cmd frame {}", link.frame);
                if let Some(ns) = link.latency_ns {
                    let _ = write!(out, " latency {}.{:03} us", ns / 1000, ns % 1000);
                }
            }
        }
        NvmeMsg::Data { transfer, command } => {
            let what = match transfer {
                Transfer::ReadRequest => "Data Request for",
                Transfer::ReadResponse | Transfer::Write => "Data for",
            };
            let _ = write!(out, " {} {what} ", prefix(command.fctype.is_some()));
            write_name(out, command.name, command.detail);
            let _ = write!(out, " cid {} cmd frame {}", command.cid, command.frame);
        }
        NvmeMsg::CmReq(req) => {
            let _ = write!(
                out,
                " NVMe-oF CM qid {} hrqsize {} hsqsize {}",
                req.qid(),
                req.hrqsize(),
                req.hsqsize()
            );
        }
        NvmeMsg::CmRep(rep) => {
            let _ = write!(out, " NVMe-oF CM crqsize {}", rep.crqsize());
        }
        NvmeMsg::CmRej(rej) => {
            let _ = write!(
                out,
                " NVMe-oF CM reject status {} {}",
                rej.status(),
                reject_status_name(rej.status())
            );
        }
    }
}

/// The `nvme` object of `read --json`.
pub fn write_json(o: &mut Obj<'_>, nvme: &Nvme<'_>) {
    let mut n = o.obj("nvme");
    n.u64("queue", nvme.queue.index);
    if let Some(qid) = nvme.queue.qid {
        n.u64("qid", qid);
    }
    n.name("recognised_by", nvme.queue.recognised_by.name())
        .name("type", nvme.msg.kind());
    match &nvme.msg {
        NvmeMsg::Command { sqe, in_capsule } => {
            write_command(&mut n, sqe, nvme.queue.qid, *in_capsule)
        }
        NvmeMsg::Response { cqe, command } => {
            n.u64("cid", cqe.cid())
                .u64("sq_head", cqe.sq_head())
                .u64("sq_id", cqe.sq_id())
                .u64("status", cqe.status())
                .u64("sct", cqe.sct())
                .u64("sc", cqe.sc())
                .bool("more", cqe.more())
                .bool("dnr", cqe.dnr())
                .name("status_name", names::status_name(cqe.sct(), cqe.sc()))
                .u64("dw0", cqe.dw0())
                .u64("dw1", cqe.dw1());
            if let Some(link) = command {
                write_link(&mut n, link);
            }
        }
        NvmeMsg::Data { command, .. } => write_link(&mut n, command),
        NvmeMsg::CmReq(req) => {
            n.obj("cm")
                .u64("recfmt", req.recfmt())
                .u64("qid", req.qid())
                .u64("hrqsize", req.hrqsize())
                .u64("hsqsize", req.hsqsize())
                .u64("cntlid", req.cntlid());
        }
        NvmeMsg::CmRep(rep) => {
            n.obj("cm")
                .u64("recfmt", rep.recfmt())
                .u64("crqsize", rep.crqsize());
        }
        NvmeMsg::CmRej(rej) => {
            n.obj("cm")
                .u64("recfmt", rej.recfmt())
                .u64("status", rej.status());
        }
    }
}

fn write_command(n: &mut Obj<'_>, sqe: &Sqe<'_>, qid: Option<u16>, in_capsule: u32) {
    n.u64("opcode", sqe.opcode())
        .name("name", crate::dissect::command_name(sqe, qid));
    if let Some(detail) = crate::dissect::command_detail(sqe, qid) {
        n.name("detail", detail);
    }
    n.u64("cid", sqe.cid()).u64("psdt", sqe.psdt());
    if let Some(fctype) = sqe.fctype() {
        n.u64("fctype", fctype);
    }
    if let Some(nsid) = sqe.nsid() {
        n.u64("nsid", nsid);
    }
    if let Some(slba) = sqe.slba() {
        n.u64("slba", slba);
    }
    if let Some(nlb) = sqe.nlb() {
        n.u64("nlb", nlb);
    }
    let sgl = sqe.sgl();
    {
        let mut s = n.obj("sgl");
        s.u64("type", sgl.desc_type())
            .name("type_name", sgl_type_name(sgl.desc_type()))
            .u64("subtype", sgl.subtype())
            .u64("address", sgl.address())
            .u64("length", sgl.length());
        if let Some(key) = sgl.key() {
            s.u64("key", key);
        }
    }
    n.u64("in_capsule_len", in_capsule);
    match sqe.fctype() {
        Some(fctype::CONNECT) => {
            n.obj("connect")
                .u64("recfmt", sqe.connect_recfmt())
                .u64("qid", sqe.connect_qid())
                .u64("sqsize", sqe.connect_sqsize())
                .u64("cattr", sqe.connect_cattr())
                .u64("kato", sqe.connect_kato());
        }
        Some(fctype::PROPERTY_GET) => {
            n.obj("property")
                .u64("size", sqe.property_size())
                .u64("offset", sqe.property_offset());
        }
        Some(fctype::PROPERTY_SET) => {
            n.obj("property")
                .u64("size", sqe.property_size())
                .u64("offset", sqe.property_offset())
                .u64("value", sqe.property_value());
        }
        _ => {}
    }
}

fn write_link(n: &mut Obj<'_>, link: &CommandLink) {
    let mut c = n.obj("command");
    c.u64("frame", link.frame)
        .u64("cid", link.cid)
        .name("name", link.name);
    if let Some(ns) = link.latency_ns {
        c.u64("latency_ns", ns);
    }
}
