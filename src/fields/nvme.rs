//! NVMe over Fabrics on RDMA: the command and response capsules, the command a response or
//! data transfer belongs to, and the CM private data; under Wireshark's `nvme.*` and
//! `nvme-rdma.*` names where the value is the same.

use super::{Field, Parquet, Type, Value};
use crate::dissect::{CommandLink, Nvme, NvmeMsg, Packet, Ulp};
use crate::wire::nvme::cm_private::{RejPrivate, RepPrivate, ReqPrivate};
use crate::wire::nvme::cqe::Cqe;
use crate::wire::nvme::names::{self, fctype};
use crate::wire::nvme::sqe::Sqe;

fn nvme<'p, 'a>(p: &'p Packet<'a>) -> Option<&'p Nvme<'a>> {
    match &p.ulp {
        Some(Ulp::Nvme(n)) => Some(n),
        _ => None,
    }
}

/// The SQE of a command capsule, with its queue's ID.
fn sqe<'a>(p: &Packet<'a>) -> Option<(Sqe<'a>, Option<u16>)> {
    nvme(p).and_then(|n| match n.msg {
        NvmeMsg::Command { sqe, .. } => Some((sqe, n.queue.qid)),
        _ => None,
    })
}

fn fabrics<'a>(p: &Packet<'a>, wanted: u8) -> Option<Sqe<'a>> {
    sqe(p)
        .map(|(s, _)| s)
        .filter(|s| s.fctype() == Some(wanted))
}

fn cqe<'a>(p: &Packet<'a>) -> Option<Cqe<'a>> {
    nvme(p).and_then(|n| match n.msg {
        NvmeMsg::Response { cqe, .. } => Some(cqe),
        _ => None,
    })
}

/// The command a response or a data transfer belongs to.
fn link(p: &Packet<'_>) -> Option<CommandLink> {
    nvme(p).and_then(|n| match n.msg {
        NvmeMsg::Response { command, .. } => command,
        NvmeMsg::Data { command, .. } => Some(command),
        _ => None,
    })
}

fn cm_req<'a>(p: &Packet<'a>) -> Option<ReqPrivate<'a>> {
    nvme(p).and_then(|n| match n.msg {
        NvmeMsg::CmReq(r) => Some(r),
        _ => None,
    })
}

fn cm_rep<'a>(p: &Packet<'a>) -> Option<RepPrivate<'a>> {
    nvme(p).and_then(|n| match n.msg {
        NvmeMsg::CmRep(r) => Some(r),
        _ => None,
    })
}

fn cm_rej<'a>(p: &Packet<'a>) -> Option<RejPrivate<'a>> {
    nvme(p).and_then(|n| match n.msg {
        NvmeMsg::CmRej(r) => Some(r),
        _ => None,
    })
}

/// Commands of the NVMe sets, not Fabrics ones: what Wireshark's `nvme.cmd.*` covers.
fn nvme_cmd<'a>(p: &Packet<'a>) -> Option<Sqe<'a>> {
    sqe(p).map(|(s, _)| s).filter(|s| !s.is_fabrics())
}

pub(super) const NVME: &[Field] = &[
    int!(
        "nvme.queue",
        "NVMe-oF queue, numbered as the capture makes them known",
        |p| { nvme(p).map(|n| n.queue.index) }
    ),
    int!(
        "nvme.qid",
        "NVMe queue ID (0 admin), from the CM REQ or the Connect command",
        |p| { nvme(p).and_then(|n| n.queue.qid) }
    ),
    string!(
        "nvme.recognised_by",
        "how the queue was recognised as NVMe-oF: cm, traffic or option",
        |p| nvme(p).map(|n| n.queue.recognised_by.name())
    ),
    string!(
        "nvme.type",
        "NVMe-oF message: command, response, rdma_read_request, rdma_read_response, rdma_write, cm_req, cm_rep, cm_rej",
        |p| nvme(p).map(|n| n.msg.kind())
    ),
    int!("nvme.opcode", "NVMe command opcode (0x7f Fabrics)", |p| {
        sqe(p).map(|(s, _)| s.opcode())
    }),
    string!("nvme.name", "NVMe command name, e.g. Read, Connect", |p| {
        sqe(p).map(|(s, qid)| crate::dissect::command_name(&s, qid))
    }),
    string!(
        "nvme.detail",
        "what the command is about: the property of a Property Get/Set, the Identify CNS",
        |p| sqe(p).and_then(|(s, qid)| crate::dissect::command_detail(&s, qid))
    ),
    int!(
        "nvme.cid",
        "NVMe command identifier, of a command or a response",
        |p| {
            sqe(p)
                .map(|(s, _)| s.cid())
                .or_else(|| cqe(p).map(|c| c.cid()))
        }
    ),
    int!("nvme.psdt", "NVMe PRP or SGL data transfer (1: SGL)", |p| {
        sqe(p).map(|(s, _)| s.psdt())
    })
    .wireshark("nvme.cmd.psdt"),
    int!("nvme.fctype", "NVMe-oF Fabrics command type", |p| sqe(p)
        .and_then(|(s, _)| s.fctype()))
    .wireshark("nvme.fabrics.cmd.fctype"),
    int!("nvme.nsid", "NVMe namespace ID", |p| nvme_cmd(p)
        .and_then(|s| s.nsid()))
    .wireshark("nvme.cmd.nsid"),
    int!("nvme.slba", "NVMe starting LBA (Read, Write...)", |p| {
        nvme_cmd(p).and_then(|s| s.slba())
    })
    .wireshark("nvme.cmd.slba"),
    int!(
        "nvme.nlb",
        "NVMe number of logical blocks, 0-based as on the wire",
        |p| { nvme_cmd(p).and_then(|s| s.nlb()) }
    )
    .wireshark("nvme.cmd.nlb"),
    int!(
        "nvme.sgl.type",
        "NVMe SGL1 descriptor type (4 keyed data block)",
        |p| { sqe(p).map(|(s, _)| s.sgl().desc_type()) }
    ),
    string!(
        "nvme.sgl.type_name",
        "NVMe SGL1 descriptor type name",
        |p| sqe(p).map(|(s, _)| crate::dissect::sgl_type_name(s.sgl().desc_type()))
    ),
    int!("nvme.sgl.subtype", "NVMe SGL1 descriptor subtype", |p| sqe(
        p
    )
    .map(|(s, _)| s.sgl().subtype())),
    int!(
        "nvme.sgl.address",
        "NVMe SGL1 address (host buffer, or in-capsule offset)",
        |p| { sqe(p).map(|(s, _)| s.sgl().address()) }
    )
    .parquet(Parquet::FullWidth),
    int!("nvme.sgl.length", "NVMe SGL1 length in bytes", |p| sqe(p)
        .map(|(s, _)| s.sgl().length())),
    int!(
        "nvme.sgl.key",
        "NVMe SGL1 key: the R_Key of the RDMA READ or WRITE",
        |p| { sqe(p).and_then(|(s, _)| s.sgl().key()) }
    ),
    int!(
        "nvme.in_capsule_len",
        "bytes of in-capsule data after the SQE",
        |p| {
            nvme(p).and_then(|n| match n.msg {
                NvmeMsg::Command { in_capsule, .. } => Some(in_capsule),
                _ => None,
            })
        }
    ),
    int!(
        "nvme.connect.recfmt",
        "NVMe-oF Connect record format",
        |p| { fabrics(p, fctype::CONNECT).map(|s| s.connect_recfmt()) }
    )
    .wireshark("nvme.fabrics.cmd.connect.recfmt"),
    int!("nvme.connect.qid", "NVMe-oF Connect queue ID", |p| fabrics(
        p,
        fctype::CONNECT
    )
    .map(|s| s.connect_qid()))
    .wireshark("nvme.fabrics.cmd.connect.qid"),
    int!(
        "nvme.connect.sqsize",
        "NVMe-oF Connect submission queue size",
        |p| { fabrics(p, fctype::CONNECT).map(|s| s.connect_sqsize()) }
    )
    .wireshark("nvme.fabrics.cmd.connect.sqsize"),
    int!("nvme.connect.cattr", "NVMe-oF Connect attributes", |p| {
        fabrics(p, fctype::CONNECT).map(|s| s.connect_cattr())
    })
    .wireshark("nvme.fabrics.cmd.connect.cattr"),
    int!(
        "nvme.connect.kato",
        "NVMe-oF Connect keep-alive timeout (ms)",
        |p| { fabrics(p, fctype::CONNECT).map(|s| s.connect_kato()) }
    )
    .wireshark("nvme.fabrics.cmd.connect.kato"),
    int!(
        "nvme.property.size",
        "NVMe-oF Property Get/Set size (0: 4 bytes, 1: 8)",
        |p| {
            fabrics(p, fctype::PROPERTY_GET)
                .or_else(|| fabrics(p, fctype::PROPERTY_SET))
                .map(|s| s.property_size())
        }
    )
    .wireshark("nvme.fabrics.cmd.prop_get_set.attrib.size"),
    int!(
        "nvme.property.offset",
        "NVMe-oF Property Get/Set offset",
        |p| {
            fabrics(p, fctype::PROPERTY_GET)
                .or_else(|| fabrics(p, fctype::PROPERTY_SET))
                .map(|s| s.property_offset())
        }
    )
    .wireshark("nvme.fabrics.cmd.prop_get_set.offset"),
    int!("nvme.property.value", "NVMe-oF Property Set value", |p| {
        fabrics(p, fctype::PROPERTY_SET).map(|s| s.property_value())
    })
    .parquet(Parquet::FullWidth),
    int!(
        "nvme.sq_head",
        "NVMe completion: submission queue head pointer",
        |p| cqe(p).map(|c| c.sq_head())
    )
    .wireshark("nvme.cqe.sqhd"),
    int!("nvme.sq_id", "NVMe completion: submission queue ID", |p| {
        cqe(p).map(|c| c.sq_id())
    })
    .wireshark("nvme.cqe.sqid"),
    int!(
        "nvme.status",
        "NVMe completion status field, phase tag included",
        |p| cqe(p).map(|c| c.status())
    )
    .wireshark("nvme.cqe.status"),
    int!("nvme.sct", "NVMe completion status code type", |p| cqe(p)
        .map(|c| c.sct()))
    .wireshark("nvme.cqe.status.sct"),
    int!("nvme.sc", "NVMe completion status code", |p| cqe(p)
        .map(|c| c.sc()))
    .wireshark("nvme.cqe.status.sc"),
    boolean!(
        "nvme.more",
        "NVMe completion: more in the error log page",
        |p| cqe(p).map(|c| c.more())
    )
    .wireshark("nvme.cqe.status.m"),
    boolean!("nvme.dnr", "NVMe completion: do not retry", |p| cqe(p)
        .map(|c| c.dnr()))
    .wireshark("nvme.cqe.status.dnr"),
    string!("nvme.status_name", "NVMe completion status name", |p| cqe(
        p
    )
    .map(|c| names::status_name(c.sct(), c.sc()))),
    int!(
        "nvme.dw0",
        "NVMe completion dword 0 (command specific)",
        |p| cqe(p).map(|c| c.dw0())
    ),
    int!(
        "nvme.dw1",
        "NVMe completion dword 1 (command specific)",
        |p| cqe(p).map(|c| c.dw1())
    ),
    int!(
        "nvme.command.frame",
        "frame of the command a response or data transfer belongs to",
        |p| link(p).map(|l| l.frame)
    ),
    int!(
        "nvme.command.cid",
        "CID of the command a response or data transfer belongs to",
        |p| link(p).map(|l| l.cid)
    ),
    string!(
        "nvme.command.name",
        "name of the command a response or data transfer belongs to",
        |p| link(p).map(|l| l.name)
    ),
    int!(
        "nvme.command.latency_ns",
        "from the command capsule to its response, in ns (tshark's nvme.cmd_latency is in ms)",
        |p| link(p).and_then(|l| l.latency_ns)
    ),
    int!(
        "nvme.cm.recfmt",
        "NVMe-oF CM private data record format",
        |p| {
            cm_req(p)
                .map(|r| r.recfmt())
                .or_else(|| cm_rep(p).map(|r| r.recfmt()))
                .or_else(|| cm_rej(p).map(|r| r.recfmt()))
        }
    ),
    int!("nvme.cm.qid", "NVMe-oF CM REQ queue ID", |p| cm_req(p)
        .map(|r| r.qid()))
    .wireshark("nvme-rdma.cm.req.qid"),
    int!(
        "nvme.cm.hrqsize",
        "NVMe-oF CM REQ host receive queue size",
        |p| cm_req(p).map(|r| r.hrqsize())
    )
    .wireshark("nvme-rdma.cm.req.hrqsize"),
    int!(
        "nvme.cm.hsqsize",
        "NVMe-oF CM REQ host send queue size",
        |p| cm_req(p).map(|r| r.hsqsize())
    )
    .wireshark("nvme-rdma.cm.req.hsqsize"),
    int!("nvme.cm.cntlid", "NVMe-oF CM REQ controller ID", |p| {
        cm_req(p).map(|r| r.cntlid())
    })
    .wireshark("nvme-rdma.cm.req.cntlid"),
    int!(
        "nvme.cm.crqsize",
        "NVMe-oF CM REP controller receive queue size",
        |p| { cm_rep(p).map(|r| r.crqsize()) }
    )
    .wireshark("nvme-rdma.cm.rsp.crqsize"),
    int!("nvme.cm.status", "NVMe-oF CM REJ status", |p| cm_rej(p)
        .map(|r| r.status()))
    .wireshark("nvme-rdma.cm.rej.status"),
];

/// Values Wireshark splits by command set or message, under its names.
pub(super) const WIRESHARK: &[Field] = &[
    int!(
        "nvme.cmd.opc",
        "NVMe opcode of a non-Fabrics command",
        |p| nvme_cmd(p).map(|s| s.opcode())
    )
    .wireshark_only(),
    int!("nvme.cmd.cid", "NVMe CID of a non-Fabrics command", |p| {
        nvme_cmd(p).map(|s| s.cid())
    })
    .wireshark_only(),
    int!(
        "nvme.fabrics.cmd.cid",
        "NVMe-oF CID of a Fabrics command",
        |p| sqe(p)
            .map(|(s, _)| s)
            .filter(|s| s.is_fabrics())
            .map(|s| s.cid())
    )
    .wireshark_only(),
    int!("nvme.cqe.cid", "NVMe CID of a completion", |p| cqe(p)
        .map(|c| c.cid()))
    .wireshark_only(),
    int!(
        "nvme.cmd_pkt",
        "frame of the non-Fabrics command a frame belongs to",
        |p| { link(p).filter(|l| l.fctype.is_none()).map(|l| l.frame) }
    )
    .wireshark_only(),
    int!(
        "nvme.fabrics.cmd_pkt",
        "frame of the Fabrics command a frame belongs to",
        |p| link(p).filter(|l| l.fctype.is_some()).map(|l| l.frame)
    )
    .wireshark_only(),
    int!("nvme.cmd.sgl1.addr", "NVMe SGL1 address", |p| sqe(p)
        .map(|(s, _)| s.sgl().address()))
    .wireshark_only(),
    int!("nvme.cmd.sgl1.len", "NVMe SGL1 length", |p| sqe(p)
        .map(|(s, _)| s.sgl().length()))
    .wireshark_only(),
    int!("nvme.cmd.sgl1.key", "NVMe SGL1 key", |p| sqe(p)
        .and_then(|(s, _)| s.sgl().key()))
    .wireshark_only(),
    int!(
        "nvme-rdma.cmd.qid",
        "NVMe-oF queue ID of a capsule or transfer",
        |p| {
            nvme(p)
                .filter(|n| {
                    !matches!(
                        n.msg,
                        NvmeMsg::CmReq(_) | NvmeMsg::CmRep(_) | NvmeMsg::CmRej(_)
                    )
                })
                .and_then(|n| n.queue.qid)
        }
    )
    .wireshark_only(),
];

pub(super) const PRESENT: &[Field] = &[
    header!("nvme", "is NVMe over Fabrics (RDMA)", |p| {
        nvme(p).is_some()
    }),
    protocol!(
        "nvme-rdma",
        "NVMe over Fabrics' RDMA binding: its capsules and CM private data",
        |p| nvme(p).is_some()
    ),
];
