//! The MAD part of a `read` line, named as tshark names it: `SubnGet(SMInfo)`,
//! `SubnAdmGetResp(PathRecord)`, `CM ConnectRequest ...`.

use std::io::Write;

use crate::dissect::Mad;
use crate::wire::mad::cm::CmMsg;
use crate::wire::mad::{class, names};

pub fn write_mad(out: &mut Vec<u8>, mad: &Mad<'_>) {
    let h = mad.header;
    let class = h.mgmt_class();
    let attr = names::attr_name(class, h.attr_id());
    if class == class::CM
        && let Some(msg) = CmMsg::from_attr_id(h.attr_id())
    {
        let _ = write!(out, " CM {}", names::cm_name(msg));
        // A MAD cut after its header still names the message.
        let Some(cm) = mad.cm() else { return };
        if let Some(id) = cm.local_comm_id() {
            let _ = write!(out, " lcid {id:#x}");
        }
        if let Some(id) = cm.remote_comm_id() {
            let _ = write!(out, " rcid {id:#x}");
        }
        if let Some(id) = cm.request_id() {
            let _ = write!(out, " req_id {id:#x}");
        }
        if let Some(qpn) = cm.local_qpn() {
            let _ = write!(out, " qpn {qpn:#x}");
        }
        if let Some(psn) = cm.starting_psn() {
            let _ = write!(out, " psn {psn:#x}");
        }
        if let Some(qpn) = cm.remote_qpn() {
            let _ = write!(out, " remote_qpn {qpn:#x}");
        }
        if let Some(sid) = cm.service_id() {
            let _ = write!(out, " sid {sid:#x}");
        }
        if let Some(reason) = cm.reject_reason() {
            let _ = write!(
                out,
                " reason {reason} {}",
                names::reject_reason_name(reason)
            );
        }
        return;
    }
    let method = names::method_name(h.method());
    let _ = match names::method_prefix(class) {
        Some(prefix) => write!(out, " {prefix}{method}({attr})"),
        None => write!(out, " {} {method}({attr})", names::class_name(class)),
    };
    if h.is_directed_route() {
        let _ = write!(out, " dr hop {}/{}", h.hop_pointer(), h.hop_count());
    }
}
