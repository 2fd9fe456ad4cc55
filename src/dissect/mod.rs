//! Turns one capture record into a [`Packet`]: every header view that could be decoded, the
//! CRC verdicts, and, when decoding stopped, exactly where and why.
//!
//! A `Packet` borrows the record's bytes and allocates nothing, so the analyzer consumes it
//! directly, without parsing again.

mod bounds;
mod infiniband;
mod ip;
mod ipoib;
mod link;
mod mad;
mod parse;
pub mod scalars;
mod state;
mod transport;
mod tunnel;
mod tunnel_stack;
mod ulp;
mod upper;

pub use ipoib::looks_like_ipoib;
/// Directed-route SMP frames, for the filter's tests.
#[cfg(test)]
pub(crate) use mad::tests::{decode as decode_ib, dr_get, smp_frame};
pub use state::{
    Decoder, FrameClocks, IPOIB_QP_CAPACITY, IpoibCmState, IpoibQps, decode_with_state,
};
pub use ulp::{
    CallBody, CallLink, CommandLink, DecodeAs, DecodeTarget, IserFrame, IserMsg, Nvme, NvmeMsg,
    QueueRef, ReadWrite, RecognisedBy, RpcFrame, SessionMessage, SessionRef, SmbdFrame, SmbdMsg,
    Transfer, Ulp, UlpProto, UlpState, WAITING_PER_SESSION, command_detail, command_name,
    is_error_status, iscsi_request_name, program_name, rpc_call_name, sgl_type_name,
};

use std::net::{IpAddr, Ipv4Addr};

use crate::capture::{Record, linktype};
use crate::crc::{self, CrcCheck, IcrcPrefix};
use crate::wire::aeth::Aeth;
use crate::wire::arp::ArpHeader;
use crate::wire::atomic_ack_eth::AtomicAckEth;
use crate::wire::atomic_eth::AtomicEth;
use crate::wire::bth::Bth;
use crate::wire::deth::Deth;
use crate::wire::ethernet::{EthernetHeader, Mac, VlanTag};
use crate::wire::grh::Grh;
use crate::wire::icmp::IcmpHeader;
use crate::wire::ieth::Ieth;
use crate::wire::immdt::ImmDt;
use crate::wire::ipoib::IpoibHeader;
use crate::wire::ipv4::Ipv4Header;
use crate::wire::ipv6::Ipv6Header;
use crate::wire::lrh::Lrh;
use crate::wire::mac_control::{Pause, Pfc};
use crate::wire::rdeth::Rdeth;
use crate::wire::reth::Reth;
use crate::wire::tcp::TcpHeader;
use crate::wire::udp::{ROCE_V2_PORT, UdpHeader};
use crate::wire::xrceth::XrcEth;
use crate::wire::{DecodeError, Layer};

use bounds::{Bytes, Stop};
pub use mad::Mad;
pub use tunnel_stack::{Encap, MAX_TUNNELS, Tunnel, TunnelStack};

/// What a frame is, as the JSON `kind` key names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Kind {
    RoceV1,
    RoceV2,
    Ib,
    Pfc,
    Pause,
    #[default]
    Other,
    Malformed,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::RoceV1,
        Kind::RoceV2,
        Kind::Ib,
        Kind::Pfc,
        Kind::Pause,
        Kind::Other,
        Kind::Malformed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::RoceV1 => "roce_v1",
            Kind::RoceV2 => "roce_v2",
            Kind::Ib => "ib",
            Kind::Pfc => "pfc",
            Kind::Pause => "pause",
            Kind::Other => "other",
            Kind::Malformed => "malformed",
        }
    }
}

/// The most VLAN tags kept per frame; deeper stacks are decoded but not all tags kept.
pub const MAX_VLANS: usize = 4;

#[derive(Debug, Clone, Copy, Default)]
pub struct VlanStack<'a> {
    tags: [Option<VlanTag<'a>>; MAX_VLANS],
    len: usize,
}

impl<'a> VlanStack<'a> {
    fn push(&mut self, tag: VlanTag<'a>) {
        if let Some(slot) = self.tags.get_mut(self.len) {
            *slot = Some(tag);
            self.len += 1;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = VlanTag<'a>> + '_ {
        self.tags.iter().flatten().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The IP header of a RoCE v2 (or other IP) frame.
#[derive(Debug, Clone, Copy)]
pub enum IpHeader<'a> {
    V4(Ipv4Header<'a>),
    V6(Ipv6Header<'a>),
}

impl IpHeader<'_> {
    pub fn version(&self) -> u8 {
        match self {
            IpHeader::V4(_) => 4,
            IpHeader::V6(_) => 6,
        }
    }
    pub fn src(&self) -> IpAddr {
        match self {
            IpHeader::V4(h) => h.src().into(),
            IpHeader::V6(h) => h.src().into(),
        }
    }
    pub fn dst(&self) -> IpAddr {
        match self {
            IpHeader::V4(h) => h.dst().into(),
            IpHeader::V6(h) => h.dst().into(),
        }
    }
    pub fn dscp(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.dscp(),
            IpHeader::V6(h) => h.traffic_class() >> 2,
        }
    }
    pub fn ecn(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.ecn(),
            IpHeader::V6(h) => h.traffic_class() & 0x3,
        }
    }
    /// TTL, or the IPv6 hop limit.
    pub fn ttl(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.ttl(),
            IpHeader::V6(h) => h.hop_limit(),
        }
    }
}

/// The Linux cooked-capture header fields worth showing.
#[derive(Debug, Clone, Copy)]
pub struct Sll {
    pub version: u8,
    pub packet_type: u16,
    pub hatype: u16,
    pub protocol: u16,
    /// The link-layer address, when it is a MAC (6 bytes long): the sender's, as the
    /// cooked header keeps no destination. What PFC and PAUSE frames name their sender by.
    pub sender: Option<Mac>,
}

/// ERF record header fields worth showing.
#[derive(Debug, Clone, Copy)]
pub struct Erf {
    pub record_type: u8,
    pub wlen: u16,
}

/// The first header above IP (or the ARP packet) of a frame that is not RDMA.
#[derive(Debug, Clone, Copy)]
pub enum Upper<'a> {
    Tcp(TcpHeader<'a>),
    /// ICMP, or ICMPv6 when the IP header is version 6.
    Icmp(IcmpHeader<'a>),
    Arp(Arp<'a>),
}

/// An ARP packet: the fixed part, and the address block after it (empty when the snaplen
/// cut it). The addresses are read from the block when asked for, keeping `Packet` small.
#[derive(Debug, Clone, Copy)]
pub struct Arp<'a> {
    pub header: ArpHeader<'a>,
    pub addresses: &'a [u8],
}

impl<'a> Arp<'a> {
    /// Sender and target protocol addresses, when they are IPv4 ones.
    pub fn ips(&self) -> Option<(Ipv4Addr, Ipv4Addr)> {
        crate::wire::arp::ipv4_addresses(&self.header, self.addresses)
    }

    /// The sender's hardware address (6 bytes for Ethernet, 20 for IPoIB).
    pub fn sender_hw(&self) -> &'a [u8] {
        self.addresses
            .get(..usize::from(self.header.hardware_len()))
            .unwrap_or_default()
    }
}

/// A frame's time against the frames before it, in the order the inputs are read (merged by
/// time): Wireshark's `frame.time_relative` and `frame.time_delta`. Only a [`Decoder`],
/// which sees the frames in order, sets it; both are 0 for the first timestamped frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameClock {
    /// Since the first frame with a time.
    pub relative_ns: i64,
    /// Since the previous frame with a time; negative when the capture goes back in time.
    pub delta_ns: i64,
}

/// Every header an RDMA frame may carry, as views into the record's bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Packet<'a> {
    /// 1-based, counted per capture file as tshark counts.
    pub frame: u64,
    pub ts_ns: Option<u64>,
    pub clock: FrameClock,
    pub len: u32,
    pub caplen: u32,
    pub iface: u32,
    pub linktype: u32,
    pub kind: Kind,
    /// The record's captured bytes, for hex dumps.
    pub data: &'a [u8],

    pub erf: Option<Erf>,
    pub sll: Option<Sll>,
    /// The tunnels the frame below was found in; `eth` to `udp` then describe the inner frame.
    pub tunnels: TunnelStack<'a>,
    pub eth: Option<EthernetHeader<'a>>,
    pub vlans: VlanStack<'a>,
    pub ip: Option<IpHeader<'a>>,
    pub udp: Option<UdpHeader<'a>>,
    pub lrh: Option<Lrh<'a>>,
    pub grh: Option<Grh<'a>>,
    pub bth: Option<Bth<'a>>,
    pub rdeth: Option<Rdeth<'a>>,
    pub deth: Option<Deth<'a>>,
    pub xrceth: Option<XrcEth<'a>>,
    pub feth: Option<u32>,
    pub reth: Option<Reth<'a>>,
    pub atomic_eth: Option<AtomicEth<'a>>,
    pub aeth: Option<Aeth<'a>>,
    pub atomic_ack_eth: Option<AtomicAckEth<'a>>,
    pub immdt: Option<ImmDt<'a>>,
    pub ieth: Option<Ieth<'a>>,
    /// Payload bytes after the transport headers, pad and ICRC excluded. Known from the
    /// length fields even when the snaplen cut the payload itself.
    pub payload_len: Option<u32>,
    /// The captured part of the payload.
    pub payload: &'a [u8],
    /// The management datagram of a UD SEND_ONLY to QP0/QP1.
    pub mad: Option<Mad<'a>>,

    pub pfc: Option<Pfc<'a>>,
    pub pause: Option<Pause<'a>>,

    /// IP over InfiniBand: the header between the InfiniBand payload and the IP packet.
    pub ipoib: Option<IpoibHeader<'a>>,
    /// TCP, ICMP or ARP: what non-RDMA frames are named by.
    pub upper: Option<Upper<'a>>,
    /// What rides on RDMA (NVMe-oF...): set only by a [`Decoder`], which knows the queues.
    pub ulp: Option<Ulp<'a>>,

    pub icrc: Option<CrcCheck>,
    pub vcrc: Option<CrcCheck>,
    /// CRCs located but not yet computed (see [`CrcMode::Deferred`]).
    pub icrc_job: Option<IcrcJob<'a>>,
    pub vcrc_job: Option<VcrcJob<'a>>,

    /// Why a malformed frame could not be decoded.
    pub error: Option<DecodeError>,
    /// Where the snaplen cut a frame that is otherwise sound.
    pub truncated: Option<DecodeError>,
}

/// An ICRC whose bytes are all captured, waiting to be computed.
#[derive(Debug, Clone, Copy)]
pub struct IcrcJob<'a> {
    pub prefix: IcrcPrefix<'a>,
    /// From the BTH to the byte before the ICRC.
    pub covered: &'a [u8],
    /// The ICRC as captured (little-endian), borrowed rather than read: it ends the frame,
    /// a kilobyte past the headers on big frames, and reading it while decoding would
    /// fetch a cache line (often a page) that only the CRC computation needs.
    pub stored: &'a [u8; 4],
}

/// A VCRC whose bytes are all captured, waiting to be computed.
#[derive(Debug, Clone, Copy)]
pub struct VcrcJob<'a> {
    /// From the LRH to the byte before the VCRC.
    pub covered: &'a [u8],
    pub stored: u16,
}

impl Packet<'_> {
    /// Computes the CRCs `dissect` located; a no-op once done. The jobs are left in place:
    /// clearing them would dirty two more of the packet's cache lines on the thread that
    /// verifies, which the reading thread then fetches back to decode the next packet there.
    pub fn verify_crcs(&mut self) {
        if self.icrc.is_none()
            && let Some(job) = &self.icrc_job
        {
            self.icrc = Some(CrcCheck::compare(
                u32::from_le_bytes(*job.stored),
                crc::icrc(job.prefix, job.covered),
            ));
        }
        if self.vcrc.is_none()
            && let Some(job) = &self.vcrc_job
        {
            self.vcrc = Some(CrcCheck::compare(
                u32::from(job.stored),
                u32::from(crc::vcrc(job.covered)),
            ));
        }
    }

    /// Source address of the transport at the most specific layer present: IP, GID or LID.
    pub fn src_addr(&self) -> Option<Address> {
        if let Some(ip) = self.transport_ip() {
            Some(Address::Ip(ip.src()))
        } else if let Some(grh) = &self.grh {
            Some(Address::Gid(grh.sgid()))
        } else {
            self.lrh.map(|l| Address::Lid(l.slid()))
        }
    }

    pub fn dst_addr(&self) -> Option<Address> {
        if let Some(ip) = self.transport_ip() {
            Some(Address::Ip(ip.dst()))
        } else if let Some(grh) = &self.grh {
            Some(Address::Gid(grh.dgid()))
        } else {
            self.lrh.map(|l| Address::Lid(l.dlid()))
        }
    }

    /// ECN codepoint 3 (Congestion Experienced): a switch marked congestion. Read from the
    /// IP header, or from the GRH traffic class of RoCE v1.
    pub fn ecn_ce(&self) -> bool {
        match self.transport_ip() {
            Some(ip) => ip.ecn() == 3,
            // RoCE v1 carries ECN where IPv6 does, in the low two bits of the GRH's traffic
            // class; native InfiniBand marks congestion with the BTH's FECN instead.
            None => self.kind == Kind::RoceV1 && self.grh.is_some_and(|g| g.tclass() & 3 == 3),
        }
    }

    /// The IP header that carries the frame across the network (RoCE v2's, or a bare IP
    /// frame's), not one that IPoIB carries as InfiniBand payload: the RDMA endpoints of an
    /// IPoIB frame are its LIDs or GIDs, and its inner ECN marks no InfiniBand congestion.
    #[inline]
    fn transport_ip(&self) -> Option<&IpHeader<'_>> {
        self.ip.as_ref().filter(|_| self.ipoib.is_none())
    }
}

/// An endpoint address at whatever layer the frame offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Address {
    Ip(IpAddr),
    Gid(std::net::Ipv6Addr),
    Lid(u16),
}

impl Address {
    /// The address as one integer and which kind it is: what hashing needs, in two words.
    #[inline]
    pub fn packed(self) -> (u128, u8) {
        match self {
            Address::Ip(IpAddr::V4(ip)) => (u128::from(u32::from(ip)), 0),
            Address::Ip(IpAddr::V6(ip)) => (u128::from(ip), 1),
            Address::Gid(gid) => (u128::from(gid), 2),
            Address::Lid(lid) => (u128::from(lid), 3),
        }
    }
}

/// One write to the hasher instead of a discriminant and an address field by field, which
/// cost more than the rest of a packet's flow bookkeeping; equality still compares the
/// kind, so a collision across kinds costs a probe, never a wrong answer.
impl std::hash::Hash for Address {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let (value, kind) = self.packed();
        state.write_u128(value ^ u128::from(kind) << 120);
    }
}

/// The same text as `IpAddr`'s `Display`, through the table-driven writers: a report of
/// 10,000 connections writes 40,000 addresses, and `fmt`'s took a third of its JSON's time.
impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Address::Ip(IpAddr::V4(ip)) => {
                let mut buf = [0; 16];
                let len = scalars::ipv4(&mut buf, *ip);
                f.pad(scalars::ascii(&buf[..len]))
            }
            Address::Ip(IpAddr::V6(ip)) | Address::Gid(ip) => {
                let mut buf = [0; scalars::IPV6_MAX_LEN];
                let len = scalars::ipv6(&mut buf, *ip);
                f.pad(scalars::ascii(&buf[..len]))
            }
            Address::Lid(lid) => write!(f, "lid {lid}"),
        }
    }
}

/// When the CRCs are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrcMode {
    /// During `dissect`.
    #[default]
    Inline,
    /// Later, by [`Packet::verify_crcs`], so that a batch can be verified on several cores.
    Deferred,
}

/// Decoding choices the user makes.
#[derive(Debug, Clone, Default)]
pub struct DecodeOptions {
    /// UDP destination ports taken as RoCE v2, besides 4791.
    pub extra_roce_ports: Vec<u16>,
    pub crc: CrcMode,
    /// Upper-layer protocols forced on a QP or a CM port (`--decode`).
    pub decode_as: Vec<DecodeAs>,
}

impl DecodeOptions {
    #[inline]
    fn is_roce_port(&self, port: u16) -> bool {
        port == ROCE_V2_PORT || self.extra_roce_ports.contains(&port)
    }
}

/// Decodes one record. Never panics and never allocates; whatever is wrong with the bytes
/// ends up in `error` (malformed) or `truncated` (cut by the snaplen).
pub fn dissect<'a>(record: &Record<'a>, frame: u64, opts: &DecodeOptions) -> Packet<'a> {
    let mut pkt = Packet::default();
    dissect_into(&mut pkt, record, frame, opts);
    pkt
}

/// `dissect` into a slot the caller owns, overwriting it: a batch decodes straight into its
/// own storage instead of moving a whole `Packet`, many cache lines of it, there afterwards.
pub fn dissect_into<'a>(
    pkt: &mut Packet<'a>,
    record: &Record<'a>,
    frame: u64,
    opts: &DecodeOptions,
) {
    dissect_with(pkt, record, frame, opts, None);
}

/// `dissect_into`, knowing the connected-mode IPoIB queue pairs a [`Decoder`] learnt.
#[inline]
fn dissect_with<'a>(
    pkt: &mut Packet<'a>,
    record: &Record<'a>,
    frame: u64,
    opts: &DecodeOptions,
    ipoib_qps: Option<&IpoibQps>,
) {
    *pkt = Packet {
        frame,
        ts_ns: record.ts_ns,
        len: record.orig_len,
        caplen: record.data.len() as u32,
        iface: record.iface,
        linktype: record.linktype,
        data: record.data,
        ..Packet::default()
    };
    let wire_len = (record.orig_len as usize).max(record.data.len());
    let bytes = |outer| Bytes::new(record.data, wire_len, outer);
    let outcome = match record.linktype {
        linktype::ETHERNET => link::ethernet(pkt, bytes(Layer::Ethernet), opts),
        linktype::INFINIBAND => infiniband::native(pkt, bytes(Layer::Lrh), ipoib_qps, opts),
        linktype::ERF => link::erf(pkt, bytes(Layer::Erf), ipoib_qps, opts),
        linktype::LINUX_SLL => link::sll(pkt, bytes(Layer::Sll), opts),
        linktype::LINUX_SLL2 => link::sll2(pkt, bytes(Layer::Sll), opts),
        linktype::IPOIB => ipoib::link(pkt, bytes(Layer::Ipoib), opts),
        linktype::RAW => link::raw_ip(pkt, bytes(Layer::Ipv4), opts),
        linktype::IPV4 => ip::ipv4(pkt, bytes(Layer::Ipv4), opts),
        linktype::IPV6 => ip::ipv6(pkt, bytes(Layer::Ipv6), opts),
        _ => Ok(()),
    };
    match outcome {
        Ok(()) => {}
        Err(Stop::Truncated(at)) => pkt.truncated = Some(at),
        Err(Stop::Malformed(at)) => {
            pkt.error = Some(at);
            pkt.kind = Kind::Malformed;
        }
    }
    if opts.crc == CrcMode::Inline {
        pkt.verify_crcs();
    }
}

pub(crate) fn malformed(layer: Layer, offset: usize, why: &'static str) -> Stop {
    Stop::Malformed(DecodeError::invalid(layer, offset, why))
}
