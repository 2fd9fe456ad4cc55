//! IPv4, IPv6 and UDP, as far as RoCE v2 needs them.

use super::bounds::{Bytes, Stop};
use super::{DecodeOptions, IpHeader, Kind, Packet, malformed, transport};
use crate::crc::IcrcPrefix;
use crate::wire::Layer;
use crate::wire::ipv4::Ipv4Header;
use crate::wire::ipv6::{Ipv6Header, next_header};
use crate::wire::udp::UdpHeader;

const IPPROTO_UDP: u8 = 17;
/// Extension headers walked before giving up on finding UDP.
const MAX_IPV6_EXTENSIONS: usize = 8;

pub fn ipv4<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    at: usize,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let header = Ipv4Header::new_checked(bytes.need(at, Ipv4Header::LEN, Layer::Ipv4)?, at)
        .map_err(Stop::Malformed)?;
    if header.version() != 4 {
        return Err(malformed(Layer::Ipv4, at, "IP version is not 4"));
    }
    let header_len = header.header_len();
    if header_len < Ipv4Header::LEN {
        return Err(malformed(Layer::Ipv4, at, "IHL below 5"));
    }
    let total_len = usize::from(header.total_len());
    if total_len < header_len {
        return Err(malformed(
            Layer::Ipv4,
            at + 2,
            "total length shorter than the header",
        ));
    }
    let datagram = bytes.limit(
        at + total_len,
        Layer::Ipv4,
        at + 2,
        "total length exceeds the frame",
    )?;
    let with_options = datagram.need(at, header_len, Layer::Ipv4)?;
    pkt.ip = Some(IpHeader::V4(header));
    if header.is_fragment() || header.protocol() != IPPROTO_UDP {
        return Ok(());
    }
    udp(pkt, datagram, at + header_len, with_options, false, opts)
}

pub fn ipv6<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    at: usize,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let header = Ipv6Header::new_checked(bytes.need(at, Ipv6Header::LEN, Layer::Ipv6)?, at)
        .map_err(Stop::Malformed)?;
    if header.version() != 6 {
        return Err(malformed(Layer::Ipv6, at, "IP version is not 6"));
    }
    let end = at + Ipv6Header::LEN + usize::from(header.payload_len());
    let datagram = bytes.limit(end, Layer::Ipv6, at + 4, "payload length exceeds the frame")?;
    pkt.ip = Some(IpHeader::V6(header));
    let mut next = header.next_header();
    let mut cursor = at + Ipv6Header::LEN;
    for _ in 0..MAX_IPV6_EXTENSIONS {
        match next {
            next_header::UDP => {
                let ip_bytes = datagram.need(at, cursor - at, Layer::Ipv6)?;
                return udp(pkt, datagram, cursor, ip_bytes, true, opts);
            }
            next_header::HOP_BY_HOP | next_header::ROUTING | next_header::DEST_OPTIONS => {
                let ext = datagram.need(cursor, 2, Layer::Ipv6)?;
                next = ext[0];
                cursor += (usize::from(ext[1]) + 1) * 8;
            }
            // Fragments and everything else cannot carry a whole RoCE packet.
            _ => return Ok(()),
        }
    }
    Ok(())
}

fn udp<'a>(
    pkt: &mut Packet<'a>,
    datagram: Bytes<'a>,
    at: usize,
    ip_bytes: &'a [u8],
    ipv6: bool,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let header = UdpHeader::new_checked(datagram.need(at, UdpHeader::LEN, Layer::Udp)?, at)
        .map_err(Stop::Malformed)?;
    pkt.udp = Some(header);
    // Only the destination port identifies RoCE v2: a requester may pick any source port,
    // including ones other protocols own (ConnectX uses 69, TFTP's).
    if !opts.is_roce_port(header.dst_port()) {
        return Ok(());
    }
    pkt.kind = Kind::RoceV2;
    let length = usize::from(header.length());
    if length < UdpHeader::LEN {
        return Err(malformed(Layer::Udp, at + 4, "UDP length below 8"));
    }
    let segment = datagram.limit(
        at + length,
        Layer::Udp,
        at + 4,
        "UDP length exceeds the IP datagram",
    )?;
    let prefix = IcrcPrefix::RoceV2 {
        ip: ip_bytes,
        ipv6,
        udp: header.bytes(),
    };
    transport::decode(pkt, segment, at + UdpHeader::LEN, prefix)
}
