//! The iSER part of `read`: the `iser` layer of `--json` (which `-V` draws), and the summary
//! at the end of a text line: `iSCSI SCSI Command READ(10) itt 0x10 lba 4096 blocks 8`,
//! `iSCSI SCSI Response READ(10) itt 0x10 GOOD call frame 4 latency 150.000 us`.

use std::io::Write;

use super::call_link::{self, write_tail};
use super::jsonw::Obj;
use crate::dissect::{IserFrame, IserMsg, iscsi_request_name};
use crate::wire::iser::bhs::{self, opcode};
use crate::wire::iser::{cdb, header};

/// Appends ` | iSCSI ...` (or ` | iSER ...` for what carries no iSCSI PDU) to a text line.
pub fn write_summary(out: &mut Vec<u8>, f: &IserFrame<'_>) {
    out.extend_from_slice(b" |");
    let (header, bhs) = match f.msg {
        IserMsg::Hello(h) => {
            let _ = write!(out, " iSER {}", header::opcode_name(h.opcode()));
            return;
        }
        IserMsg::Control { header, bhs } => (header, bhs),
    };
    let Some(b) = bhs else {
        let _ = write!(out, " iSER {}", header::opcode_name(header.opcode()));
        return;
    };
    let _ = write!(out, " iSCSI {}", bhs::opcode_name(b.opcode()));
    if b.opcode() == opcode::SCSI_COMMAND {
        let _ = write!(out, " {}", iscsi_request_name(&b));
    } else if let Some(link) = &f.call {
        let _ = write!(out, " {}", link.name);
    }
    let _ = write!(out, " itt {:#x}", b.itt());
    if let Some((lba, blocks)) = f.cdb().and_then(cdb::lba_and_blocks) {
        let _ = write!(out, " lba {lba} blocks {blocks}");
    }
    if let Some(status) = f.status() {
        let _ = write!(out, " {status}");
    }
    if let Some(link) = &f.call {
        write_tail(out, link);
    }
}

/// The `iser` object of `read --json`.
pub fn write_json(o: &mut Obj<'_>, f: &IserFrame<'_>) {
    let mut r = o.obj("iser");
    r.u64("session", f.session.index)
        .name("recognised_by", f.session.recognised_by.name());
    let (header, bhs) = match f.msg {
        IserMsg::Hello(h) => {
            r.u64("flags", h.flags())
                .u64("opcode", h.opcode())
                .name("opcode_name", header::opcode_name(h.opcode()))
                .u64("max_version", h.max_version())
                .u64("min_version", h.min_version());
            if h.opcode() == header::opcode::HELLO {
                r.u64("ird", h.ird_ord());
            } else {
                r.bool("rej", h.rej()).u64("ord", h.ird_ord());
            }
            return;
        }
        IserMsg::Control { header, bhs } => (header, bhs),
    };
    r.u64("flags", header.flags())
        .u64("opcode", header.opcode())
        .name("opcode_name", header::opcode_name(header.opcode()))
        .bool("wsv", header.wsv())
        .bool("rsv", header.rsv())
        .u64("write_stag", header.write_stag())
        .u64("write_va", header.write_va())
        .u64("read_stag", header.read_stag())
        .u64("read_va", header.read_va());
    if let Some(b) = bhs {
        let mut i = r.obj("iscsi");
        i.u64("opcode", b.opcode())
            .name("opcode_name", bhs::opcode_name(b.opcode()))
            .bool("immediate", b.immediate())
            .bool("final", b.final_bit())
            .u64("itt", b.itt())
            .u64("total_ahs_length", b.total_ahs_len())
            .u64("data_segment_length", b.data_segment_len());
        if let Some(sn) = b.cmdsn() {
            i.u64("cmdsn", sn);
        }
        if let Some(sn) = b.statsn() {
            i.u64("statsn", sn);
        }
        match b.opcode() {
            opcode::SCSI_COMMAND => {
                let c = b.cdb();
                i.u64("lun", b.lun())
                    .bool("read", b.read_flag())
                    .bool("write", b.write_flag())
                    .u64("expected_data_length", b.expected_data_len())
                    .u64("cdb_opcode", c[0])
                    .name("cdb_name", cdb::name(c));
                if let Some((lba, blocks)) = cdb::lba_and_blocks(c) {
                    i.u64("lba", lba).u64("transfer_length", blocks);
                }
            }
            opcode::SCSI_RESPONSE => {
                i.u64("response", b.response())
                    .u64("scsi_status", b.status())
                    .u64("residual_count", b.residual_count());
            }
            opcode::DATA_IN if b.status_flag() => {
                i.u64("scsi_status", b.status());
            }
            opcode::LOGIN_RESPONSE => {
                let (class, detail) = b.login_status();
                i.u64("status_class", class).u64("status_detail", detail);
            }
            opcode::TASK_MGMT_RESPONSE | opcode::LOGOUT_RESPONSE => {
                i.u64("response", b.response());
            }
            _ => {}
        }
    }
    if let Some(status) = f.status() {
        r.name("status", status);
    }
    if let Some(link) = &f.call {
        call_link::write_json(&mut r, link);
    }
}
