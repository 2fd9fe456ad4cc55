//! The fields a filter can name: the dotted paths of `read --json`, each with a typed
//! accessor so that evaluation formats nothing and allocates nothing.

use std::net::IpAddr;

use crate::dissect::{Packet, Upper};
use crate::wire::aeth::{self, Syndrome};
use crate::wire::mad::cm::Cm;
use crate::wire::mad::names;
use crate::wire::opcode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Int(u64),
    Bool(bool),
    Str(&'static str),
    Ip(IpAddr),
    Mac([u8; 6]),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Str,
    Ip,
    Mac,
}

pub type Accessor = fn(&Packet<'_>) -> Option<Value>;

/// The value in element `i` of a list the packet holds (the tunnels), if there is one.
pub type ElementAccessor = fn(&Packet<'_>, usize) -> Option<Value>;

/// Elements an [`ElementAccessor`] is asked for.
pub const MAX_ELEMENTS: usize = crate::dissect::MAX_TUNNELS;

pub struct Field {
    pub name: &'static str,
    pub ty: Type,
    /// For a list field, the first element that has the field: what a presence test sees.
    pub get: Accessor,
    /// For a list field: a comparison holds when it holds for any element, as in Wireshark.
    pub each: Option<ElementAccessor>,
}

macro_rules! int {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Int,
            get: |$p| $e.map(|v| Value::Int(u64::from(v))),
            each: None,
        }
    };
}
macro_rules! boolean {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Bool,
            get: |$p| $e.map(Value::Bool),
            each: None,
        }
    };
}
macro_rules! string {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Str,
            get: |$p| $e.map(Value::Str),
            each: None,
        }
    };
}
macro_rules! ip {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Ip,
            get: |$p| $e.map(|a| Value::Ip(IpAddr::from(a))),
            each: None,
        }
    };
}

/// A field of every tunnel entry: `$e` gives it from the entry `$t`, `$wrap` makes it a value.
macro_rules! per_tunnel {
    ($name:literal, $ty:expr, |$t:ident| $e:expr, $wrap:expr) => {
        Field {
            name: $name,
            ty: $ty,
            get: |p| p.tunnels.iter().find_map(|$t| $e).map($wrap),
            each: Some(|p, i| p.tunnels.get(i).and_then(|$t| $e).map($wrap)),
        }
    };
}

fn int<T: Into<u64>>(v: T) -> Value {
    Value::Int(v.into())
}

pub static FIELDS: &[Field] = &[
    int!("frame", |p| Some(p.frame)),
    int!("len", |p| Some(p.len)),
    int!("caplen", |p| Some(p.caplen)),
    int!("linktype", |p| Some(p.linktype)),
    int!("iface", |p| Some(p.iface)),
    string!("kind", |p| Some(p.kind.name())),
    Field {
        name: "eth.src",
        ty: Type::Mac,
        get: |p| p.eth.map(|e| Value::Mac(e.src().0)),
        each: None,
    },
    Field {
        name: "eth.dst",
        ty: Type::Mac,
        get: |p| p.eth.map(|e| Value::Mac(e.dst().0)),
        each: None,
    },
    int!("eth.type", |p| p.eth.map(|e| e.ethertype())),
    int!("eth.vlan.id", |p| p.vlans.iter().next().map(|t| t.vid())),
    int!("eth.vlan.pcp", |p| p.vlans.iter().next().map(|t| t.pcp())),
    int!("eth.vlan.dei", |p| p
        .vlans
        .iter()
        .next()
        .map(|t| u8::from(t.dei()))),
    int!("ip.version", |p| p.ip.map(|i| i.version())),
    ip!("ip.src", |p| p.ip.map(|i| i.src())),
    ip!("ip.dst", |p| p.ip.map(|i| i.dst())),
    int!("ip.dscp", |p| p.ip.map(|i| i.dscp())),
    int!("ip.ecn", |p| p.ip.map(|i| i.ecn())),
    int!("ip.ttl", |p| p.ip.map(|i| i.ttl())),
    int!("udp.sport", |p| p.udp.map(|u| u.src_port())),
    int!("udp.dport", |p| p.udp.map(|u| u.dst_port())),
    int!("udp.len", |p| p.udp.map(|u| u.length())),
    int!("ipoib.ethertype", |p| p.ipoib.map(|h| h.ethertype())),
    int!("arp.op", |p| match &p.upper {
        Some(Upper::Arp(a)) => Some(a.header.op()),
        _ => None,
    }),
    ip!("arp.sender_ip", |p| match &p.upper {
        Some(Upper::Arp(a)) => a.ips().map(|(sender, _)| sender),
        _ => None,
    }),
    ip!("arp.target_ip", |p| match &p.upper {
        Some(Upper::Arp(a)) => a.ips().map(|(_, target)| target),
        _ => None,
    }),
    int!("tcp.sport", |p| match &p.upper {
        Some(Upper::Tcp(t)) => Some(t.src_port()),
        _ => None,
    }),
    int!("tcp.dport", |p| match &p.upper {
        Some(Upper::Tcp(t)) => Some(t.dst_port()),
        _ => None,
    }),
    int!("icmp.type", |p| match &p.upper {
        Some(Upper::Icmp(i)) => Some(i.icmp_type()),
        _ => None,
    }),
    int!("icmp.code", |p| match &p.upper {
        Some(Upper::Icmp(i)) => Some(i.code()),
        _ => None,
    }),
    int!("lrh.vl", |p| p.lrh.map(|l| l.vl())),
    int!("lrh.lver", |p| p.lrh.map(|l| l.lver())),
    int!("lrh.sl", |p| p.lrh.map(|l| l.sl())),
    int!("lrh.lnh", |p| p.lrh.map(|l| l.lnh())),
    int!("lrh.dlid", |p| p.lrh.map(|l| l.dlid())),
    int!("lrh.pktlen", |p| p.lrh.map(|l| l.pktlen())),
    int!("lrh.slid", |p| p.lrh.map(|l| l.slid())),
    int!("grh.ipver", |p| p.grh.map(|g| g.ipver())),
    int!("grh.tclass", |p| p.grh.map(|g| g.tclass())),
    int!("grh.flow_label", |p| p.grh.map(|g| g.flow_label())),
    int!("grh.paylen", |p| p.grh.map(|g| g.paylen())),
    int!("grh.nxthdr", |p| p.grh.map(|g| g.nxthdr())),
    int!("grh.hoplmt", |p| p.grh.map(|g| g.hoplmt())),
    ip!("grh.sgid", |p| p.grh.map(|g| g.sgid())),
    ip!("grh.dgid", |p| p.grh.map(|g| g.dgid())),
    int!("bth.opcode", |p| p.bth.map(|b| b.opcode())),
    string!("bth.opcode_name", |p| p
        .bth
        .map(|b| opcode::info(b.opcode()).name)),
    boolean!("bth.se", |p| p.bth.map(|b| b.solicited_event())),
    boolean!("bth.migreq", |p| p.bth.map(|b| b.migreq())),
    int!("bth.pad", |p| p.bth.map(|b| b.pad_count())),
    int!("bth.tver", |p| p.bth.map(|b| b.tver())),
    int!("bth.pkey", |p| p.bth.map(|b| b.pkey())),
    boolean!("bth.fecn", |p| p.bth.map(|b| b.fecn())),
    boolean!("bth.becn", |p| p.bth.map(|b| b.becn())),
    int!("bth.dest_qp", |p| p.bth.map(|b| b.dest_qp())),
    boolean!("bth.ack_req", |p| p.bth.map(|b| b.ack_req())),
    int!("bth.psn", |p| p.bth.map(|b| b.psn())),
    int!("rdeth.eecnxt", |p| p.rdeth.map(|h| h.eecnxt())),
    int!("deth.qkey", |p| p.deth.map(|h| h.qkey())),
    int!("deth.src_qp", |p| p.deth.map(|h| h.src_qp())),
    int!("xrceth.xrcsrq", |p| p.xrceth.map(|h| h.xrcsrq())),
    int!("reth.va", |p| p.reth.map(|h| h.va())),
    int!("reth.rkey", |p| p.reth.map(|h| h.rkey())),
    int!("reth.dma_len", |p| p.reth.map(|h| h.dma_len())),
    int!("atomic_eth.va", |p| p.atomic_eth.map(|h| h.va())),
    int!("atomic_eth.rkey", |p| p.atomic_eth.map(|h| h.rkey())),
    int!("atomic_eth.swap", |p| p.atomic_eth.map(|h| h.swap())),
    int!("atomic_eth.compare", |p| p.atomic_eth.map(|h| h.compare())),
    int!("aeth.syndrome", |p| p.aeth.map(|h| h.syndrome())),
    string!("aeth.kind", |p| p.aeth.map(|h| h.decode().kind_name())),
    int!("aeth.code", |p| p.aeth.map(|h| h.code())),
    int!("aeth.msn", |p| p.aeth.map(|h| h.msn())),
    int!("aeth.credits", |p| p.aeth.and_then(|h| match h.decode() {
        Syndrome::Ack { credit_code } => aeth::credits(credit_code),
        _ => None,
    })),
    int!("aeth.rnr_timer_us", |p| p.aeth.and_then(|h| {
        match h.decode() {
            Syndrome::RnrNak { timer } => Some(aeth::rnr_timer_us(timer)),
            _ => None,
        }
    })),
    int!("atomic_ack_eth.orig", |p| p
        .atomic_ack_eth
        .map(|h| h.orig())),
    int!("immdt", |p| p.immdt.map(|h| h.value())),
    int!("ieth", |p| p.ieth.map(|h| h.rkey())),
    int!("payload_len", |p| p.payload_len),
    int!("pfc.class_enable", |p| p.pfc.map(|f| f.class_enable())),
    int!("pause.quanta", |p| p.pause.map(|f| f.quanta())),
    string!("icrc.status", |p| p.icrc.map(|c| c.status.name())),
    int!("icrc.value", |p| p.icrc.and_then(|c| c.stored)),
    string!("vcrc.status", |p| p.vcrc.map(|c| c.status.name())),
    int!("vcrc.value", |p| p.vcrc.and_then(|c| c.stored)),
    string!("error.layer", |p| p.error.map(|e| e.layer.name())),
    int!("error.offset", |p| p.error.map(|e| e.offset as u64)),
    string!("truncated.layer", |p| p.truncated.map(|e| e.layer.name())),
    int!("mad.class", |p| p.mad.map(|m| m.header.mgmt_class())),
    string!("mad.class_name", |p| p
        .mad
        .map(|m| names::class_name(m.header.mgmt_class()))),
    int!("mad.method", |p| p.mad.map(|m| m.header.method())),
    string!("mad.method_name", |p| p
        .mad
        .map(|m| names::method_name(m.header.method()))),
    int!("mad.status", |p| p.mad.map(|m| m.header.status())),
    int!("mad.tid", |p| p.mad.map(|m| m.header.tid())),
    int!("mad.attr_id", |p| p.mad.map(|m| m.header.attr_id())),
    string!("mad.attr_name", |p| p.mad.map(|m| names::attr_name(
        m.header.mgmt_class(),
        m.header.attr_id()
    ))),
    int!("mad.attr_mod", |p| p.mad.map(|m| m.header.attr_mod())),
    string!("cm.msg", |p| cm(p).map(|c| c.msg().key())),
    int!("cm.local_comm_id", |p| cm(p)
        .and_then(|c| c.local_comm_id())),
    int!("cm.remote_comm_id", |p| cm(p)
        .and_then(|c| c.remote_comm_id())),
    int!("cm.local_qpn", |p| cm(p).and_then(|c| c.local_qpn())),
    int!("cm.remote_qpn", |p| cm(p).and_then(|c| c.remote_qpn())),
    int!("cm.starting_psn", |p| cm(p).and_then(|c| c.starting_psn())),
    int!("cm.service_id", |p| cm(p).and_then(|c| c.service_id())),
    int!("cm.reason", |p| cm(p).and_then(|c| c.reject_reason())),
    per_tunnel!(
        "tunnel.type",
        Type::Str,
        |t| Some(t.encap.name()),
        Value::Str
    ),
    per_tunnel!("tunnel.src", Type::Ip, |t| Some(t.ip.src()), Value::Ip),
    per_tunnel!("tunnel.dst", Type::Ip, |t| Some(t.ip.dst()), Value::Ip),
    per_tunnel!(
        "tunnel.proto",
        Type::Int,
        |t| t.encap.gre().map(|g| g.header.protocol()),
        int
    ),
    per_tunnel!(
        "tunnel.key",
        Type::Int,
        |t| t.encap.gre().and_then(|g| g.key()),
        int
    ),
    per_tunnel!(
        "tunnel.seq",
        Type::Int,
        |t| t.encap.gre().and_then(|g| g.sequence()),
        int
    ),
    per_tunnel!(
        "tunnel.version",
        Type::Int,
        |t| t.encap.erspan_version(),
        int
    ),
    per_tunnel!(
        "tunnel.session_id",
        Type::Int,
        |t| t.encap.erspan_session_id(),
        int
    ),
    per_tunnel!("tunnel.vlan", Type::Int, |t| t.encap.erspan_vlan(), int),
    per_tunnel!("tunnel.vni", Type::Int, |t| t.encap.vni(), int),
    boolean!("tunnel_too_deep", |p| Some(p.tunnels.too_deep)),
    // Header presence, for filters such as `reth && !immdt`.
    boolean!("tunnel", |p| Some(!p.tunnels.is_empty())),
    boolean!("eth", |p| Some(p.eth.is_some())),
    boolean!("ip", |p| Some(p.ip.is_some())),
    boolean!("udp", |p| Some(p.udp.is_some())),
    boolean!("ipoib", |p| Some(p.ipoib.is_some())),
    boolean!("arp", |p| Some(matches!(p.upper, Some(Upper::Arp(_))))),
    boolean!("tcp", |p| Some(matches!(p.upper, Some(Upper::Tcp(_))))),
    boolean!("icmp", |p| Some(matches!(p.upper, Some(Upper::Icmp(_))))),
    boolean!("lrh", |p| Some(p.lrh.is_some())),
    boolean!("grh", |p| Some(p.grh.is_some())),
    boolean!("bth", |p| Some(p.bth.is_some())),
    boolean!("reth", |p| Some(p.reth.is_some())),
    boolean!("aeth", |p| Some(p.aeth.is_some())),
    boolean!("deth", |p| Some(p.deth.is_some())),
    boolean!("pfc", |p| Some(p.pfc.is_some())),
    boolean!("pause", |p| Some(p.pause.is_some())),
    boolean!("error", |p| Some(p.error.is_some())),
    boolean!("truncated", |p| Some(p.truncated.is_some())),
    boolean!("mad", |p| Some(p.mad.is_some())),
    boolean!("cm", |p| Some(cm(p).is_some())),
];

fn cm<'a>(p: &Packet<'a>) -> Option<Cm<'a>> {
    p.mad.and_then(|m| m.cm())
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

pub fn find(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}
