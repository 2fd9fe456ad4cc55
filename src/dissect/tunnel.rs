//! Decapsulation: GRE (plain, or carrying ERSPAN from a switch mirror) and VXLAN. Each outer
//! layer's headers move into a [`super::Tunnel`] entry, and the inner frame is decoded into the
//! packet as if it had been captured bare, so its kind, BTH and ICRC are the bare frame's.
//!
//! Only reached once the IP protocol (47) or the UDP port (4789) says a tunnel follows, so
//! RoCE v2 frames pay nothing for it.

use super::bounds::{Bytes, Stop};
use super::parse::{header, run, take};
use super::tunnel_stack::EncapKind;
use super::{DecodeOptions, IpHeader, Packet, VlanStack, ip, link};
use crate::wire::Layer;
use crate::wire::erspan::{ErspanCommon, ErspanII, ErspanIII, ErspanPlatform};
use crate::wire::gre::{GreHeader, protocol};
use crate::wire::udp::UdpHeader;
use crate::wire::vxlan::VxlanHeader;

/// Moves the packet's outer headers into a new tunnel entry, so that the inner frame's take
/// their place. `inner` is the cursor at the inner frame. False, and nothing moved, when the
/// stack is full.
fn enter<'a>(pkt: &mut Packet<'a>, kind: EncapKind, encap_at: usize, inner: Bytes<'a>) -> bool {
    let Some(ip) = pkt.ip else { return false };
    let ip_bytes: &[u8] = match &ip {
        IpHeader::V4(h) => h.bytes(),
        IpHeader::V6(h) => h.bytes(),
    };
    let eth = pkt.eth.map(|e| e.bytes().as_slice());
    let frame = inner.captured(0, inner.at());
    if !pkt.tunnels.push(frame, eth, ip_bytes, encap_at, kind) {
        return false;
    }
    pkt.eth = None;
    pkt.vlans = VlanStack::default();
    pkt.ip = None;
    pkt.udp = None;
    true
}

/// GRE after an IP header; `bytes` ends where the IP datagram does.
#[inline(never)]
pub fn gre<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>, opts: &DecodeOptions) -> Result<(), Stop> {
    let at = bytes.at();
    let (rest, base) = run(header::<GreHeader>(Layer::Gre), bytes)?;
    // PPTP's enhanced GRE (version 1) and RFC 1701 source routes carry no RDMA; the frame
    // stays what its outer headers say.
    if base.version() != 0 || base.routing_present() {
        return Ok(());
    }
    let (rest, _options) = run(take(base.options_len(), Layer::Gre), rest)?;
    match base.protocol() {
        protocol::TRANSPARENT_ETHERNET => ethernet_inside(pkt, EncapKind::Gre, at, rest, opts),
        protocol::IPV4 if enter(pkt, EncapKind::Gre, at, rest) => ip::ipv4(pkt, rest, opts),
        protocol::IPV6 if enter(pkt, EncapKind::Gre, at, rest) => ip::ipv6(pkt, rest, opts),
        protocol::ERSPAN_II if !base.sequence_present() => {
            ethernet_inside(pkt, EncapKind::ErspanI, at, rest, opts)
        }
        protocol::ERSPAN_II => {
            let (rest, erspan) = run(header::<ErspanII>(Layer::Erspan), rest)?;
            let rest = cut_by_mirror(rest, erspan.truncated());
            ethernet_inside(pkt, EncapKind::ErspanII, at, rest, opts)
        }
        protocol::ERSPAN_III => {
            let (mut rest, erspan) = run(header::<ErspanIII>(Layer::Erspan), rest)?;
            if erspan.has_platform() {
                rest = run(header::<ErspanPlatform>(Layer::Erspan), rest)?.0;
            }
            let rest = cut_by_mirror(rest, erspan.truncated());
            ethernet_inside(pkt, EncapKind::ErspanIII, at, rest, opts)
        }
        // An unknown payload, or the stack is full: the GRE is shown, its payload is not.
        _ => {
            enter(pkt, EncapKind::Gre, at, rest);
            Ok(())
        }
    }
}

/// VXLAN after its outer UDP header; `bytes` starts after that header.
#[inline(never)]
pub fn vxlan<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    udp: UdpHeader<'a>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let udp_at = bytes.at() - UdpHeader::LEN;
    let datagram = bytes.bounded(udp_at, |room| udp.check_len(udp_at, room))?;
    let (rest, _) = run(header::<VxlanHeader>(Layer::Vxlan), datagram)?;
    ethernet_inside(pkt, EncapKind::Vxlan, udp_at, rest, opts)
}

/// A mirror that sets the ERSPAN T bit cut the mirrored frame to fit: the bytes its
/// lengths promise beyond the GRE payload existed on the wire, so their absence is a cut
/// (truncated), not a lie (malformed).
fn cut_by_mirror(rest: Bytes<'_>, truncated: bool) -> Bytes<'_> {
    if !truncated {
        return rest;
    }
    Bytes::new(
        rest.captured(0, rest.captured_end()),
        usize::MAX,
        rest.layer(),
    )
    .seek(rest.at())
}

fn ethernet_inside<'a>(
    pkt: &mut Packet<'a>,
    kind: EncapKind,
    encap_at: usize,
    rest: Bytes<'a>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    if enter(pkt, kind, encap_at, rest) {
        link::ethernet(pkt, rest, opts)
    } else {
        Ok(())
    }
}
