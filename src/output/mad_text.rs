//! The MAD part of a `read` line, named as tshark names it: `SubnGet(SMInfo)`,
//! `SubnAdmGetResp(PathRecord)`, `CM ConnectRequest ...`.

use std::io::Write;

use crate::dissect::Mad;
use crate::wire::mad::cm::CmMsg;
use crate::wire::mad::smp::SmpAttr;
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
    // The one or two numbers a reader looks for in each decoded attribute; a Get's attribute
    // is a blank form (or, to the SA, a query template), so only answers and Sets show them.
    const RESPONSE: u8 = 0x80;
    const SET: u8 = 0x02;
    if h.method() & RESPONSE == 0 && h.method() != SET {
        return;
    }
    let _ = match mad.smp_attr() {
        Some(SmpAttr::SmInfo(s)) => write!(out, " guid {:#x} state {}", s.guid(), s.sm_state()),
        Some(SmpAttr::PortInfo(p)) => write!(out, " lid {} state {}", p.lid(), p.port_state()),
        Some(SmpAttr::NodeInfo(n)) => write!(out, " node_guid {:#x}", n.node_guid()),
        None => Ok(()),
    };
    if let Some(p) = mad.path_record() {
        let _ = write!(out, " slid {} dlid {} sl {}", p.slid(), p.dlid(), p.sl());
        if let Some(mtu) = names::mtu_bytes(p.mtu()) {
            let _ = write!(out, " mtu {mtu}");
        }
    }
    if let Some(c) = mad.port_counters() {
        let _ = write!(
            out,
            " port {} xmit_pkts {} rcv_pkts {}",
            c.port_select(),
            c.xmit_pkts(),
            c.rcv_pkts()
        );
    }
}
