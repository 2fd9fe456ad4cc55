//! Communication Management, the MAD class that sets up connections, with the RDMA IP CM
//! private data of a REQ and Wireshark's per-message names.

use std::net::IpAddr;

use super::{Field, Parquet, Type, Value};
use crate::dissect::Packet;
use crate::wire::mad::cm::{Cm, CmMsg, IpCm, Rep, Req};
use crate::wire::mad::names;

/// A field of one CM message, `$msg`, as Wireshark names it: `$e` gives it from the message `$c`.
macro_rules! cm_field {
    ($name:literal, $msg:ident, $about:literal, |$c:ident| $e:expr) => {
        int!($name, $about, |p| cm_of(p, CmMsg::$msg).and_then(|$c| $e))
    };
}

/// Communication Management messages, and the RDMA IP CM private data of a REQ.
pub(super) const CM: &[Field] = &[
    string!(
        "cm.msg",
        "CM message: req, mra, rej, rep, rtu, dreq, drep, sidr_req, sidr_rep, lap, apr",
        |p| cm(p).map(|c| c.msg().key())
    ),
    int!("cm.local_comm_id", "CM local communication ID", |p| cm(p)
        .and_then(|c| c.local_comm_id())),
    int!("cm.remote_comm_id", "CM remote communication ID", |p| cm(p)
        .and_then(|c| c.remote_comm_id())),
    int!("cm.request_id", "CM SIDR request ID", |p| cm(p)
        .and_then(|c| c.request_id())),
    int!("cm.local_qpn", "CM local QPN (REQ, REP, SIDR_REP)", |p| cm(
        p
    )
    .and_then(|c| c.local_qpn())),
    int!("cm.remote_qpn", "CM remote QPN (DREQ, LAP)", |p| cm(p)
        .and_then(|c| c.remote_qpn())),
    int!("cm.starting_psn", "CM starting PSN (REQ, REP)", |p| cm(p)
        .and_then(|c| c.starting_psn())),
    int!("cm.service_id", "CM service ID (REQ, SIDR)", |p| cm(p)
        .and_then(|c| c.service_id()))
    .parquet(Parquet::FullWidth),
    int!("cm.reason", "CM reject reason", |p| cm(p)
        .and_then(|c| c.reject_reason())),
    int!(
        "cm.rejected_msg",
        "CM rejected message (0 REQ, 1 REP, 2 other)",
        |p| cm(p).and_then(|c| c.rejected_msg())
    ),
    string!(
        "cm.name",
        "CM message as tshark names it, e.g. ConnectRequest",
        |p| cm(p).map(|c| names::cm_name(c.msg()))
    ),
    string!(
        "cm.reason_name",
        "CM reject reason name, e.g. ConsumerReject",
        |p| cm(p)
            .and_then(|c| c.reject_reason())
            .map(names::reject_reason_name)
    ),
    int!(
        "cm.local_qkey",
        "CM local Q_Key (REQ, REP)",
        |p| req_or_rep(p, |r| r.local_qkey(), |r| r.local_qkey())
    ),
    int!("cm.local_ca_guid", "CM local CA GUID (REQ, REP)", |p| {
        req_or_rep(p, |r| r.local_ca_guid(), |r| r.local_ca_guid())
    })
    .parquet(Parquet::FullWidth),
    int!(
        "cm.responder_resources",
        "CM responder resources (REQ, REP)",
        |p| req_or_rep(p, |r| r.responder_resources(), |r| r.responder_resources())
    ),
    int!("cm.initiator_depth", "CM initiator depth (REQ, REP)", |p| {
        req_or_rep(p, |r| r.initiator_depth(), |r| r.initiator_depth())
    }),
    int!("cm.rnr_retry_count", "CM RNR retry count (REQ, REP)", |p| {
        req_or_rep(p, |r| r.rnr_retry_count(), |r| r.rnr_retry_count())
    }),
    boolean!("cm.srq", "CM SRQ bit (REQ, REP)", |p| req_or_rep(
        p,
        |r| r.srq(),
        |r| r.srq()
    )),
    int!("cm.retry_count", "CM REQ retry count", |p| req(p)
        .map(|r| r.retry_count())),
    int!("cm.pkey", "CM REQ partition key", |p| req(p)
        .map(|r| r.pkey())),
    int!("cm.max_cm_retries", "CM REQ max CM retries", |p| req(p)
        .map(|r| r.max_cm_retries())),
    int!("cm.path_mtu", "CM REQ path MTU in bytes", |p| req(p)
        .and_then(|r| names::mtu_bytes(r.path_mtu_code()))),
    string!("cm.transport", "CM REQ transport: rc, uc, rd", |p| req(p)
        .map(|r| names::transport_name(r.transport_type()))),
    int!(
        "cm.primary_path.local_lid",
        "CM REQ primary path local LID",
        |p| req(p).map(|r| r.primary_local_lid())
    ),
    int!(
        "cm.primary_path.remote_lid",
        "CM REQ primary path remote LID",
        |p| req(p).map(|r| r.primary_remote_lid())
    ),
    ip!(
        "cm.primary_path.local_gid",
        "CM REQ primary path local GID",
        |p| req(p).map(|r| r.primary_local_gid())
    ),
    ip!(
        "cm.primary_path.remote_gid",
        "CM REQ primary path remote GID",
        |p| req(p).map(|r| r.primary_remote_gid())
    ),
    int!(
        "cm.primary_path.flow_label",
        "CM REQ primary path flow label",
        |p| req(p).map(|r| r.primary_flow_label())
    ),
    int!(
        "cm.primary_path.packet_rate",
        "CM REQ primary path packet rate",
        |p| req(p).map(|r| r.primary_packet_rate())
    ),
    int!(
        "cm.primary_path.traffic_class",
        "CM REQ primary path traffic class",
        |p| req(p).map(|r| r.primary_traffic_class())
    ),
    int!(
        "cm.primary_path.hop_limit",
        "CM REQ primary path hop limit",
        |p| req(p).map(|r| r.primary_hop_limit())
    ),
    int!(
        "cm.primary_path.sl",
        "CM REQ primary path service level",
        |p| req(p).map(|r| r.primary_sl())
    ),
    int!(
        "cm.primary_path.local_ack_timeout",
        "CM REQ primary path local ACK timeout",
        |p| req(p).map(|r| r.primary_local_ack_timeout())
    ),
    int!(
        "cm.ip_cm.port_space",
        "CM REQ RDMA IP CM port space from the service ID (0x06 TCP, 0x11 UDP, 0x3f IB)",
        |p| ip_cm(p).map(|(space, _, _)| space)
    ),
    int!(
        "cm.ip_cm.port",
        "CM REQ RDMA IP CM destination port (from the service ID)",
        |p| { ip_cm(p).map(|(_, port, _)| port) }
    ),
    int!(
        "cm.ip_cm.major_version",
        "CM REQ RDMA IP CM major version",
        |p| ip_cm(p).map(|(_, _, h)| h.major_version())
    ),
    int!(
        "cm.ip_cm.minor_version",
        "CM REQ RDMA IP CM minor version",
        |p| ip_cm(p).map(|(_, _, h)| h.minor_version())
    ),
    int!(
        "cm.ip_cm.ip_version",
        "CM REQ RDMA IP CM IP version, 4 or 6",
        |p| ip_cm(p).map(|(_, _, h)| h.ip_version())
    ),
    int!("cm.ip_cm.src_port", "CM REQ RDMA IP CM source port", |p| {
        ip_cm(p).map(|(_, _, h)| h.src_port())
    }),
    ip!("cm.ip_cm.src_ip", "CM REQ RDMA IP CM source address", |p| {
        ip_cm(p)
            .and_then(|(_, _, h)| h.addresses())
            .map(|(src, _)| src)
    }),
    ip!(
        "cm.ip_cm.dst_ip",
        "CM REQ RDMA IP CM destination address",
        |p| ip_cm(p)
            .and_then(|(_, _, h)| h.addresses())
            .map(|(_, dst)| dst)
    ),
];

pub(super) const PRESENT: &[Field] = &[header!("cm", "carries a CM message", |p| cm(p).is_some())];

/// Wireshark's CM names, one set per message, where rdmadump's `cm.*` covers every message.
pub(super) const WIRESHARK: &[Field] = &[
    cm_field!(
        "infiniband.cm.req",
        Req,
        "CM REQ local communication ID",
        |c| c.local_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.req.serviceid",
        Req,
        "CM REQ service ID",
        |c| c.service_id()
    )
    .wireshark_only(),
    cm_field!("infiniband.cm.req.localqpn", Req, "CM REQ local QPN", |c| c
        .local_qpn())
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.req.startpsn",
        Req,
        "CM REQ starting PSN",
        |c| c.starting_psn()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rep",
        Rep,
        "CM REP local communication ID",
        |c| c.local_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rep.remotecommid",
        Rep,
        "CM REP remote communication ID",
        |c| c.remote_comm_id()
    )
    .wireshark_only(),
    cm_field!("infiniband.cm.rep.localqpn", Rep, "CM REP local QPN", |c| c
        .local_qpn())
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rep.startpsn",
        Rep,
        "CM REP starting PSN",
        |c| c.starting_psn()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rtu.localcommid",
        Rtu,
        "CM RTU local communication ID",
        |c| c.local_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rtu.remotecommid",
        Rtu,
        "CM RTU remote communication ID",
        |c| c.remote_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rej.localcommid",
        Rej,
        "CM REJ local communication ID",
        |c| c.local_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.rej.remotecommid",
        Rej,
        "CM REJ remote communication ID",
        |c| c.remote_comm_id()
    )
    .wireshark_only(),
    cm_field!("infiniband.cm.rej.reason", Rej, "CM REJ reason", |c| c
        .reject_reason())
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.dreq.localcommid",
        Dreq,
        "CM DREQ local communication ID",
        |c| c.local_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.dreq.remotecommid",
        Dreq,
        "CM DREQ remote communication ID",
        |c| c.remote_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.req.remoteqpneecn",
        Dreq,
        "CM DREQ remote QPN",
        |c| c.remote_qpn()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.drsp.localcommid",
        Drep,
        "CM DREP local communication ID",
        |c| c.local_comm_id()
    )
    .wireshark_only(),
    cm_field!(
        "infiniband.cm.drsp.remotecommid",
        Drep,
        "CM DREP remote communication ID",
        |c| c.remote_comm_id()
    )
    .wireshark_only(),
];

fn cm<'a>(p: &Packet<'a>) -> Option<Cm<'a>> {
    p.mad.and_then(|m| m.cm())
}

fn ip_cm<'a>(p: &Packet<'a>) -> Option<(u8, u16, IpCm<'a>)> {
    cm(p).and_then(|c| c.ip_cm())
}

fn req<'a>(p: &Packet<'a>) -> Option<Req<'a>> {
    cm(p).and_then(|c| c.req())
}

/// A value REQ and REP both carry, from whichever the packet holds.
fn req_or_rep<'a, T>(
    p: &Packet<'a>,
    of_req: impl FnOnce(Req<'a>) -> T,
    of_rep: impl FnOnce(Rep<'a>) -> T,
) -> Option<T> {
    let cm = cm(p)?;
    cm.req().map(of_req).or_else(|| cm.rep().map(of_rep))
}

/// The CM message, when it is `msg`: Wireshark names CM fields per message.
fn cm_of<'a>(p: &Packet<'a>, msg: CmMsg) -> Option<Cm<'a>> {
    cm(p).filter(|c| c.msg() == msg)
}
