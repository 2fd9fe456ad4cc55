//! Wireshark's display-filter names for what rdmadump decodes, so that a filter copied from
//! Wireshark runs unchanged. Most are another name for an rdmadump field (`ALIASES`); those
//! whose value differs from every rdmadump field (a different bit range, byte order or
//! scope) are fields of their own (`FIELDS`). Each was checked against tshark 4.0.17.

use std::net::IpAddr;

use super::fields::{Each, Field, Type, Value, cm_of};
use crate::dissect::{IpHeader, Packet};
use crate::wire::ipv6::Ipv6Header;
use crate::wire::mad::cm::CmMsg;

/// Wireshark name → rdmadump name, where the values are the same.
pub static ALIASES: &[(&str, &str)] = &[
    ("frame.number", "frame"),
    ("frame.len", "frame_len"),
    ("frame.cap_len", "caplen"),
    ("frame.time_epoch", "ts"),
    ("frame.time_relative", "time_relative"),
    ("frame.time_delta", "time_delta"),
    ("vlan", "eth.vlan"),
    ("vlan.id", "eth.vlan.id"),
    ("vlan.priority", "eth.vlan.pcp"),
    ("vlan.dei", "eth.vlan.dei"),
    ("ip.len", "ip.total_len"),
    ("ip.dsfield.dscp", "ip.dscp"),
    ("ip.dsfield.ecn", "ip.ecn"),
    ("udp.srcport", "udp.sport"),
    ("udp.dstport", "udp.dport"),
    ("udp.length", "udp.len"),
    ("tcp.srcport", "tcp.sport"),
    ("tcp.dstport", "tcp.dport"),
    ("arp.opcode", "arp.op"),
    ("arp.src.proto_ipv4", "arp.sender_ip"),
    ("arp.dst.proto_ipv4", "arp.target_ip"),
    ("infiniband.lrh", "lrh"),
    ("infiniband.lrh.vl", "lrh.vl"),
    ("infiniband.lrh.lver", "lrh.lver"),
    ("infiniband.lrh.sl", "lrh.sl"),
    ("infiniband.lrh.lnh", "lrh.lnh"),
    ("infiniband.lrh.dlid", "lrh.dlid"),
    ("infiniband.lrh.pktlen", "lrh.pktlen"),
    ("infiniband.lrh.slid", "lrh.slid"),
    ("infiniband.grh", "grh"),
    ("infiniband.grh.ipver", "grh.ipver"),
    ("infiniband.grh.tclass", "grh.tclass"),
    ("infiniband.grh.flowlabel", "grh.flow_label"),
    ("infiniband.grh.paylen", "grh.paylen"),
    ("infiniband.grh.nxthdr", "grh.nxthdr"),
    ("infiniband.grh.hoplmt", "grh.hoplmt"),
    ("infiniband.grh.sgid", "grh.sgid"),
    ("infiniband.grh.dgid", "grh.dgid"),
    ("infiniband.bth", "bth"),
    ("infiniband.bth.opcode", "bth.opcode"),
    ("infiniband.bth.se", "bth.se"),
    ("infiniband.bth.m", "bth.migreq"),
    ("infiniband.bth.padcnt", "bth.pad"),
    ("infiniband.bth.tver", "bth.tver"),
    ("infiniband.bth.p_key", "bth.pkey"),
    ("infiniband.bth.destqp", "bth.dest_qp"),
    ("infiniband.bth.a", "bth.ack_req"),
    ("infiniband.bth.psn", "bth.psn"),
    ("infiniband.rdeth", "rdeth"),
    ("infiniband.rdeth.eecnxt", "rdeth.eecnxt"),
    ("infiniband.deth", "deth"),
    ("infiniband.deth.q_key", "deth.qkey"),
    ("infiniband.deth.srcqp", "deth.src_qp"),
    ("infiniband.reth", "reth"),
    ("infiniband.reth.dmalen", "reth.dma_len"),
    ("infiniband.atomiceth", "atomic_eth"),
    ("infiniband.atomiceth.swapdt", "atomic_eth.swap"),
    ("infiniband.atomiceth.cmpdt", "atomic_eth.compare"),
    ("infiniband.aeth", "aeth"),
    ("infiniband.aeth.syndrome", "aeth.syndrome"),
    ("infiniband.aeth.msn", "aeth.msn"),
    ("infiniband.atomicacketh", "atomic_ack_eth"),
    ("infiniband.atomicacketh.origremdt", "atomic_ack_eth.orig"),
    ("infiniband.immdt", "immdt"),
    ("infiniband.ieth", "ieth"),
    ("infiniband.mad.baseversion", "mad.base_version"),
    ("infiniband.mad.mgmtclass", "mad.class"),
    ("infiniband.mad.classversion", "mad.class_version"),
    ("infiniband.mad.method", "mad.method"),
    ("infiniband.mad.status", "mad.status"),
    ("infiniband.mad.transactionid", "mad.tid"),
    ("infiniband.mad.attributeid", "mad.attr_id"),
    ("infiniband.mad.attributemodifier", "mad.attr_mod"),
    ("macc.pause_time", "pause.quanta"),
    ("macc.cbfc.enbv", "pfc.class_enable"),
];

/// rdmadump names Wireshark spells the same way, with the same values (for IPv4 frames, in
/// the `ip.*` case: rdmadump's `ip.*` also covers IPv6).
pub static SAME_NAME: &[&str] = &[
    "eth.src",
    "eth.dst",
    "eth.addr",
    "eth.type",
    "ip.version",
    "ip.src",
    "ip.dst",
    "ip.addr",
    "ip.ttl",
    "ip.proto",
    "udp.port",
    "udp.checksum",
    "tcp.port",
    "icmp.type",
    "icmp.code",
];

macro_rules! ipv6 {
    ($name:literal, $about:literal, $ty:expr, |$h:ident| $e:expr) => {
        Field {
            name: $name,
            ty: $ty,
            get: |p| v6(p).map(|$h| $e),
            each: None,
            description: $about,
        }
    };
}

macro_rules! cm_field {
    ($name:literal, $msg:ident, $about:literal, |$c:ident| $e:expr) => {
        int!($name, $about, |p| cm_of(p, CmMsg::$msg).and_then(|$c| $e))
    };
}

/// PFC class `$n`'s enable bit and pause time.
macro_rules! pfc_class {
    ($enable:literal, $time:literal, $n:literal) => {
        [
            Field {
                name: $enable,
                ty: Type::Bool,
                get: |p| p.pfc.map(|f| Value::Bool(f.enabled($n))),
                each: None,
                description: "PFC class-enable bit of this class",
            },
            int!($time, "PFC pause quanta of this class", |p| p
                .pfc
                .map(|f| f.quanta()[$n])),
        ]
    };
}

fn v6<'a>(p: &Packet<'a>) -> Option<Ipv6Header<'a>> {
    match p.ip {
        Some(IpHeader::V6(h)) => Some(h),
        _ => None,
    }
}

/// ICMP carried by IPv6: Wireshark's icmpv6, where rdmadump's icmp.* cover both versions.
fn icmpv6<'a>(p: &Packet<'a>) -> Option<crate::wire::icmp::IcmpHeader<'a>> {
    match (p.upper, v6(p)) {
        (Some(crate::dissect::Upper::Icmp(i)), Some(_)) => Some(i),
        _ => None,
    }
}

fn syndrome_field(p: &Packet<'_>, class: u8) -> Option<u8> {
    p.aeth
        .filter(|a| (a.syndrome() >> 5) & 3 == class)
        .map(|a| a.code())
}

pub static FIELDS: &[Field] = &[
    // Wireshark's AtomicETH shares the RETH's names for its address and key.
    int!(
        "infiniband.reth.va",
        "virtual address of the RETH, or of the AtomicETH",
        |p| p
            .reth
            .map(|h| h.va())
            .or_else(|| p.atomic_eth.map(|h| h.va()))
    ),
    int!(
        "infiniband.reth.r_key",
        "remote key of the RETH, or of the AtomicETH",
        |p| p
            .reth
            .map(|h| h.rkey())
            .or_else(|| p.atomic_eth.map(|h| h.rkey()))
    ),
    int!(
        "infiniband.aeth.syndrome.opcode",
        "AETH syndrome class bits (0 ACK, 1 RNR NAK, 3 NAK)",
        |p| p.aeth.map(|a| (a.syndrome() >> 5) & 3)
    ),
    int!(
        "infiniband.aeth.syndrome.credit_count",
        "AETH credit count code of an ACK",
        |p| syndrome_field(p, 0)
    ),
    int!(
        "infiniband.aeth.syndrome.timer",
        "AETH timer code of an RNR NAK",
        |p| syndrome_field(p, 1)
    ),
    int!(
        "infiniband.aeth.syndrome.reserved_value",
        "AETH low bits of a reserved syndrome",
        |p| syndrome_field(p, 2)
    ),
    int!(
        "infiniband.aeth.syndrome.error_code",
        "AETH NAK code",
        |p| syndrome_field(p, 3)
    ),
    int!(
        "infiniband.invariant.crc",
        "ICRC as Wireshark shows it: the stored bytes read most-significant first",
        |p| p.icrc.and_then(|c| c.stored).map(u32::swap_bytes)
    ),
    int!(
        "infiniband.variant.crc",
        "VCRC as Wireshark shows it: the stored bytes read most-significant first",
        |p| p
            .vcrc
            .and_then(|c| c.stored)
            .map(|v| (v as u16).swap_bytes())
    ),
    cm_field!(
        "infiniband.cm.req",
        Req,
        "CM REQ local communication ID",
        |c| c.local_comm_id()
    ),
    cm_field!(
        "infiniband.cm.req.serviceid",
        Req,
        "CM REQ service ID",
        |c| c.service_id()
    ),
    cm_field!("infiniband.cm.req.localqpn", Req, "CM REQ local QPN", |c| c
        .local_qpn()),
    cm_field!(
        "infiniband.cm.req.startpsn",
        Req,
        "CM REQ starting PSN",
        |c| c.starting_psn()
    ),
    cm_field!(
        "infiniband.cm.rep",
        Rep,
        "CM REP local communication ID",
        |c| c.local_comm_id()
    ),
    cm_field!(
        "infiniband.cm.rep.remotecommid",
        Rep,
        "CM REP remote communication ID",
        |c| c.remote_comm_id()
    ),
    cm_field!("infiniband.cm.rep.localqpn", Rep, "CM REP local QPN", |c| c
        .local_qpn()),
    cm_field!(
        "infiniband.cm.rep.startpsn",
        Rep,
        "CM REP starting PSN",
        |c| c.starting_psn()
    ),
    cm_field!(
        "infiniband.cm.rtu.localcommid",
        Rtu,
        "CM RTU local communication ID",
        |c| c.local_comm_id()
    ),
    cm_field!(
        "infiniband.cm.rtu.remotecommid",
        Rtu,
        "CM RTU remote communication ID",
        |c| c.remote_comm_id()
    ),
    cm_field!(
        "infiniband.cm.rej.localcommid",
        Rej,
        "CM REJ local communication ID",
        |c| c.local_comm_id()
    ),
    cm_field!(
        "infiniband.cm.rej.remotecommid",
        Rej,
        "CM REJ remote communication ID",
        |c| c.remote_comm_id()
    ),
    cm_field!("infiniband.cm.rej.reason", Rej, "CM REJ reason", |c| c
        .reject_reason()),
    cm_field!(
        "infiniband.cm.dreq.localcommid",
        Dreq,
        "CM DREQ local communication ID",
        |c| c.local_comm_id()
    ),
    cm_field!(
        "infiniband.cm.dreq.remotecommid",
        Dreq,
        "CM DREQ remote communication ID",
        |c| c.remote_comm_id()
    ),
    cm_field!(
        "infiniband.cm.req.remoteqpneecn",
        Dreq,
        "CM DREQ remote QPN",
        |c| c.remote_qpn()
    ),
    cm_field!(
        "infiniband.cm.drsp.localcommid",
        Drep,
        "CM DREP local communication ID",
        |c| c.local_comm_id()
    ),
    cm_field!(
        "infiniband.cm.drsp.remotecommid",
        Drep,
        "CM DREP remote communication ID",
        |c| c.remote_comm_id()
    ),
    int!(
        "macc.opcode",
        "MAC Control opcode: 0x0001 PAUSE, 0x0101 PFC",
        |p| {
            if p.pfc.is_some() {
                Some(crate::wire::mac_control::OPCODE_PFC)
            } else {
                p.pause.map(|_| crate::wire::mac_control::OPCODE_PAUSE)
            }
        }
    ),
    Field {
        name: "ipv6",
        ty: Type::Bool,
        get: |p| v6(p).map(|_| Value::Bool(true)),
        each: None,
        description: "has an IPv6 header",
    },
    ipv6!("ipv6.version", "IPv6 version", Type::Int, |h| Value::Int(
        u64::from(h.version())
    )),
    ipv6!("ipv6.src", "IPv6 source address", Type::Ip, |h| Value::Ip(
        IpAddr::V6(h.src())
    )),
    ipv6!("ipv6.dst", "IPv6 destination address", Type::Ip, |h| {
        Value::Ip(IpAddr::V6(h.dst()))
    }),
    Field {
        name: "ipv6.addr",
        ty: Type::Ip,
        get: |p| v6(p).map(|h| Value::Ip(IpAddr::V6(h.src()))),
        each: Some(Each {
            get: |p, i| {
                v6(p).and_then(|h| match i {
                    0 => Some(Value::Ip(IpAddr::V6(h.src()))),
                    1 => Some(Value::Ip(IpAddr::V6(h.dst()))),
                    _ => None,
                })
            },
            max: 2,
        }),
        description: "either IPv6 address, source or destination",
    },
    ipv6!("ipv6.tclass", "IPv6 traffic class", Type::Int, |h| {
        Value::Int(u64::from(h.traffic_class()))
    }),
    ipv6!("ipv6.tclass.dscp", "IPv6 DSCP", Type::Int, |h| Value::Int(
        u64::from(h.traffic_class() >> 2)
    )),
    ipv6!("ipv6.tclass.ecn", "IPv6 ECN", Type::Int, |h| Value::Int(
        u64::from(h.traffic_class() & 3)
    )),
    ipv6!("ipv6.flow", "IPv6 flow label", Type::Int, |h| Value::Int(
        u64::from(h.flow_label())
    )),
    ipv6!("ipv6.plen", "IPv6 payload length", Type::Int, |h| {
        Value::Int(u64::from(h.payload_len()))
    }),
    ipv6!("ipv6.nxt", "IPv6 next header", Type::Int, |h| Value::Int(
        u64::from(h.next_header())
    )),
    ipv6!("ipv6.hlim", "IPv6 hop limit", Type::Int, |h| Value::Int(
        u64::from(h.hop_limit())
    )),
    int!("icmpv6.type", "ICMPv6 type", |p| icmpv6(p)
        .map(|i| i.icmp_type())),
    int!("icmpv6.code", "ICMPv6 code", |p| icmpv6(p)
        .map(|i| i.code())),
];

/// The eight PFC classes, under Wireshark's per-class names.
pub static PFC_CLASSES: [[Field; 2]; 8] = [
    pfc_class!("macc.cbfc.enbv.c0", "macc.cbfc.pause_time.c0", 0),
    pfc_class!("macc.cbfc.enbv.c1", "macc.cbfc.pause_time.c1", 1),
    pfc_class!("macc.cbfc.enbv.c2", "macc.cbfc.pause_time.c2", 2),
    pfc_class!("macc.cbfc.enbv.c3", "macc.cbfc.pause_time.c3", 3),
    pfc_class!("macc.cbfc.enbv.c4", "macc.cbfc.pause_time.c4", 4),
    pfc_class!("macc.cbfc.enbv.c5", "macc.cbfc.pause_time.c5", 5),
    pfc_class!("macc.cbfc.enbv.c6", "macc.cbfc.pause_time.c6", 6),
    pfc_class!("macc.cbfc.enbv.c7", "macc.cbfc.pause_time.c7", 7),
];

/// Names Wireshark has for things rdmadump does not decode, with the nearest field rdmadump
/// has; any other unresolved name of a protocol Wireshark and rdmadump share gets the
/// nearest name by spelling.
pub static NOT_DECODED: &[(&str, &str)] = &[
    ("infiniband.payload", "payload_len"),
    ("infiniband.bth.reserved7", "bth.ack_req"),
    ("infiniband.lrh.reserved2", "lrh.lnh"),
    ("infiniband.lrh.reserved5", "lrh.pktlen"),
    ("frame.time_delta_displayed", "ts"),
    ("frame.time", "ts"),
    ("frame.protocols", "kind"),
    ("ip.id", "ip"),
    ("ip.flags", "ip"),
    ("ip.frag_offset", "ip"),
    ("ip.checksum", "ip"),
    ("ip.hdr_len", "ip.total_len"),
    ("ip.dsfield", "ip.dscp"),
    ("tcp.seq", "tcp.sport"),
    ("tcp.flags", "tcp"),
    ("data", "payload_len"),
];

/// The Wireshark protocol prefixes rdmadump shares, for "not decoded" rather than
/// "unknown field".
pub const PROTOCOLS: &[&str] = &[
    "frame",
    "eth",
    "vlan",
    "ip",
    "ipv6",
    "udp",
    "tcp",
    "icmp",
    "icmpv6",
    "arp",
    "macc",
    "infiniband",
    "erf",
    "sll",
    "gre",
    "erspan",
    "vxlan",
];
