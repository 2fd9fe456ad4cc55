//! The fields a filter can name: the dotted paths of `read --json`, each with a typed
//! accessor so that evaluation formats nothing and allocates nothing.

use std::net::IpAddr;

use crate::dissect::{Packet, Upper};
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

pub struct Field {
    pub name: &'static str,
    pub ty: Type,
    pub get: Accessor,
}

macro_rules! int {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Int,
            get: |$p| $e.map(|v| Value::Int(u64::from(v))),
        }
    };
}
macro_rules! boolean {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Bool,
            get: |$p| $e.map(Value::Bool),
        }
    };
}
macro_rules! string {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Str,
            get: |$p| $e.map(Value::Str),
        }
    };
}
macro_rules! ip {
    ($name:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Ip,
            get: |$p| $e.map(|a| Value::Ip(IpAddr::from(a))),
        }
    };
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
    },
    Field {
        name: "eth.dst",
        ty: Type::Mac,
        get: |p| p.eth.map(|e| Value::Mac(e.dst().0)),
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
    // Header presence, for filters such as `reth && !immdt`.
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
];

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

pub fn find(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}
