//! What IP and ARP frames carry that is not RDMA: TCP and ICMP ports and types, ARP
//! requests and replies. Only their first header is decoded, enough to name the frame.

use super::bounds::{Bytes, Stop};
use super::parse::{header, run, take};
use super::{Arp, Packet, Upper};
use crate::wire::Layer;
use crate::wire::arp::ArpHeader;
use crate::wire::icmp::IcmpHeader;
use crate::wire::tcp::TcpHeader;

/// IP protocol numbers dispatched here besides UDP.
pub const IPPROTO_ICMP: u8 = 1;
pub const IPPROTO_TCP: u8 = 6;

pub fn tcp<'a>(pkt: &mut Packet<'a>, segment: Bytes<'a>) -> Result<(), Stop> {
    let (_, tcp) = run(header::<TcpHeader>(Layer::Tcp), segment)?;
    pkt.upper = Some(Upper::Tcp(tcp));
    Ok(())
}

/// ICMP and ICMPv6 alike: which one is told by the IP version.
pub fn icmp<'a>(pkt: &mut Packet<'a>, message: Bytes<'a>) -> Result<(), Stop> {
    let (_, icmp) = run(header::<IcmpHeader>(Layer::Icmp), message)?;
    pkt.upper = Some(Upper::Icmp(icmp));
    Ok(())
}

pub fn arp<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>) -> Result<(), Stop> {
    let (rest, header) = run(header::<ArpHeader>(Layer::Arp), bytes)?;
    // Recorded before the addresses, so a snaplen cut inside them still shows the op.
    pkt.upper = Some(Upper::Arp(Arp {
        header,
        addresses: &[],
    }));
    let (_, addresses) = run(take(header.addresses_len(), Layer::Arp), rest)?;
    pkt.upper = Some(Upper::Arp(Arp { header, addresses }));
    Ok(())
}
