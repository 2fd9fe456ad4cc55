//! The fields a filter can name: the dotted paths of `read --json`, each with a typed
//! accessor so that evaluation formats nothing and allocates nothing, and a one-line
//! description for `rdmadump fields`. Wireshark's names for them are in `wireshark.rs`.

use std::net::IpAddr;

use crate::dissect::{Packet, Upper};
use crate::wire::aeth::{self, Syndrome};
use crate::wire::mad::MadHeader;
use crate::wire::mad::cm::{Cm, CmMsg, IpCm};
use crate::wire::mad::names;
use crate::wire::mad::sa::PathRecord;
use crate::wire::mad::smp::{MAX_HOPS, NodeInfo, PortInfo, SmInfo, SmpAttr, SmpBody};
use crate::wire::opcode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    Int(u64),
    Bool(bool),
    Str(&'static str),
    Ip(IpAddr),
    Mac([u8; 6]),
    /// A capture time in nanoseconds since the Unix epoch.
    Time(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Str,
    Ip,
    Mac,
    Time,
}

impl Type {
    /// The name `rdmadump fields` shows.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int => "int",
            Type::Bool => "bool",
            Type::Str => "string",
            Type::Ip => "ip",
            Type::Mac => "mac",
            Type::Time => "time",
        }
    }
}

pub type Accessor = fn(&Packet<'_>) -> Option<Value>;

/// The value in element `i` of a field that occurs several times in a frame, if there is one.
pub type ElementAccessor = fn(&Packet<'_>, usize) -> Option<Value>;

/// Occurrences a repeated field has at most in one frame, unless it says otherwise: the
/// eight PFC classes are the most (tunnels stop at four, either-direction fields at two).
/// A directed route's paths have up to 63 hops ([`MAX_HOPS`]).
pub const MAX_ELEMENTS: usize = 8;

/// Hops a directed route's paths hold at most.
const DR_HOPS: usize = MAX_HOPS as usize;

/// A field that occurs several times in a frame.
#[derive(Clone, Copy)]
pub struct Each {
    /// Occurrence `i`, if the frame has it.
    pub get: ElementAccessor,
    /// How many occurrences a frame can hold: asking beyond finds none. Every reader of the
    /// field (filters, `-e`, the export) asks for this many, so none drops the last ones.
    pub max: usize,
}

impl Each {
    /// Every occurrence the frame has, in order.
    pub fn values<'p>(&self, pkt: &'p Packet<'_>) -> impl DoubleEndedIterator<Item = Value> + 'p {
        let get = self.get;
        (0..self.max).filter_map(move |i| get(pkt, i))
    }
}

pub struct Field {
    pub name: &'static str,
    pub ty: Type,
    /// For a field that occurs several times, the first occurrence: what a presence test
    /// sees and what a single-valued printer shows.
    pub get: Accessor,
    /// For a field that occurs several times (tunnels, VLAN tags, PFC classes, both ends of
    /// `ip.addr`): a comparison holds when it holds for any occurrence, as in Wireshark.
    pub each: Option<Each>,
    /// One line for `rdmadump fields`.
    pub description: &'static str,
}

macro_rules! int {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Int,
            get: |$p| $e.map(|v| Value::Int(u64::from(v))),
            each: None,
            description: $about,
        }
    };
}
macro_rules! boolean {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Bool,
            get: |$p| $e.map(Value::Bool),
            each: None,
            description: $about,
        }
    };
}
macro_rules! string {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Str,
            get: |$p| $e.map(Value::Str),
            each: None,
            description: $about,
        }
    };
}
macro_rules! ip {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Ip,
            get: |$p| $e.map(|a| Value::Ip(IpAddr::from(a))),
            each: None,
            description: $about,
        }
    };
}
/// A header's presence: absent, not false, when the frame lacks it, so that Wireshark's
/// bare-name test (present) and rdmadump's (present and set) agree.
macro_rules! header {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field {
            name: $name,
            ty: Type::Bool,
            get: |$p| $e.then_some(Value::Bool(true)),
            each: None,
            description: $about,
        }
    };
}

/// A field that occurs several times: `$e` gives occurrence `$i` of packet `$p`, of at most
/// `$max` ([`MAX_ELEMENTS`] unless given).
macro_rules! each {
    ($name:literal, $ty:expr, $about:literal, |$p:ident, $i:ident| $e:expr, $wrap:expr) => {
        each!($name, $ty, $about, |$p, $i| $e, $wrap, MAX_ELEMENTS)
    };
    ($name:literal, $ty:expr, $about:literal, |$p:ident, $i:ident| $e:expr, $wrap:expr, $max:expr) => {
        Field {
            name: $name,
            ty: $ty,
            get: |$p| (0..$max).find_map(|$i| $e).map($wrap),
            each: Some(Each {
                get: |$p, $i| $e.map($wrap),
                max: $max,
            }),
            description: $about,
        }
    };
}

/// A field of every tunnel entry: `$e` gives it from the entry `$t`.
macro_rules! per_tunnel {
    ($name:literal, $ty:expr, $about:literal, |$t:ident| $e:expr, $wrap:expr) => {
        each!(
            $name,
            $ty,
            $about,
            |p, i| p.tunnels.get(i).and_then(|$t| $e),
            $wrap
        )
    };
}

fn int<T: Into<u64>>(v: T) -> Value {
    Value::Int(v.into())
}

fn ip<T: Into<IpAddr>>(v: T) -> Value {
    Value::Ip(v.into())
}

/// Either end of a frame: occurrence 0 is the source, 1 the destination.
fn either<T>(
    i: usize,
    src: impl FnOnce() -> Option<T>,
    dst: impl FnOnce() -> Option<T>,
) -> Option<T> {
    match i {
        0 => src(),
        1 => dst(),
        _ => None,
    }
}

pub static FIELDS: &[Field] = &[
    int!(
        "frame",
        "frame number, 1-based per file (frame.number)",
        |p| Some(p.frame)
    ),
    int!(
        "frame_len",
        "frame length on the wire in bytes (JSON `len`)",
        |p| Some(p.len)
    ),
    int!("len", "the same as frame_len; kept for old filters", |p| {
        Some(p.len)
    }),
    int!(
        "caplen",
        "bytes captured; less than frame_len when the snaplen cut the frame",
        |p| Some(p.caplen)
    ),
    Field {
        name: "ts",
        ty: Type::Time,
        get: |p| p.ts_ns.map(Value::Time),
        each: None,
        description: "capture time, seconds since the epoch (compare with 1700000000.5)",
    },
    Field {
        name: "time_relative",
        ty: Type::Time,
        // A frame before the first one in time (an unordered capture) reads 0.
        get: |p| {
            p.ts_ns
                .map(|_| Value::Time(u64::try_from(p.clock.relative_ns).unwrap_or(0)))
        },
        each: None,
        description: "seconds since the first frame of the inputs, in the order they are read",
    },
    Field {
        name: "time_delta",
        ty: Type::Time,
        get: |p| {
            p.ts_ns
                .map(|_| Value::Time(u64::try_from(p.clock.delta_ns).unwrap_or(0)))
        },
        each: None,
        description: "seconds since the frame read before (0 when the capture goes back in time)",
    },
    int!(
        "ts_ns",
        "capture time, integer nanoseconds since the epoch",
        |p| p.ts_ns
    ),
    int!("linktype", "pcap link type of the record", |p| Some(
        p.linktype
    )),
    int!("iface", "pcapng interface id", |p| Some(p.iface)),
    string!(
        "kind",
        "roce_v1, roce_v2, ib, pfc, pause, other, malformed; also cnp (BTH opcode 0x81)",
        |p| Some(p.kind.name())
    ),
    int!("erf.type", "ERF record type", |p| p
        .erf
        .map(|e| e.record_type)),
    int!("erf.wlen", "ERF wire length", |p| p.erf.map(|e| e.wlen)),
    int!(
        "sll.version",
        "Linux cooked capture version (1 or 2)",
        |p| p.sll.map(|s| s.version)
    ),
    int!("sll.pkttype", "Linux cooked capture packet type", |p| p
        .sll
        .map(|s| s.packet_type)),
    int!("sll.hatype", "Linux cooked capture ARPHRD type", |p| p
        .sll
        .map(|s| s.hatype)),
    int!("sll.protocol", "Linux cooked capture protocol", |p| p
        .sll
        .map(|s| s.protocol)),
    Field {
        name: "eth.src",
        ty: Type::Mac,
        get: |p| p.eth.map(|e| Value::Mac(e.src().0)),
        each: None,
        description: "Ethernet source MAC",
    },
    Field {
        name: "eth.dst",
        ty: Type::Mac,
        get: |p| p.eth.map(|e| Value::Mac(e.dst().0)),
        each: None,
        description: "Ethernet destination MAC",
    },
    each!(
        "eth.addr",
        Type::Mac,
        "either Ethernet MAC, source or destination",
        |p, i| p
            .eth
            .and_then(|e| either(i, || Some(e.src().0), || Some(e.dst().0))),
        Value::Mac
    ),
    int!("eth.type", "the first EtherType or VLAN TPID", |p| p
        .eth
        .map(|e| e.ethertype())),
    header!("eth.vlan", "the frame has a VLAN tag", |p| !p
        .vlans
        .is_empty()),
    each!(
        "eth.vlan.id",
        Type::Int,
        "VLAN ID of any tag",
        |p, i| p.vlans.iter().nth(i).map(|t| t.vid()),
        int
    ),
    each!(
        "eth.vlan.pcp",
        Type::Int,
        "VLAN priority (PCP) of any tag",
        |p, i| p.vlans.iter().nth(i).map(|t| t.pcp()),
        int
    ),
    each!(
        "eth.vlan.dei",
        Type::Int,
        "VLAN drop eligible bit of any tag, 0 or 1",
        |p, i| p.vlans.iter().nth(i).map(|t| u8::from(t.dei())),
        int
    ),
    int!("ip.version", "IP version, 4 or 6", |p| p
        .ip
        .map(|i| i.version())),
    ip!("ip.src", "IP source address (IPv4 or IPv6)", |p| p
        .ip
        .map(|i| i.src())),
    ip!("ip.dst", "IP destination address (IPv4 or IPv6)", |p| p
        .ip
        .map(|i| i.dst())),
    each!(
        "ip.addr",
        Type::Ip,
        "either IP address, source or destination",
        |p, i| p
            .ip
            .and_then(|h| either(i, || Some(h.src()), || Some(h.dst()))),
        Value::Ip
    ),
    int!(
        "ip.dscp",
        "DSCP: the top six bits of the IPv4 DS field or IPv6 traffic class",
        |p| p.ip.map(|i| i.dscp())
    ),
    int!("ip.ecn", "ECN: 3 is Congestion Experienced", |p| p
        .ip
        .map(|i| i.ecn())),
    int!("ip.ttl", "IPv4 TTL or IPv6 hop limit", |p| p
        .ip
        .map(|i| i.ttl())),
    int!("ip.proto", "IPv4 protocol or IPv6 next header", |p| p
        .ip
        .map(|i| match i {
            crate::dissect::IpHeader::V4(h) => h.protocol(),
            crate::dissect::IpHeader::V6(h) => h.next_header(),
        })),
    int!("ip.total_len", "IPv4 total length", |p| match p.ip {
        Some(crate::dissect::IpHeader::V4(h)) => Some(h.total_len()),
        _ => None,
    }),
    int!("ip.flow_label", "IPv6 flow label", |p| match p.ip {
        Some(crate::dissect::IpHeader::V6(h)) => Some(h.flow_label()),
        _ => None,
    }),
    int!("ip.payload_len", "IPv6 payload length", |p| match p.ip {
        Some(crate::dissect::IpHeader::V6(h)) => Some(h.payload_len()),
        _ => None,
    }),
    int!("udp.sport", "UDP source port", |p| p
        .udp
        .map(|u| u.src_port())),
    int!("udp.dport", "UDP destination port", |p| p
        .udp
        .map(|u| u.dst_port())),
    each!(
        "udp.port",
        Type::Int,
        "either UDP port, source or destination",
        |p, i| p
            .udp
            .and_then(|u| either(i, || Some(u.src_port()), || Some(u.dst_port()))),
        int
    ),
    int!("udp.len", "UDP length", |p| p.udp.map(|u| u.length())),
    int!("udp.checksum", "UDP checksum", |p| p
        .udp
        .map(|u| u.checksum())),
    int!("ipoib.ethertype", "IPoIB encapsulation EtherType", |p| p
        .ipoib
        .map(|h| h.ethertype())),
    int!(
        "arp.op",
        "ARP operation (1 request, 2 reply)",
        |p| match &p.upper {
            Some(Upper::Arp(a)) => Some(a.header.op()),
            _ => None,
        }
    ),
    ip!(
        "arp.sender_ip",
        "ARP sender IPv4 address",
        |p| match &p.upper {
            Some(Upper::Arp(a)) => a.ips().map(|(sender, _)| sender),
            _ => None,
        }
    ),
    ip!(
        "arp.target_ip",
        "ARP target IPv4 address",
        |p| match &p.upper {
            Some(Upper::Arp(a)) => a.ips().map(|(_, target)| target),
            _ => None,
        }
    ),
    int!("tcp.sport", "TCP source port", |p| match &p.upper {
        Some(Upper::Tcp(t)) => Some(t.src_port()),
        _ => None,
    }),
    int!("tcp.dport", "TCP destination port", |p| match &p.upper {
        Some(Upper::Tcp(t)) => Some(t.dst_port()),
        _ => None,
    }),
    each!(
        "tcp.port",
        Type::Int,
        "either TCP port, source or destination",
        |p, i| match &p.upper {
            Some(Upper::Tcp(t)) => either(i, || Some(t.src_port()), || Some(t.dst_port())),
            _ => None,
        },
        int
    ),
    int!("icmp.type", "ICMP or ICMPv6 type", |p| match &p.upper {
        Some(Upper::Icmp(i)) => Some(i.icmp_type()),
        _ => None,
    }),
    int!("icmp.code", "ICMP or ICMPv6 code", |p| match &p.upper {
        Some(Upper::Icmp(i)) => Some(i.code()),
        _ => None,
    }),
    int!("lrh.vl", "LRH virtual lane", |p| p.lrh.map(|l| l.vl())),
    int!("lrh.lver", "LRH link version", |p| p.lrh.map(|l| l.lver())),
    int!("lrh.sl", "LRH service level", |p| p.lrh.map(|l| l.sl())),
    int!("lrh.lnh", "LRH link next header (2 BTH, 3 GRH)", |p| p
        .lrh
        .map(|l| l.lnh())),
    int!("lrh.dlid", "LRH destination LID", |p| p
        .lrh
        .map(|l| l.dlid())),
    int!("lrh.pktlen", "LRH packet length in 4-byte words", |p| p
        .lrh
        .map(|l| l.pktlen())),
    int!("lrh.slid", "LRH source LID", |p| p.lrh.map(|l| l.slid())),
    each!(
        "lrh.lid",
        Type::Int,
        "either LID, source or destination",
        |p, i| p
            .lrh
            .and_then(|l| either(i, || Some(l.slid()), || Some(l.dlid()))),
        int
    ),
    int!("grh.ipver", "GRH IP version", |p| p.grh.map(|g| g.ipver())),
    int!("grh.tclass", "GRH traffic class", |p| p
        .grh
        .map(|g| g.tclass())),
    int!("grh.flow_label", "GRH flow label", |p| p
        .grh
        .map(|g| g.flow_label())),
    int!("grh.paylen", "GRH payload length", |p| p
        .grh
        .map(|g| g.paylen())),
    int!("grh.nxthdr", "GRH next header (0x1b: BTH)", |p| p
        .grh
        .map(|g| g.nxthdr())),
    int!("grh.hoplmt", "GRH hop limit", |p| p.grh.map(|g| g.hoplmt())),
    ip!("grh.sgid", "GRH source GID (IPv6 form)", |p| p
        .grh
        .map(|g| g.sgid())),
    ip!("grh.dgid", "GRH destination GID (IPv6 form)", |p| p
        .grh
        .map(|g| g.dgid())),
    int!("bth.opcode", "BTH opcode (0x81: CNP)", |p| p
        .bth
        .map(|b| b.opcode())),
    string!(
        "bth.opcode_name",
        "BTH opcode name, e.g. RC_SEND_ONLY, CNP",
        |p| p.bth.map(|b| opcode::info(b.opcode()).name)
    ),
    boolean!("bth.se", "BTH solicited event", |p| p
        .bth
        .map(|b| b.solicited_event())),
    boolean!("bth.migreq", "BTH migration request", |p| p
        .bth
        .map(|b| b.migreq())),
    int!("bth.pad", "BTH pad count", |p| p.bth.map(|b| b.pad_count())),
    int!("bth.tver", "BTH transport header version", |p| p
        .bth
        .map(|b| b.tver())),
    int!("bth.pkey", "BTH partition key", |p| p.bth.map(|b| b.pkey())),
    boolean!(
        "bth.fecn",
        "BTH forward explicit congestion notification",
        |p| p.bth.map(|b| b.fecn())
    ),
    boolean!(
        "bth.becn",
        "BTH backward explicit congestion notification",
        |p| p.bth.map(|b| b.becn())
    ),
    int!("bth.dest_qp", "BTH destination QP", |p| p
        .bth
        .map(|b| b.dest_qp())),
    boolean!("bth.ack_req", "BTH acknowledge request", |p| p
        .bth
        .map(|b| b.ack_req())),
    int!("bth.psn", "BTH packet sequence number", |p| p
        .bth
        .map(|b| b.psn())),
    each!(
        "qp",
        Type::Int,
        "either QP: the BTH destination QP, or the DETH source QP",
        |p, i| either(
            i,
            || p.bth.map(|b| b.dest_qp()),
            || p.deth.map(|d| d.src_qp())
        ),
        int
    ),
    int!("rdeth.eecnxt", "RDETH end-to-end context", |p| p
        .rdeth
        .map(|h| h.eecnxt())),
    int!("deth.qkey", "DETH queue key", |p| p.deth.map(|h| h.qkey())),
    int!("deth.src_qp", "DETH source QP", |p| p
        .deth
        .map(|h| h.src_qp())),
    int!("xrceth.xrcsrq", "XRCETH XRC shared receive queue", |p| p
        .xrceth
        .map(|h| h.xrcsrq())),
    int!("feth", "FLUSH extended header word", |p| p.feth),
    int!("reth.va", "RETH virtual address", |p| p
        .reth
        .map(|h| h.va())),
    int!("reth.rkey", "RETH remote key", |p| p.reth.map(|h| h.rkey())),
    int!("reth.dma_len", "RETH DMA length", |p| p
        .reth
        .map(|h| h.dma_len())),
    int!("atomic_eth.va", "AtomicETH virtual address", |p| p
        .atomic_eth
        .map(|h| h.va())),
    int!("atomic_eth.rkey", "AtomicETH remote key", |p| p
        .atomic_eth
        .map(|h| h.rkey())),
    int!("atomic_eth.swap", "AtomicETH swap (or add) data", |p| p
        .atomic_eth
        .map(|h| h.swap())),
    int!("atomic_eth.compare", "AtomicETH compare data", |p| p
        .atomic_eth
        .map(|h| h.compare())),
    int!("aeth.syndrome", "AETH syndrome byte", |p| p
        .aeth
        .map(|h| h.syndrome())),
    string!(
        "aeth.kind",
        "AETH class: ack, rnr_nak, nak, reserved",
        |p| p.aeth.map(|h| h.decode().kind_name())
    ),
    int!(
        "aeth.code",
        "AETH low five bits: credit count, RNR timer or NAK code",
        |p| p.aeth.map(|h| h.code())
    ),
    int!("aeth.msn", "AETH message sequence number", |p| p
        .aeth
        .map(|h| h.msn())),
    int!(
        "aeth.credits",
        "receive credits an ACK's credit code stands for",
        |p| p.aeth.and_then(|h| match h.decode() {
            Syndrome::Ack { credit_code } => aeth::credits(credit_code),
            _ => None,
        })
    ),
    int!(
        "aeth.rnr_timer_us",
        "RNR NAK back-off in microseconds",
        |p| p.aeth.and_then(|h| {
            match h.decode() {
                Syndrome::RnrNak { timer } => Some(aeth::rnr_timer_us(timer)),
                _ => None,
            }
        })
    ),
    string!("aeth.nak", "NAK code name, e.g. psn_sequence_error", |p| p
        .aeth
        .and_then(|h| match h.decode() {
            Syndrome::Nak(code) => Some(code.name()),
            _ => None,
        })),
    int!(
        "atomic_ack_eth.orig",
        "AtomicAckETH original remote data",
        |p| p.atomic_ack_eth.map(|h| h.orig())
    ),
    int!(
        "immdt",
        "immediate data, the big-endian word on the wire",
        |p| p.immdt.map(|h| h.value())
    ),
    int!("ieth", "IETH: the R_Key to invalidate", |p| p
        .ieth
        .map(|h| h.rkey())),
    int!(
        "payload_len",
        "payload bytes after the transport headers, pad and ICRC excluded",
        |p| p.payload_len
    ),
    int!("pfc.class_enable", "PFC class-enable vector", |p| p
        .pfc
        .map(|f| f.class_enable())),
    each!(
        "pfc.quanta",
        Type::Int,
        "PFC pause quanta of any class (compare one class with macc.cbfc.pause_time.cN)",
        |p, i| p.pfc.and_then(|f| f.quanta().get(i).copied()),
        int
    ),
    int!("pause.quanta", "PAUSE quanta", |p| p
        .pause
        .map(|f| f.quanta())),
    string!("icrc.status", "ok, bad or unverifiable", |p| p
        .icrc
        .map(|c| c.status.name())),
    int!(
        "icrc.value",
        "ICRC as stored, read least-significant byte first",
        |p| p.icrc.and_then(|c| c.stored)
    ),
    int!("icrc.computed", "ICRC computed over the packet", |p| p
        .icrc
        .and_then(|c| c.computed)),
    string!("vcrc.status", "ok, bad or unverifiable", |p| p
        .vcrc
        .map(|c| c.status.name())),
    int!(
        "vcrc.value",
        "VCRC as stored, read least-significant byte first",
        |p| p.vcrc.and_then(|c| c.stored)
    ),
    int!("vcrc.computed", "VCRC computed over the packet", |p| p
        .vcrc
        .and_then(|c| c.computed)),
    string!(
        "error.layer",
        "the layer a malformed frame failed at",
        |p| p.error.map(|e| e.layer.name())
    ),
    int!(
        "error.offset",
        "where a malformed frame failed, bytes from the frame start",
        |p| p.error.map(|e| e.offset as u64)
    ),
    string!("truncated.layer", "the layer the snaplen cut", |p| p
        .truncated
        .map(|e| e.layer.name())),
    int!(
        "truncated.offset",
        "where the snaplen cut, bytes from the frame start",
        |p| p.truncated.map(|e| e.offset as u64)
    ),
    int!("mad.base_version", "MAD base version", |p| p
        .mad
        .map(|m| m.header.base_version())),
    int!("mad.class", "MAD management class", |p| p
        .mad
        .map(|m| m.header.mgmt_class())),
    int!("mad.class_version", "MAD class version", |p| p
        .mad
        .map(|m| m.header.class_version())),
    string!("mad.class_name", "MAD class name, e.g. SubnAdm, CM", |p| p
        .mad
        .map(|m| names::class_name(m.header.mgmt_class()))),
    int!("mad.method", "MAD method, response bit included", |p| p
        .mad
        .map(|m| m.header.method())),
    string!(
        "mad.method_name",
        "MAD method name, e.g. Get, GetResp",
        |p| p.mad.map(|m| names::method_name(m.header.method()))
    ),
    int!("mad.status", "MAD status", |p| p
        .mad
        .map(|m| m.header.status())),
    int!("mad.tid", "MAD transaction ID", |p| p
        .mad
        .map(|m| m.header.tid())),
    int!("mad.attr_id", "MAD attribute ID", |p| p
        .mad
        .map(|m| m.header.attr_id())),
    string!(
        "mad.attr_name",
        "MAD attribute name, e.g. PathRecord",
        |p| p
            .mad
            .map(|m| names::attr_name(m.header.mgmt_class(), m.header.attr_id()))
    ),
    int!("mad.attr_mod", "MAD attribute modifier", |p| p
        .mad
        .map(|m| m.header.attr_mod())),
    boolean!(
        "mad.dr.d",
        "directed-route SMP D bit: true on the way back",
        |p| dr(p).map(|h| h.direction())
    ),
    int!(
        "mad.dr.hop_pointer",
        "directed-route SMP hop pointer",
        |p| dr(p).map(|h| h.hop_pointer())
    ),
    int!("mad.dr.hop_count", "directed-route SMP hop count", |p| dr(
        p
    )
    .map(|h| h.hop_count())),
    int!(
        "mad.dr.dr_slid",
        "directed-route SMP DrSLID (where the return path starts)",
        |p| dr_smp(p).map(|s| s.dr_slid())
    ),
    each!(
        "mad.dr.initial_path",
        Type::Int,
        "directed-route SMP initial path: the output port at each hop, 1 to hop_count",
        |p, i| dr_hop(p, i, |s| s.initial_path()),
        int,
        DR_HOPS
    ),
    each!(
        "mad.dr.return_path",
        Type::Int,
        "directed-route SMP return path: the input port at each hop, 1 to hop_count",
        |p, i| dr_hop(p, i, |s| s.return_path()),
        int,
        DR_HOPS
    ),
    int!("mad.dr.dr_dlid", "directed-route SMP DrDLID", |p| dr_smp(p)
        .map(|s| s.dr_dlid())),
    int!("mad.m_key", "SMP management key", |p| p
        .mad
        .and_then(|m| m.smp())
        .map(|s| s.m_key())),
    int!(
        "mad.node_info.base_version",
        "NodeInfo MAD base version the node supports",
        |p| node_info(p).map(|n| n.base_version())
    ),
    int!(
        "mad.node_info.class_version",
        "NodeInfo SMP class version the node supports",
        |p| node_info(p).map(|n| n.class_version())
    ),
    int!(
        "mad.node_info.node_type",
        "NodeInfo node type: 1 CA, 2 switch, 3 router",
        |p| node_info(p).map(|n| n.node_type())
    ),
    int!(
        "mad.node_info.num_ports",
        "NodeInfo number of physical ports",
        |p| node_info(p).map(|n| n.num_ports())
    ),
    int!(
        "mad.node_info.system_image_guid",
        "NodeInfo system image GUID",
        |p| node_info(p).map(|n| n.system_image_guid())
    ),
    int!("mad.node_info.node_guid", "NodeInfo node GUID", |p| {
        node_info(p).map(|n| n.node_guid())
    }),
    int!(
        "mad.node_info.port_guid",
        "NodeInfo GUID of the port the SMP came in on",
        |p| node_info(p).map(|n| n.port_guid())
    ),
    int!(
        "mad.node_info.partition_cap",
        "NodeInfo partition table entries per port",
        |p| node_info(p).map(|n| n.partition_cap())
    ),
    int!("mad.node_info.device_id", "NodeInfo device ID", |p| {
        node_info(p).map(|n| n.device_id())
    }),
    int!("mad.node_info.revision", "NodeInfo device revision", |p| {
        node_info(p).map(|n| n.revision())
    }),
    int!(
        "mad.node_info.local_port_num",
        "NodeInfo local port number: the port the SMP came in on",
        |p| node_info(p).map(|n| n.local_port_num())
    ),
    int!("mad.node_info.vendor_id", "NodeInfo vendor OUI", |p| {
        node_info(p).map(|n| n.vendor_id())
    }),
    int!("mad.port_info.m_key", "PortInfo management key", |p| {
        port_info(p).map(|i| i.m_key())
    }),
    int!("mad.port_info.gid_prefix", "PortInfo GID prefix", |p| {
        port_info(p).map(|i| i.gid_prefix())
    }),
    int!("mad.port_info.lid", "PortInfo base LID", |p| port_info(p)
        .map(|i| i.lid())),
    int!(
        "mad.port_info.master_sm_lid",
        "PortInfo master SM LID",
        |p| port_info(p).map(|i| i.master_sm_lid())
    ),
    int!(
        "mad.port_info.capability_mask",
        "PortInfo capability mask",
        |p| port_info(p).map(|i| i.capability_mask())
    ),
    int!(
        "mad.port_info.local_port_num",
        "PortInfo local port number",
        |p| port_info(p).map(|i| i.local_port_num())
    ),
    int!(
        "mad.port_info.link_width_active",
        "PortInfo active link width",
        |p| port_info(p).map(|i| i.link_width_active())
    ),
    int!(
        "mad.port_info.link_speed_active",
        "PortInfo active link speed",
        |p| port_info(p).map(|i| i.link_speed_active())
    ),
    int!(
        "mad.port_info.port_state",
        "PortInfo port state: 1 down, 2 init, 3 armed, 4 active",
        |p| port_info(p).map(|i| i.port_state())
    ),
    int!(
        "mad.port_info.port_phys_state",
        "PortInfo physical port state",
        |p| port_info(p).map(|i| i.port_phys_state())
    ),
    int!("mad.port_info.lmc", "PortInfo LID mask control", |p| {
        port_info(p).map(|i| i.lmc())
    }),
    int!(
        "mad.port_info.neighbor_mtu",
        "PortInfo neighbor MTU code",
        |p| port_info(p).map(|i| i.neighbor_mtu())
    ),
    int!(
        "mad.port_info.master_sm_sl",
        "PortInfo master SM service level",
        |p| port_info(p).map(|i| i.master_sm_sl())
    ),
    int!(
        "mad.port_info.mtu_cap",
        "PortInfo MTU capability code",
        |p| port_info(p).map(|i| i.mtu_cap())
    ),
    int!("mad.sm_info.guid", "SMInfo GUID of the SM", |p| sm_info(p)
        .map(|i| i.guid())),
    int!("mad.sm_info.sm_key", "SMInfo SM key", |p| sm_info(p)
        .map(|i| i.sm_key())),
    int!("mad.sm_info.act_count", "SMInfo activity counter", |p| {
        sm_info(p).map(|i| i.act_count())
    }),
    int!("mad.sm_info.priority", "SMInfo priority", |p| sm_info(p)
        .map(|i| i.priority())),
    int!("mad.sm_info.sm_state", "SMInfo SM state", |p| sm_info(p)
        .map(|i| i.sm_state())),
    int!("mad.sa.rmpp_type", "SubnAdm RMPP type", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.rmpp_type())),
    int!("mad.sa.rmpp_flags", "SubnAdm RMPP flags", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.rmpp_flags())),
    int!("mad.sa.rmpp_status", "SubnAdm RMPP status", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.rmpp_status())),
    int!("mad.sa.sm_key", "SubnAdm SM key", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.sm_key())),
    int!(
        "mad.sa.attr_offset",
        "SubnAdm attribute offset, in 8-byte words",
        |p| p.mad.and_then(|m| m.sa()).map(|s| s.attr_offset())
    ),
    int!(
        "mad.sa.component_mask",
        "SubnAdm component mask: which record fields the query sets",
        |p| p.mad.and_then(|m| m.sa()).map(|s| s.component_mask())
    ),
    ip!(
        "mad.path_record.dgid",
        "PathRecord destination GID (the first record)",
        |p| path_record(p).map(|r| r.dgid())
    ),
    ip!(
        "mad.path_record.sgid",
        "PathRecord source GID (the first record)",
        |p| path_record(p).map(|r| r.sgid())
    ),
    int!(
        "mad.path_record.dlid",
        "PathRecord destination LID (the first record)",
        |p| path_record(p).map(|r| r.dlid())
    ),
    int!(
        "mad.path_record.slid",
        "PathRecord source LID (the first record)",
        |p| path_record(p).map(|r| r.slid())
    ),
    boolean!(
        "mad.path_record.raw_traffic",
        "PathRecord raw traffic bit (the first record)",
        |p| path_record(p).map(|r| r.raw_traffic())
    ),
    int!(
        "mad.path_record.flow_label",
        "PathRecord flow label (the first record)",
        |p| path_record(p).map(|r| r.flow_label())
    ),
    int!(
        "mad.path_record.hop_limit",
        "PathRecord hop limit (the first record)",
        |p| path_record(p).map(|r| r.hop_limit())
    ),
    int!(
        "mad.path_record.tclass",
        "PathRecord traffic class (the first record)",
        |p| path_record(p).map(|r| r.tclass())
    ),
    boolean!(
        "mad.path_record.reversible",
        "PathRecord reversible bit (the first record)",
        |p| path_record(p).map(|r| r.reversible())
    ),
    int!(
        "mad.path_record.num_path",
        "PathRecord number of paths asked for (the first record)",
        |p| path_record(p).map(|r| r.num_path())
    ),
    int!(
        "mad.path_record.pkey",
        "PathRecord partition key (the first record)",
        |p| path_record(p).map(|r| r.pkey())
    ),
    int!(
        "mad.path_record.sl",
        "PathRecord service level (the first record)",
        |p| path_record(p).map(|r| r.sl())
    ),
    int!(
        "mad.path_record.mtu_selector",
        "PathRecord MTU selector (the first record)",
        |p| path_record(p).map(|r| r.mtu_selector())
    ),
    int!(
        "mad.path_record.mtu",
        "PathRecord MTU code (the first record)",
        |p| path_record(p).map(|r| r.mtu())
    ),
    int!(
        "mad.path_record.mtu_bytes",
        "PathRecord MTU in bytes; absent for a reserved code (the first record)",
        |p| path_record(p).and_then(|r| names::mtu_bytes(r.mtu()))
    ),
    int!(
        "mad.path_record.rate_selector",
        "PathRecord rate selector (the first record)",
        |p| path_record(p).map(|r| r.rate_selector())
    ),
    int!(
        "mad.path_record.rate",
        "PathRecord rate code (the first record)",
        |p| path_record(p).map(|r| r.rate())
    ),
    int!(
        "mad.path_record.packet_lifetime_selector",
        "PathRecord packet lifetime selector (the first record)",
        |p| path_record(p).map(|r| r.packet_lifetime_selector())
    ),
    int!(
        "mad.path_record.packet_lifetime",
        "PathRecord packet lifetime (the first record)",
        |p| path_record(p).map(|r| r.packet_lifetime())
    ),
    int!(
        "mad.path_record.preference",
        "PathRecord preference (the first record)",
        |p| path_record(p).map(|r| r.preference())
    ),
    int!(
        "mad.port_counters.port_select",
        "PortCounters port the counters are of",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.port_select())
    ),
    int!(
        "mad.port_counters.counter_select",
        "PortCounters counters to clear (Set)",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.counter_select())
    ),
    int!(
        "mad.port_counters.symbol_errors",
        "PortCounters symbol errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.symbol_errors())
    ),
    int!(
        "mad.port_counters.link_error_recovery",
        "PortCounters link error recoveries",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.link_error_recovery())
    ),
    int!(
        "mad.port_counters.link_downed",
        "PortCounters link downed count",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.link_downed())
    ),
    int!(
        "mad.port_counters.rcv_errors",
        "PortCounters receive errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_errors())
    ),
    int!(
        "mad.port_counters.rcv_remote_physical_errors",
        "PortCounters remote physical errors received",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_remote_physical_errors())
    ),
    int!(
        "mad.port_counters.rcv_switch_relay_errors",
        "PortCounters switch relay errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_switch_relay_errors())
    ),
    int!(
        "mad.port_counters.xmit_discards",
        "PortCounters transmit discards",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.xmit_discards())
    ),
    int!(
        "mad.port_counters.xmit_constraint_errors",
        "PortCounters transmit constraint errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.xmit_constraint_errors())
    ),
    int!(
        "mad.port_counters.rcv_constraint_errors",
        "PortCounters receive constraint errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_constraint_errors())
    ),
    int!(
        "mad.port_counters.local_link_integrity_errors",
        "PortCounters local link integrity errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.local_link_integrity_errors())
    ),
    int!(
        "mad.port_counters.excessive_buffer_overrun_errors",
        "PortCounters excessive buffer overrun errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.excessive_buffer_overrun_errors())
    ),
    int!(
        "mad.port_counters.vl15_dropped",
        "PortCounters VL15 packets dropped",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.vl15_dropped())
    ),
    int!(
        "mad.port_counters.xmit_data",
        "PortCounters data transmitted, in 4-byte words",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.xmit_data())
    ),
    int!(
        "mad.port_counters.rcv_data",
        "PortCounters data received, in 4-byte words",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.rcv_data())
    ),
    int!(
        "mad.port_counters.xmit_pkts",
        "PortCounters packets transmitted",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.xmit_pkts())
    ),
    int!(
        "mad.port_counters.rcv_pkts",
        "PortCounters packets received",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.rcv_pkts())
    ),
    int!(
        "mad.port_counters.xmit_wait",
        "PortCounters ticks waiting to transmit",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.xmit_wait())
    ),
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
        .and_then(|c| c.service_id())),
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
    }),
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
    per_tunnel!(
        "tunnel.src_mac",
        Type::Mac,
        "outer source MAC of any tunnel",
        |t| t.eth.map(|e| e.src().0),
        Value::Mac
    ),
    per_tunnel!(
        "tunnel.dst_mac",
        Type::Mac,
        "outer destination MAC of any tunnel",
        |t| t.eth.map(|e| e.dst().0),
        Value::Mac
    ),
    per_tunnel!(
        "tunnel.eth_vlan.id",
        Type::Int,
        "outer VLAN ID of any tunnel",
        |t| t.vlan.map(|v| v.vid()),
        int
    ),
    per_tunnel!(
        "tunnel.eth_vlan.pcp",
        Type::Int,
        "outer VLAN priority of any tunnel",
        |t| t.vlan.map(|v| v.pcp()),
        int
    ),
    per_tunnel!(
        "tunnel.checksum",
        Type::Int,
        "GRE checksum of any tunnel",
        |t| t.encap.gre().and_then(|g| g.checksum()),
        int
    ),
    per_tunnel!(
        "tunnel.type",
        Type::Str,
        "tunnel type of any tunnel: gre, erspan, vxlan",
        |t| Some(t.encap.name()),
        Value::Str
    ),
    per_tunnel!(
        "tunnel.src",
        Type::Ip,
        "outer IP source of any tunnel",
        |t| Some(t.ip.src()),
        ip
    ),
    per_tunnel!(
        "tunnel.dst",
        Type::Ip,
        "outer IP destination of any tunnel",
        |t| Some(t.ip.dst()),
        ip
    ),
    per_tunnel!(
        "tunnel.proto",
        Type::Int,
        "GRE protocol type of any tunnel",
        |t| t.encap.gre().map(|g| g.header.protocol()),
        int
    ),
    per_tunnel!(
        "tunnel.key",
        Type::Int,
        "GRE key of any tunnel",
        |t| t.encap.gre().and_then(|g| g.key()),
        int
    ),
    per_tunnel!(
        "tunnel.seq",
        Type::Int,
        "GRE sequence number of any tunnel",
        |t| t.encap.gre().and_then(|g| g.sequence()),
        int
    ),
    per_tunnel!(
        "tunnel.version",
        Type::Int,
        "ERSPAN version of any tunnel",
        |t| t.encap.erspan_version(),
        int
    ),
    per_tunnel!(
        "tunnel.session_id",
        Type::Int,
        "ERSPAN session ID of any tunnel",
        |t| t.encap.erspan_session_id(),
        int
    ),
    per_tunnel!(
        "tunnel.vlan",
        Type::Int,
        "ERSPAN VLAN of any tunnel",
        |t| t.encap.erspan_vlan(),
        int
    ),
    per_tunnel!(
        "tunnel.vni",
        Type::Int,
        "VXLAN network identifier of any tunnel",
        |t| t.encap.vni(),
        int
    ),
    per_tunnel!(
        "tunnel.cos",
        Type::Int,
        "ERSPAN class of service of any tunnel",
        |t| t.encap.erspan_cos(),
        int
    ),
    per_tunnel!(
        "tunnel.index",
        Type::Int,
        "ERSPAN type II index (the mirrored port) of any tunnel",
        |t| t.encap.erspan_index(),
        int
    ),
    per_tunnel!(
        "tunnel.direction",
        Type::Str,
        "ERSPAN type III direction of any tunnel: ingress, egress",
        |t| t.encap.erspan_direction(),
        Value::Str
    ),
    per_tunnel!(
        "tunnel.timestamp",
        Type::Int,
        "ERSPAN type III timestamp of any tunnel",
        |t| t.encap.erspan_timestamp(),
        int
    ),
    per_tunnel!(
        "tunnel.hw_id",
        Type::Int,
        "ERSPAN type III hardware ID of any tunnel",
        |t| t.encap.erspan_hw_id(),
        int
    ),
    per_tunnel!(
        "tunnel.platform_id",
        Type::Int,
        "ERSPAN type III platform ID of any tunnel, when the platform subheader is there",
        |t| t.encap.erspan_platform_id(),
        int
    ),
    per_tunnel!(
        "tunnel.sport",
        Type::Int,
        "VXLAN outer UDP source port of any tunnel",
        |t| t.encap.vxlan_udp().map(|u| u.src_port()),
        int
    ),
    per_tunnel!(
        "tunnel.dport",
        Type::Int,
        "VXLAN outer UDP destination port of any tunnel",
        |t| t.encap.vxlan_udp().map(|u| u.dst_port()),
        int
    ),
    per_tunnel!(
        "tunnel.flags",
        Type::Int,
        "VXLAN flags byte of any tunnel",
        |t| t.encap.vxlan_flags(),
        int
    ),
    boolean!(
        "tunnel_too_deep",
        "a tunnel nested deeper than 4 was left undecoded",
        |p| Some(p.tunnels.too_deep)
    ),
    // Header presence, for filters such as `reth && !immdt`.
    header!("tunnel", "the frame was found in a tunnel", |p| !p
        .tunnels
        .is_empty()),
    header!("eth", "has an Ethernet header", |p| p.eth.is_some()),
    header!("ip", "has an IP header", |p| p.ip.is_some()),
    header!("udp", "has a UDP header", |p| p.udp.is_some()),
    header!("ipoib", "is IP over InfiniBand", |p| p.ipoib.is_some()),
    header!("arp", "is ARP", |p| matches!(p.upper, Some(Upper::Arp(_)))),
    header!("tcp", "is TCP", |p| matches!(p.upper, Some(Upper::Tcp(_)))),
    header!("icmp", "is ICMP or ICMPv6", |p| matches!(
        p.upper,
        Some(Upper::Icmp(_))
    )),
    header!("lrh", "has an LRH (native InfiniBand)", |p| p.lrh.is_some()),
    header!("grh", "has a GRH", |p| p.grh.is_some()),
    header!("bth", "has a BTH", |p| p.bth.is_some()),
    header!("rdeth", "has an RDETH", |p| p.rdeth.is_some()),
    header!("deth", "has a DETH", |p| p.deth.is_some()),
    header!("xrceth", "has an XRCETH", |p| p.xrceth.is_some()),
    header!("reth", "has a RETH", |p| p.reth.is_some()),
    header!("atomic_eth", "has an AtomicETH", |p| p.atomic_eth.is_some()),
    header!("aeth", "has an AETH", |p| p.aeth.is_some()),
    header!("atomic_ack_eth", "has an AtomicAckETH", |p| p
        .atomic_ack_eth
        .is_some()),
    header!("pfc", "is a PFC frame", |p| p.pfc.is_some()),
    header!("pause", "is a PAUSE frame", |p| p.pause.is_some()),
    header!("icrc", "has an ICRC", |p| p.icrc.is_some()),
    header!("vcrc", "has a VCRC", |p| p.vcrc.is_some()),
    header!("error", "is malformed", |p| p.error.is_some()),
    header!("truncated", "was cut by the snaplen", |p| p
        .truncated
        .is_some()),
    header!("mad", "carries a MAD", |p| p.mad.is_some()),
    header!("cm", "carries a CM message", |p| cm(p).is_some()),
    header!("sll", "has a Linux cooked capture header", |p| p
        .sll
        .is_some()),
    header!("erf", "has an ERF record header", |p| p.erf.is_some()),
];

pub(crate) fn cm<'a>(p: &Packet<'a>) -> Option<Cm<'a>> {
    p.mad.and_then(|m| m.cm())
}

/// The common header of a directed-route SMP, whose hop fields need no body.
fn dr<'a>(p: &Packet<'a>) -> Option<MadHeader<'a>> {
    p.mad.map(|m| m.header).filter(|h| h.is_directed_route())
}

fn dr_smp<'a>(p: &Packet<'a>) -> Option<SmpBody<'a>> {
    p.mad
        .filter(|m| m.header.is_directed_route())
        .and_then(|m| m.smp())
}

/// Hop `i + 1` of a directed route's path: entry 0 is unused.
fn dr_hop(p: &Packet<'_>, i: usize, path: for<'b> fn(&SmpBody<'b>) -> &'b [u8; 64]) -> Option<u8> {
    let smp = dr_smp(p)?;
    let hops = usize::from(p.mad?.header.hop_count());
    if i >= hops {
        return None;
    }
    path(&smp).get(i + 1).copied()
}

fn node_info<'a>(p: &Packet<'a>) -> Option<NodeInfo<'a>> {
    match p.mad?.smp_attr()? {
        SmpAttr::NodeInfo(n) => Some(n),
        _ => None,
    }
}

fn port_info<'a>(p: &Packet<'a>) -> Option<PortInfo<'a>> {
    match p.mad?.smp_attr()? {
        SmpAttr::PortInfo(i) => Some(i),
        _ => None,
    }
}

fn sm_info<'a>(p: &Packet<'a>) -> Option<SmInfo<'a>> {
    match p.mad?.smp_attr()? {
        SmpAttr::SmInfo(i) => Some(i),
        _ => None,
    }
}

fn path_record<'a>(p: &Packet<'a>) -> Option<PathRecord<'a>> {
    p.mad.and_then(|m| m.path_record())
}

fn ip_cm<'a>(p: &Packet<'a>) -> Option<(u8, u16, IpCm<'a>)> {
    cm(p).and_then(|c| c.ip_cm())
}

fn req<'a>(p: &Packet<'a>) -> Option<crate::wire::mad::cm::Req<'a>> {
    cm(p).and_then(|c| c.req())
}

/// A value REQ and REP both carry, from whichever the packet holds.
fn req_or_rep<'a, T>(
    p: &Packet<'a>,
    of_req: impl FnOnce(crate::wire::mad::cm::Req<'a>) -> T,
    of_rep: impl FnOnce(crate::wire::mad::cm::Rep<'a>) -> T,
) -> Option<T> {
    let cm = cm(p)?;
    cm.req().map(of_req).or_else(|| cm.rep().map(of_rep))
}

/// The CM message, when it is `msg`: Wireshark names CM fields per message.
pub(crate) fn cm_of<'a>(p: &Packet<'a>, msg: CmMsg) -> Option<Cm<'a>> {
    cm(p).filter(|c| c.msg() == msg)
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A field by its rdmadump name or its Wireshark name.
pub fn find(name: &str) -> Option<&'static Field> {
    super::names::resolve(name).map(|(field, _)| field)
}

/// A field by its rdmadump name only.
pub fn own(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}
