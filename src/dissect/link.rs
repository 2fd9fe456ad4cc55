//! Link layers: Ethernet with its VLAN stack, ERF records, Linux cooked captures, and the
//! EtherType dispatch they share.

use super::bounds::{Bytes, Stop};
use super::parse::{array, header, run};
use super::state::IpoibQps;
use super::{DecodeOptions, Erf, Kind, Packet, Sll, infiniband, ip, malformed, upper};
use crate::wire::Layer;
use crate::wire::ethernet::{EthernetHeader, Mac, VlanTag, ethertype};
use crate::wire::mac_control::{MacControlOpcode, OPCODE_PAUSE, OPCODE_PFC, Pause, Pfc};

/// More stacked tags than any real network uses; beyond it the frame is called malformed.
const MAX_VLAN_DEPTH: usize = 8;

#[inline]
pub fn ethernet<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let (rest, eth) = run(header::<EthernetHeader>(Layer::Ethernet), bytes)?;
    pkt.eth = Some(eth);
    after_ethertype(pkt, rest, eth.ethertype(), opts)
}

/// Decodes what follows an EtherType (or a cooked header's protocol field) at the cursor.
#[inline]
pub fn after_ethertype<'a>(
    pkt: &mut Packet<'a>,
    mut bytes: Bytes<'a>,
    mut ethertype: u16,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let mut depth = 0;
    while matches!(
        ethertype,
        ethertype::VLAN_8021Q | ethertype::VLAN_8021AD | ethertype::VLAN_QINQ_LEGACY
    ) {
        depth += 1;
        if depth > MAX_VLAN_DEPTH {
            return Err(malformed(
                Layer::Vlan,
                bytes.at(),
                "more than 8 stacked VLAN tags",
            ));
        }
        let (rest, tag) = run(header::<VlanTag>(Layer::Vlan), bytes)?;
        pkt.vlans.push(tag);
        ethertype = tag.ethertype();
        bytes = rest;
    }
    match ethertype {
        ethertype::IPV4 => ip::ipv4(pkt, bytes, opts),
        ethertype::IPV6 => ip::ipv6(pkt, bytes, opts),
        ethertype::ROCE_V1 => infiniband::roce_v1(pkt, bytes),
        ethertype::MAC_CONTROL => mac_control(pkt, bytes),
        ethertype::ARP => upper::arp(pkt, bytes),
        _ => Ok(()),
    }
}

fn mac_control<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>) -> Result<(), Stop> {
    // PAUSE and PFC both begin with the opcode, so each is parsed from the frame's start.
    let (_, opcode) = run(header::<MacControlOpcode>(Layer::MacControl), bytes)?;
    match opcode.opcode() {
        OPCODE_PFC => {
            pkt.kind = Kind::Pfc;
            pkt.pfc = Some(run(header::<Pfc>(Layer::MacControl), bytes)?.1);
        }
        OPCODE_PAUSE => {
            pkt.kind = Kind::Pause;
            pkt.pause = Some(run(header::<Pause>(Layer::MacControl), bytes)?.1);
        }
        _ => {}
    }
    Ok(())
}

// ERF (Endace extensible record format) as ibdump and DAG cards write it, inside pcap
// linktype 197. The 16-byte header is followed by optional 8-byte extension headers.
const ERF_HEADER_LEN: usize = 16;
const ERF_EXTENSION_LEN: usize = 8;
const ERF_TYPE_ETH: u8 = 2;
const ERF_TYPE_INFINIBAND: u8 = 21;
const ERF_TYPE_IPV4: u8 = 22;
const ERF_TYPE_IPV6: u8 = 23;
/// Link-level flow-control packets, not IBA packets: their lengths are shown, the packet
/// is not decoded.
const ERF_TYPE_INFINIBAND_LINK: u8 = 25;
const ERF_MAX_EXTENSIONS: usize = 16;

pub fn erf<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    ipoib_qps: Option<&IpoibQps>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let (mut rest, header) = run(array::<ERF_HEADER_LEN>(Layer::Erf), bytes)?;
    // 32.32 fixed point, little-endian: seconds in the high word, a binary fraction below.
    let ts = u64::from_le_bytes([
        header[0], header[1], header[2], header[3], header[4], header[5], header[6], header[7],
    ]);
    // Rounded to the nearest nanosecond, as Wireshark does.
    pkt.ts_ns =
        Some((ts >> 32) * 1_000_000_000 + (((ts & 0xffff_ffff) * 1_000_000_000 + (1 << 31)) >> 32));
    let record_type = header[8] & 0x7f;
    let rlen = usize::from(u16::from_be_bytes([header[10], header[11]]));
    let wlen = u16::from_be_bytes([header[14], header[15]]);
    pkt.erf = Some(Erf { record_type, wlen });

    let mut more = header[8] & 0x80 != 0;
    let mut extensions = 0;
    while more {
        extensions += 1;
        if extensions > ERF_MAX_EXTENSIONS {
            return Err(malformed(
                Layer::Erf,
                rest.at(),
                "too many ERF extension headers",
            ));
        }
        let (next, ext) = run(array::<ERF_EXTENSION_LEN>(Layer::Erf), rest)?;
        more = ext[0] & 0x80 != 0;
        rest = next;
    }
    let at = rest.at();
    if rlen < at {
        return Err(malformed(
            Layer::Erf,
            10,
            "ERF rlen shorter than its headers",
        ));
    }
    let (start, kind_known) = match record_type {
        // Ethernet records carry 2 bytes of offset and padding before the frame.
        ERF_TYPE_ETH => (at + 2, true),
        ERF_TYPE_INFINIBAND | ERF_TYPE_INFINIBAND_LINK | ERF_TYPE_IPV4 | ERF_TYPE_IPV6 => {
            (at, true)
        }
        _ => (at, false),
    };
    if !kind_known {
        return Ok(());
    }
    // Like Wireshark, report the lengths of the packet inside the record, not the record's.
    pkt.len = u32::from(wlen);
    pkt.caplen = bytes.captured_end().saturating_sub(start) as u32;
    // The packet's wire length is wlen; what was captured ends at rlen or at the snaplen.
    // A wlen beyond the record is a packet the capture card snapped: truncated, not
    // malformed.
    let inner = bytes.with_wire_end(start + usize::from(wlen)).seek(start);
    match record_type {
        ERF_TYPE_ETH => ethernet(pkt, inner, opts),
        ERF_TYPE_IPV4 => ip::ipv4(pkt, inner.within(Layer::Ipv4), opts),
        ERF_TYPE_IPV6 => ip::ipv6(pkt, inner.within(Layer::Ipv6), opts),
        ERF_TYPE_INFINIBAND_LINK => Ok(()),
        _ => infiniband::native(pkt, inner, ipoib_qps, opts),
    }
}

/// LINKTYPE_RAW: an IP packet of either version, told by its first nibble.
pub fn raw_ip<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let (_, first) = run(array::<1>(Layer::Ipv4), bytes)?;
    match first[0] >> 4 {
        4 => ip::ipv4(pkt, bytes, opts),
        6 => ip::ipv6(pkt, bytes.within(Layer::Ipv6), opts),
        _ => Err(malformed(Layer::Ipv4, 0, "raw IP version neither 4 nor 6")),
    }
}

/// Linux cooked capture v1: packet type, ARPHRD type, address, protocol (16 bytes).
pub fn sll<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>, opts: &DecodeOptions) -> Result<(), Stop> {
    let (rest, h) = run(array::<16>(Layer::Sll), bytes)?;
    let protocol = u16::from_be_bytes([h[14], h[15]]);
    pkt.sll = Some(Sll {
        version: 1,
        packet_type: u16::from_be_bytes([h[0], h[1]]),
        hatype: u16::from_be_bytes([h[2], h[3]]),
        protocol,
        sender: cooked_mac(u16::from_be_bytes([h[4], h[5]]), &h[6..14]),
    });
    after_ethertype(pkt, rest, protocol, opts)
}

/// Linux cooked capture v2: protocol first, then interface index and addresses (20 bytes).
pub fn sll2<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>, opts: &DecodeOptions) -> Result<(), Stop> {
    let (rest, h) = run(array::<20>(Layer::Sll), bytes)?;
    let protocol = u16::from_be_bytes([h[0], h[1]]);
    pkt.sll = Some(Sll {
        version: 2,
        packet_type: u16::from(h[10]),
        hatype: u16::from_be_bytes([h[8], h[9]]),
        protocol,
        sender: cooked_mac(u16::from(h[11]), &h[12..20]),
    });
    after_ethertype(pkt, rest, protocol, opts)
}

/// A cooked header's 8-byte address field holds a MAC only when its length says 6: other
/// link types (InfiniBand's 20-byte hardware address, none on loopback) are cut or absent.
fn cooked_mac(len: u16, field: &[u8]) -> Option<Mac> {
    (len == 6).then(|| Mac([field[0], field[1], field[2], field[3], field[4], field[5]]))
}
