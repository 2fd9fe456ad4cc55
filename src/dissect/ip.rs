//! IPv4, IPv6 and UDP, as far as RoCE v2 needs them; TCP and ICMP are handed on to name
//! the frame.

use super::bounds::{Bytes, Stop};
use super::parse::{array, header, run, take};
use super::upper::{self, IPPROTO_ICMP, IPPROTO_TCP};
use super::{DecodeOptions, IpHeader, Kind, Packet, malformed, transport, tunnel};
use crate::crc::IcrcPrefix;
use crate::wire::Layer;
use crate::wire::gre::IPPROTO_GRE;
use crate::wire::ipv4::Ipv4Header;
use crate::wire::ipv6::{Ipv6Header, next_header};
use crate::wire::udp::UdpHeader;
use crate::wire::vxlan::VXLAN_PORT;

const IPPROTO_UDP: u8 = 17;
/// Extension headers walked before giving up on finding UDP.
const MAX_IPV6_EXTENSIONS: usize = 8;

#[inline]
pub fn ipv4<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>, opts: &DecodeOptions) -> Result<(), Stop> {
    let at = bytes.at();
    let (_, header) = run(header::<Ipv4Header>(Layer::Ipv4), bytes)?;
    if header.version() != 4 {
        return Err(malformed(Layer::Ipv4, at, "IP version is not 4"));
    }
    let datagram = bytes.bounded(at, |room| header.check_len(at, room))?;
    // The options too: the ICRC covers the whole IP header.
    let (segment, with_options) = run(take(header.header_len(), Layer::Ipv4), datagram)?;
    pkt.ip = Some(IpHeader::V4(header));
    if header.is_fragment() {
        return Ok(());
    }
    match header.protocol() {
        IPPROTO_UDP => udp(pkt, segment, with_options, false, opts),
        IPPROTO_GRE => tunnel::gre(pkt, segment, opts),
        IPPROTO_TCP => upper::tcp(pkt, segment),
        IPPROTO_ICMP => upper::icmp(pkt, segment),
        _ => Ok(()),
    }
}

#[inline]
pub fn ipv6<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>, opts: &DecodeOptions) -> Result<(), Stop> {
    let at = bytes.at();
    let (rest, header) = run(header::<Ipv6Header>(Layer::Ipv6), bytes)?;
    if header.version() != 6 {
        return Err(malformed(Layer::Ipv6, at, "IP version is not 6"));
    }
    let datagram = bytes.bounded(at, |room| header.check_len(at, room))?;
    let mut cursor = rest.at();
    pkt.ip = Some(IpHeader::V6(header));
    let mut next = header.next_header();
    for _ in 0..MAX_IPV6_EXTENSIONS {
        match next {
            next_header::UDP => {
                // The ICRC covers the IPv6 header and every extension header before UDP.
                let (segment, ip_bytes) = run(take(cursor - at, Layer::Ipv6), datagram)?;
                return udp(pkt, segment, ip_bytes, true, opts);
            }
            IPPROTO_GRE => return tunnel::gre(pkt, datagram.seek(cursor), opts),
            next_header::HOP_BY_HOP | next_header::ROUTING | next_header::DEST_OPTIONS => {
                let (_, ext) = run(array::<2>(Layer::Ipv6), datagram.seek(cursor))?;
                next = ext[0];
                cursor += (usize::from(ext[1]) + 1) * 8;
            }
            next_header::TCP => return upper::tcp(pkt, datagram.seek(cursor)),
            next_header::ICMPV6 => return upper::icmp(pkt, datagram.seek(cursor)),
            // Fragments and everything else cannot carry a whole RoCE packet.
            _ => return Ok(()),
        }
    }
    Ok(())
}

#[inline]
fn udp<'a>(
    pkt: &mut Packet<'a>,
    datagram: Bytes<'a>,
    ip_bytes: &'a [u8],
    ipv6: bool,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let at = datagram.at();
    let (rest, header) = run(header::<UdpHeader>(Layer::Udp), datagram)?;
    pkt.udp = Some(header);
    // Only the destination port identifies RoCE v2: a requester may pick any source port,
    // including ones other protocols own (ConnectX uses 69, TFTP's).
    // Inside IPoIB the frame already has its InfiniBand transport: one BTH per packet.
    if !opts.is_roce_port(header.dst_port()) || pkt.bth.is_some() {
        if header.dst_port() == VXLAN_PORT && pkt.bth.is_none() {
            return tunnel::vxlan(pkt, rest, header, opts);
        }
        return Ok(());
    }
    pkt.kind = Kind::RoceV2;
    let segment = rest.bounded(at, |room| header.check_len(at, room))?;
    let prefix = IcrcPrefix::RoceV2 {
        ip: ip_bytes,
        ipv6,
        udp: header.bytes(),
    };
    transport::decode(pkt, segment, prefix)
}
