//! Decapsulation: GRE (plain, or carrying ERSPAN from a switch mirror) and VXLAN. Each outer
//! layer's headers move into a [`Tunnel`] entry, and the inner frame is decoded into the
//! packet as if it had been captured bare, so its kind, BTH and ICRC are the bare frame's.
//!
//! Only reached once the IP protocol (47) or the UDP port (4789) says a tunnel follows, so
//! RoCE v2 frames pay nothing for it.

use super::bounds::{Bytes, Stop};
use super::parse::{header, run, take};
use super::{DecodeOptions, IpHeader, Packet, VlanStack, ip, link, malformed};
use crate::wire::Layer;
use crate::wire::erspan::{ErspanII, ErspanIII, ErspanPlatform};
use crate::wire::ethernet::{EthernetHeader, VlanTag};
use crate::wire::gre::{Gre, GreHeader, protocol};
use crate::wire::udp::UdpHeader;
use crate::wire::vxlan::VxlanHeader;

/// Tunnels decapsulated per frame; a frame nested deeper keeps its innermost undecoded
/// tunnel as its own headers and says so (`TunnelStack::too_deep`).
pub const MAX_TUNNELS: usize = 4;

/// What one tunnel layer put around the frame inside it.
#[derive(Debug, Clone, Copy)]
pub enum Encap<'a> {
    Gre(Gre<'a>),
    /// GRE protocol 0x88BE without a sequence number: the mirrored frame follows directly.
    ErspanI(Gre<'a>),
    ErspanII(Gre<'a>, ErspanII<'a>),
    ErspanIII(Gre<'a>, ErspanIII<'a>, Option<ErspanPlatform<'a>>),
    Vxlan(UdpHeader<'a>, VxlanHeader<'a>),
}

impl<'a> Encap<'a> {
    /// The name the JSON `type` key and the filter use.
    pub fn name(&self) -> &'static str {
        match self {
            Encap::Gre(_) => "gre",
            Encap::ErspanI(_) | Encap::ErspanII(..) | Encap::ErspanIII(..) => "erspan",
            Encap::Vxlan(..) => "vxlan",
        }
    }

    pub fn gre(&self) -> Option<Gre<'a>> {
        match *self {
            Encap::Gre(g) | Encap::ErspanI(g) | Encap::ErspanII(g, _) | Encap::ErspanIII(g, ..) => {
                Some(g)
            }
            Encap::Vxlan(..) => None,
        }
    }

    /// The ERSPAN header's Ver field: 1 for type II, 2 for type III (type I has no header).
    pub fn erspan_version(&self) -> Option<u8> {
        match self {
            Encap::ErspanII(_, h) => Some(h.version()),
            Encap::ErspanIII(_, h, _) => Some(h.version()),
            _ => None,
        }
    }

    /// The mirrored frame's VLAN, as the ERSPAN header gives it.
    pub fn erspan_vlan(&self) -> Option<u16> {
        match self {
            Encap::ErspanII(_, h) => Some(h.vlan()),
            Encap::ErspanIII(_, h, _) => Some(h.vlan()),
            _ => None,
        }
    }

    pub fn erspan_session_id(&self) -> Option<u16> {
        match self {
            Encap::ErspanII(_, h) => Some(h.session_id()),
            Encap::ErspanIII(_, h, _) => Some(h.session_id()),
            _ => None,
        }
    }

    pub fn vni(&self) -> Option<u32> {
        match self {
            Encap::Vxlan(_, h) => Some(h.vni()),
            _ => None,
        }
    }
}

/// One tunnel layer: the outer headers that carried it, and the encapsulation itself.
#[derive(Debug, Clone, Copy)]
pub struct Tunnel<'a> {
    /// The Ethernet header before the outer IP, absent when the outer IP was itself carried
    /// without one (IP in GRE) or the capture has no Ethernet.
    pub eth: Option<EthernetHeader<'a>>,
    /// The first VLAN tag of that Ethernet header.
    pub vlan: Option<VlanTag<'a>>,
    pub ip: IpHeader<'a>,
    pub encap: Encap<'a>,
}

/// The tunnels around a frame, outermost first.
#[derive(Debug, Clone, Copy, Default)]
pub struct TunnelStack<'a> {
    layers: [Option<Tunnel<'a>>; MAX_TUNNELS],
    len: u8,
    /// A further tunnel was found inside the last one and left undecoded.
    pub too_deep: bool,
}

impl<'a> TunnelStack<'a> {
    pub fn iter(&self) -> impl Iterator<Item = &Tunnel<'a>> + '_ {
        self.layers.iter().flatten()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`th tunnel, outermost first.
    pub fn get(&self, i: usize) -> Option<&Tunnel<'a>> {
        self.layers.get(i)?.as_ref()
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
}

/// Moves the packet's outer headers into a new tunnel entry, so that the inner frame's take
/// their place. False, and nothing moved, when the stack is full.
fn enter<'a>(pkt: &mut Packet<'a>, encap: Encap<'a>) -> bool {
    let Some(ip) = pkt.ip else { return false };
    let stack = &mut pkt.tunnels;
    let Some(slot) = stack.layers.get_mut(usize::from(stack.len)) else {
        stack.too_deep = true;
        return false;
    };
    *slot = Some(Tunnel {
        eth: pkt.eth.take(),
        vlan: pkt.vlans.iter().next(),
        ip,
        encap,
    });
    stack.len += 1;
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
    let (rest, options) = run(take(base.options_len(), Layer::Gre), rest)?;
    let gre = Gre::new_checked(base, options, at).map_err(Stop::Malformed)?;
    match base.protocol() {
        protocol::TRANSPARENT_ETHERNET => ethernet_inside(pkt, Encap::Gre(gre), rest, opts),
        protocol::IPV4 if enter(pkt, Encap::Gre(gre)) => ip::ipv4(pkt, rest, opts),
        protocol::IPV6 if enter(pkt, Encap::Gre(gre)) => ip::ipv6(pkt, rest, opts),
        protocol::ERSPAN_II if !base.sequence_present() => {
            ethernet_inside(pkt, Encap::ErspanI(gre), rest, opts)
        }
        protocol::ERSPAN_II => {
            let (rest, erspan) = run(header::<ErspanII>(Layer::Erspan), rest)?;
            ethernet_inside(pkt, Encap::ErspanII(gre, erspan), rest, opts)
        }
        protocol::ERSPAN_III => {
            let (mut rest, erspan) = run(header::<ErspanIII>(Layer::Erspan), rest)?;
            let mut platform = None;
            if erspan.has_platform() {
                let (after, sub) = run(header::<ErspanPlatform>(Layer::Erspan), rest)?;
                platform = Some(sub);
                rest = after;
            }
            ethernet_inside(pkt, Encap::ErspanIII(gre, erspan, platform), rest, opts)
        }
        // An unknown payload, or the stack is full: the GRE is shown, its payload is not.
        _ => {
            enter(pkt, Encap::Gre(gre));
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
    let length = usize::from(udp.length());
    if length < UdpHeader::LEN {
        return Err(malformed(Layer::Udp, udp_at + 4, "UDP length below 8"));
    }
    let datagram = bytes.limit(
        udp_at + length,
        Layer::Udp,
        udp_at + 4,
        "UDP length exceeds the IP datagram",
    )?;
    let (rest, vxlan) = run(header::<VxlanHeader>(Layer::Vxlan), datagram)?;
    ethernet_inside(pkt, Encap::Vxlan(udp, vxlan), rest, opts)
}

fn ethernet_inside<'a>(
    pkt: &mut Packet<'a>,
    encap: Encap<'a>,
    rest: Bytes<'a>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    if enter(pkt, encap) {
        link::ethernet(pkt, rest, opts)
    } else {
        Ok(())
    }
}
