//! The tunnels around a frame, kept compactly: where each tunnel's headers lie in the frame,
//! from which [`TunnelStack::get`] builds the header views when asked. Every packet carries
//! a stack, and views for four tunnels would have grown `Packet` by several cache lines;
//! the offsets fit in less than one.

use super::IpHeader;
use crate::wire::erspan::{ErspanCommon, ErspanII, ErspanIII, ErspanPlatform};
use crate::wire::ethernet::{EthernetHeader, VlanTag, ethertype};
use crate::wire::gre::{Gre, GreHeader};
use crate::wire::ipv4::Ipv4Header;
use crate::wire::ipv6::Ipv6Header;
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

    pub fn erspan_session_id(&self) -> Option<u16> {
        match self {
            Encap::ErspanII(_, h) => Some(h.session_id()),
            Encap::ErspanIII(_, h, _) => Some(h.session_id()),
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

    pub fn vni(&self) -> Option<u32> {
        match self {
            Encap::Vxlan(_, h) => Some(h.vni()),
            _ => None,
        }
    }

    pub fn erspan_cos(&self) -> Option<u8> {
        match self {
            Encap::ErspanII(_, h) => Some(h.cos()),
            Encap::ErspanIII(_, h, _) => Some(h.cos()),
            _ => None,
        }
    }

    /// Type II only: the port the frame was mirrored from.
    pub fn erspan_index(&self) -> Option<u32> {
        match self {
            Encap::ErspanII(_, h) => Some(h.index()),
            _ => None,
        }
    }

    /// Type III only: `ingress` or `egress`.
    pub fn erspan_direction(&self) -> Option<&'static str> {
        match self {
            Encap::ErspanIII(_, h, _) => Some(h.direction()),
            _ => None,
        }
    }

    pub fn erspan_timestamp(&self) -> Option<u32> {
        match self {
            Encap::ErspanIII(_, h, _) => Some(h.timestamp()),
            _ => None,
        }
    }

    pub fn erspan_hw_id(&self) -> Option<u8> {
        match self {
            Encap::ErspanIII(_, h, _) => Some(h.hw_id()),
            _ => None,
        }
    }

    /// Type III with the optional platform subheader only.
    pub fn erspan_platform_id(&self) -> Option<u8> {
        match self {
            Encap::ErspanIII(_, _, Some(platform)) => Some(platform.platform_id()),
            _ => None,
        }
    }

    /// The outer UDP header of a VXLAN tunnel.
    pub fn vxlan_udp(&self) -> Option<UdpHeader<'a>> {
        match self {
            Encap::Vxlan(udp, _) => Some(*udp),
            _ => None,
        }
    }

    pub fn vxlan_flags(&self) -> Option<u8> {
        match self {
            Encap::Vxlan(_, h) => Some(h.flags()),
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EncapKind {
    Gre,
    ErspanI,
    ErspanII,
    ErspanIII,
    Vxlan,
}

const NO_ETHERNET: u16 = u16::MAX;

/// Frame offsets of one tunnel's headers; each was decoded whole before it was recorded.
/// Sixteen bits: four nested tunnels' headers lie within the frame's first few hundred
/// bytes, and a `Packet` is a cache line smaller than with 32 (a tunnel farther in than
/// 64 KiB is left undecoded, as one whose headers are not in the frame).
#[derive(Debug, Clone, Copy)]
struct Slot {
    eth: u16,
    ip: u16,
    /// The GRE header, or the UDP header before VXLAN.
    encap: u16,
    kind: EncapKind,
}

const UNUSED: Slot = Slot {
    eth: 0,
    ip: 0,
    encap: 0,
    kind: EncapKind::Gre,
};

/// The tunnels around a frame, outermost first.
#[derive(Debug, Clone, Copy)]
pub struct TunnelStack<'a> {
    /// The frame from its start to the innermost tunnel's payload.
    frame: Option<&'a [u8]>,
    slots: [Slot; MAX_TUNNELS],
    len: u8,
    /// A further tunnel was found inside the last one and left undecoded.
    pub too_deep: bool,
}

/// A constant, all zeros (the slice is an `Option`, whose `None` is a null pointer): resetting
/// the `Packet` of every frame clears it as part of one block, where a derived `Default`
/// wrote each slot's fields one by one.
impl Default for TunnelStack<'_> {
    fn default() -> Self {
        TunnelStack {
            frame: None,
            slots: [UNUSED; MAX_TUNNELS],
            len: 0,
            too_deep: false,
        }
    }
}

impl<'a> TunnelStack<'a> {
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn iter(&self) -> impl Iterator<Item = Tunnel<'a>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The `i`th tunnel, outermost first, its views built from the recorded offsets.
    pub fn get(&self, i: usize) -> Option<Tunnel<'a>> {
        let slot = self.slots.get(..self.len())?.get(i)?;
        let frame = self.frame?;
        let from = |at: usize| frame.get(at..);
        let eth = match slot.eth {
            NO_ETHERNET => None,
            at => Some(EthernetHeader::new_checked(from(at as usize)?, 0).ok()?),
        };
        let vlan = eth
            .filter(|e| {
                matches!(
                    e.ethertype(),
                    ethertype::VLAN_8021Q | ethertype::VLAN_8021AD | ethertype::VLAN_QINQ_LEGACY
                )
            })
            .and_then(|_| VlanTag::new_checked(from(slot.eth as usize + 14)?, 0).ok());
        let ip_bytes = from(slot.ip as usize)?;
        let ip = match ip_bytes.first()? >> 4 {
            4 => IpHeader::V4(Ipv4Header::new_checked(ip_bytes, 0).ok()?),
            _ => IpHeader::V6(Ipv6Header::new_checked(ip_bytes, 0).ok()?),
        };
        let at = slot.encap as usize;
        let encap = if slot.kind == EncapKind::Vxlan {
            Encap::Vxlan(
                UdpHeader::new_checked(from(at)?, 0).ok()?,
                VxlanHeader::new_checked(from(at + UdpHeader::LEN)?, 0).ok()?,
            )
        } else {
            let base = GreHeader::new_checked(from(at)?, 0).ok()?;
            let options_end = at + GreHeader::LEN + base.options_len();
            let gre =
                Gre::new_checked(base, frame.get(at + GreHeader::LEN..options_end)?, 0).ok()?;
            let after = from(options_end)?;
            match slot.kind {
                EncapKind::ErspanI => Encap::ErspanI(gre),
                EncapKind::ErspanII => Encap::ErspanII(gre, ErspanII::new_checked(after, 0).ok()?),
                EncapKind::ErspanIII => {
                    let header = ErspanIII::new_checked(after, 0).ok()?;
                    let platform = if header.has_platform() {
                        let sub = after.get(ErspanIII::LEN..)?;
                        Some(ErspanPlatform::new_checked(sub, 0).ok()?)
                    } else {
                        None
                    };
                    Encap::ErspanIII(gre, header, platform)
                }
                EncapKind::Gre | EncapKind::Vxlan => Encap::Gre(gre),
            }
        };
        Some(Tunnel {
            eth,
            vlan,
            ip,
            encap,
        })
    }

    /// Records a tunnel whose headers lie in `frame` (which starts at the frame's first
    /// byte); false, and nothing recorded, when the stack is full or an offset is not in it.
    pub(super) fn push(
        &mut self,
        frame: &'a [u8],
        eth: Option<&[u8]>,
        ip: &[u8],
        encap: usize,
        kind: EncapKind,
    ) -> bool {
        let Some(slot) = self.slots.get_mut(usize::from(self.len)) else {
            self.too_deep = true;
            return false;
        };
        let eth = match eth {
            None => Some(NO_ETHERNET),
            Some(header) => offset_in(frame, header),
        };
        let (Some(eth), Some(ip), Ok(encap)) = (eth, offset_in(frame, ip), u16::try_from(encap))
        else {
            return false;
        };
        *slot = Slot {
            eth,
            ip,
            encap,
            kind,
        };
        self.frame = Some(frame);
        self.len += 1;
        true
    }
}

/// Where a header view's bytes start in the frame. The views borrow from the frame, so the
/// distance between the two addresses is that offset; no pointer is dereferenced.
fn offset_in(frame: &[u8], header: &[u8]) -> Option<u16> {
    let offset = (header.as_ptr() as usize).checked_sub(frame.as_ptr() as usize)?;
    if offset >= frame.len() {
        return None;
    }
    u16::try_from(offset).ok().filter(|&at| at != NO_ETHERNET)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outer IPv4 (protocol 47) then GRE 0x6558 with key 5, by hand from RFC 791/2890.
    fn ip_and_gre() -> Vec<u8> {
        let mut f = vec![
            0x45, 0, 0, 48, 0, 0, 0, 0, 64, 47, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        f.extend([0x20, 0x00, 0x65, 0x58, 0, 0, 0, 5]);
        f
    }

    #[test]
    fn views_come_back_from_the_offsets_and_a_full_stack_says_too_deep() {
        let frame = ip_and_gre();
        let mut stack = TunnelStack::default();
        for _ in 0..MAX_TUNNELS {
            assert!(stack.push(&frame, None, &frame[..20], 20, EncapKind::Gre));
        }
        assert!(!stack.too_deep);
        assert!(!stack.push(&frame, None, &frame[..20], 20, EncapKind::Gre));
        assert!(stack.too_deep);
        assert_eq!(stack.len(), MAX_TUNNELS);
        let tunnel = stack.get(3).unwrap();
        assert!(tunnel.eth.is_none() && tunnel.vlan.is_none());
        assert_eq!(tunnel.ip.dst(), std::net::Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(tunnel.encap.name(), "gre");
        assert_eq!(tunnel.encap.gre().and_then(|g| g.key()), Some(5));
        assert!(stack.get(MAX_TUNNELS).is_none());
    }

    #[test]
    fn a_header_outside_the_frame_is_not_recorded() {
        let frame = ip_and_gre();
        let elsewhere = ip_and_gre();
        let mut stack = TunnelStack::default();
        assert!(!stack.push(&frame, None, &elsewhere[..20], 20, EncapKind::Gre));
        assert!(stack.is_empty() && !stack.too_deep);
    }
}
