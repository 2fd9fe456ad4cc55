//! The `mad` and `cm` keys of `read --json` (docs/json-schema.md, "Management datagrams").

use super::jsonw::Obj;
use crate::dissect::Mad;
use crate::wire::mad::cm::Cm;
use crate::wire::mad::names;
use crate::wire::mad::smp::{SmpAttr, SmpBody};

pub fn write_mad(o: &mut Obj<'_>, mad: &Mad<'_>) {
    let h = mad.header;
    {
        let mut m = o.obj("mad");
        m.u64("base_version", h.base_version())
            .u64("class", h.mgmt_class())
            .str("class_name", names::class_name(h.mgmt_class()))
            .u64("class_version", h.class_version())
            .u64("method", h.method())
            .str("method_name", names::method_name(h.method()))
            .u64("status", h.status())
            .u64("tid", h.tid())
            .u64("attr_id", h.attr_id())
            .str("attr_name", names::attr_name(h.mgmt_class(), h.attr_id()))
            .u64("attr_mod", h.attr_mod());
        if h.is_directed_route() {
            write_directed_route(&mut m, mad, mad.smp());
        }
        if let Some(smp) = mad.smp() {
            m.u64("m_key", smp.m_key());
        }
        match mad.smp_attr() {
            Some(SmpAttr::NodeInfo(n)) => {
                m.obj("node_info")
                    .u64("base_version", n.base_version())
                    .u64("class_version", n.class_version())
                    .u64("node_type", n.node_type())
                    .u64("num_ports", n.num_ports())
                    .u64("system_image_guid", n.system_image_guid())
                    .u64("node_guid", n.node_guid())
                    .u64("port_guid", n.port_guid())
                    .u64("partition_cap", n.partition_cap())
                    .u64("device_id", n.device_id())
                    .u64("revision", n.revision())
                    .u64("local_port_num", n.local_port_num())
                    .u64("vendor_id", n.vendor_id());
            }
            Some(SmpAttr::PortInfo(p)) => {
                m.obj("port_info")
                    .u64("m_key", p.m_key())
                    .u64("gid_prefix", p.gid_prefix())
                    .u64("lid", p.lid())
                    .u64("master_sm_lid", p.master_sm_lid())
                    .u64("capability_mask", p.capability_mask())
                    .u64("local_port_num", p.local_port_num())
                    .u64("link_width_active", p.link_width_active())
                    .u64("link_speed_active", p.link_speed_active())
                    .u64("port_state", p.port_state())
                    .u64("port_phys_state", p.port_phys_state())
                    .u64("lmc", p.lmc())
                    .u64("neighbor_mtu", p.neighbor_mtu())
                    .u64("master_sm_sl", p.master_sm_sl())
                    .u64("mtu_cap", p.mtu_cap());
            }
            Some(SmpAttr::SmInfo(s)) => {
                m.obj("sm_info")
                    .u64("guid", s.guid())
                    .u64("sm_key", s.sm_key())
                    .u64("act_count", s.act_count())
                    .u64("priority", s.priority())
                    .u64("sm_state", s.sm_state());
            }
            None => {}
        }
        if let Some(sa) = mad.sa() {
            m.obj("sa")
                .u64("rmpp_type", sa.rmpp_type())
                .u64("rmpp_flags", sa.rmpp_flags())
                .u64("rmpp_status", sa.rmpp_status())
                .u64("sm_key", sa.sm_key())
                .u64("attr_offset", sa.attr_offset())
                .u64("component_mask", sa.component_mask());
        }
        if let Some(p) = mad.path_record() {
            let mut r = m.obj("path_record");
            r.ipv6("dgid", p.dgid())
                .ipv6("sgid", p.sgid())
                .u64("dlid", p.dlid())
                .u64("slid", p.slid())
                .bool("raw_traffic", p.raw_traffic())
                .u64("flow_label", p.flow_label())
                .u64("hop_limit", p.hop_limit())
                .u64("tclass", p.tclass())
                .bool("reversible", p.reversible())
                .u64("num_path", p.num_path())
                .u64("pkey", p.pkey())
                .u64("sl", p.sl())
                .u64("mtu_selector", p.mtu_selector())
                .u64("mtu", p.mtu());
            if let Some(bytes) = names::mtu_bytes(p.mtu()) {
                r.u64("mtu_bytes", bytes);
            }
            r.u64("rate_selector", p.rate_selector())
                .u64("rate", p.rate())
                .u64("packet_lifetime_selector", p.packet_lifetime_selector())
                .u64("packet_lifetime", p.packet_lifetime())
                .u64("preference", p.preference());
        }
        if let Some(c) = mad.port_counters() {
            m.obj("port_counters")
                .u64("port_select", c.port_select())
                .u64("counter_select", c.counter_select())
                .u64("symbol_errors", c.symbol_errors())
                .u64("link_error_recovery", c.link_error_recovery())
                .u64("link_downed", c.link_downed())
                .u64("rcv_errors", c.rcv_errors())
                .u64("rcv_remote_physical_errors", c.rcv_remote_physical_errors())
                .u64("rcv_switch_relay_errors", c.rcv_switch_relay_errors())
                .u64("xmit_discards", c.xmit_discards())
                .u64("xmit_constraint_errors", c.xmit_constraint_errors())
                .u64("rcv_constraint_errors", c.rcv_constraint_errors())
                .u64(
                    "local_link_integrity_errors",
                    c.local_link_integrity_errors(),
                )
                .u64(
                    "excessive_buffer_overrun_errors",
                    c.excessive_buffer_overrun_errors(),
                )
                .u64("vl15_dropped", c.vl15_dropped())
                .u64("xmit_data", c.xmit_data())
                .u64("rcv_data", c.rcv_data())
                .u64("xmit_pkts", c.xmit_pkts())
                .u64("rcv_pkts", c.rcv_pkts())
                .u64("xmit_wait", c.xmit_wait());
        }
    }
    if let Some(cm) = mad.cm() {
        write_cm(o, &cm);
    }
}

/// The hop fields live in the common header, so they are shown even when the body was cut.
fn write_directed_route(m: &mut Obj<'_>, mad: &Mad<'_>, smp: Option<SmpBody<'_>>) {
    let h = mad.header;
    let mut dr = m.obj("dr");
    dr.bool("d", h.direction())
        .u64("hop_pointer", h.hop_pointer())
        .u64("hop_count", h.hop_count());
    if let Some(smp) = smp {
        dr.u64("dr_slid", smp.dr_slid())
            .u64("dr_dlid", smp.dr_dlid());
        // Entry 0 is unused; the route is entries 1..=hop_count.
        let hops = usize::from(h.hop_count());
        for (key, path) in [
            ("initial_path", smp.initial_path()),
            ("return_path", smp.return_path()),
        ] {
            let mut list = dr.arr(key);
            for port in path.iter().skip(1).take(hops) {
                list.u64(u64::from(*port));
            }
        }
    }
}

fn write_cm(o: &mut Obj<'_>, cm: &Cm<'_>) {
    let mut c = o.obj("cm");
    c.str("msg", cm.msg().key())
        .str("name", names::cm_name(cm.msg()));
    if let Some(id) = cm.local_comm_id() {
        c.u64("local_comm_id", id);
    }
    if let Some(id) = cm.remote_comm_id() {
        c.u64("remote_comm_id", id);
    }
    if let Some(id) = cm.request_id() {
        c.u64("request_id", id);
    }
    if let Some(qpn) = cm.local_qpn() {
        c.u64("local_qpn", qpn);
    }
    if let Some(psn) = cm.starting_psn() {
        c.u64("starting_psn", psn);
    }
    if let Some(qpn) = cm.remote_qpn() {
        c.u64("remote_qpn", qpn);
    }
    if let Some(sid) = cm.service_id() {
        c.u64("service_id", sid);
    }
    if let Some(reason) = cm.reject_reason() {
        c.u64("reason", reason)
            .str("reason_name", names::reject_reason_name(reason));
    }
    if let Some(msg) = cm.rejected_msg() {
        c.u64("rejected_msg", msg);
    }
    if let Some(req) = cm.req() {
        if let Some(mtu) = names::mtu_bytes(req.path_mtu_code()) {
            c.u64("path_mtu", mtu);
        }
        c.str("transport", names::transport_name(req.transport_type()))
            .u64("retry_count", req.retry_count())
            .u64("rnr_retry_count", req.rnr_retry_count())
            .u64("pkey", req.pkey())
            .u64("local_ca_guid", req.local_ca_guid())
            .u64("local_qkey", req.local_qkey())
            .u64("responder_resources", req.responder_resources())
            .u64("initiator_depth", req.initiator_depth())
            .u64("max_cm_retries", req.max_cm_retries())
            .bool("srq", req.srq());
        c.obj("primary_path")
            .u64("local_lid", req.primary_local_lid())
            .u64("remote_lid", req.primary_remote_lid())
            .ipv6("local_gid", req.primary_local_gid())
            .ipv6("remote_gid", req.primary_remote_gid())
            .u64("flow_label", req.primary_flow_label())
            .u64("packet_rate", req.primary_packet_rate())
            .u64("traffic_class", req.primary_traffic_class())
            .u64("hop_limit", req.primary_hop_limit())
            .u64("sl", req.primary_sl())
            .u64("local_ack_timeout", req.primary_local_ack_timeout());
        if let Some((space, port, ip)) = cm.ip_cm() {
            let mut i = c.obj("ip_cm");
            i.u64("port_space", space)
                .u64("port", port)
                .u64("major_version", ip.major_version())
                .u64("minor_version", ip.minor_version())
                .u64("ip_version", ip.ip_version())
                .u64("src_port", ip.src_port());
            if let Some((src, dst)) = ip.addresses() {
                i.ip("src_ip", src).ip("dst_ip", dst);
            }
        }
    }
    if let Some(rep) = cm.rep() {
        c.u64("local_qkey", rep.local_qkey())
            .u64("local_ca_guid", rep.local_ca_guid())
            .u64("responder_resources", rep.responder_resources())
            .u64("initiator_depth", rep.initiator_depth())
            .u64("rnr_retry_count", rep.rnr_retry_count())
            .bool("srq", rep.srq());
    }
}
