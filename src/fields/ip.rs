//! The network layer and what rides on it: IP and UDP, ARP, TCP and ICMP, and the GRH,
//! InfiniBand's IPv6-shaped network header. Wireshark's `ipv6.*` and `icmpv6.*` are here too.

use std::net::IpAddr;

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, either, int, ip};
use crate::dissect::{IpHeader, Packet, Upper};
use crate::wire::ipv6::Ipv6Header;

/// A field of the IPv6 header, under Wireshark's `ipv6.*` name: `$e` gives it from the header `$h`.
macro_rules! ipv6 {
    ($name:literal, $about:literal, $ty:expr, |$h:ident| $e:expr) => {
        Field::new($name, $ty, $about, |p| v6(p).map(|$h| $e))
    };
}

/// IPv4 or IPv6, and UDP. The JSON's `ip` object is the IP header of either version, and
/// so are these fields; a filter names them `addr.*` and `inet.*`, since Wireshark's `ip.*`
/// are IPv4's ([`IPV4`]).
pub(super) const IP_UDP: &[Field] = &[
    int!("inet.version", "IP version, 4 or 6", |p| p
        .ip
        .map(|i| i.version()))
    .keyed("ip.version"),
    ip!("addr.src", "IP source address (IPv4 or IPv6)", |p| p
        .ip
        .map(|i| i.src()))
    .keyed("ip.src"),
    ip!("addr.dst", "IP destination address (IPv4 or IPv6)", |p| p
        .ip
        .map(|i| i.dst()))
    .keyed("ip.dst"),
    each!(
        "addr",
        Type::Ip,
        "either IP address, source or destination, IPv4 or IPv6",
        |p, i| p
            .ip
            .and_then(|h| either(i, || Some(h.src()), || Some(h.dst()))),
        Value::Ip
    )
    .parquet(Parquet::NoColumn),
    int!(
        "inet.dscp",
        "DSCP: the top six bits of the IPv4 DS field or IPv6 traffic class",
        |p| p.ip.map(|i| i.dscp())
    )
    .keyed("ip.dscp"),
    int!("inet.ecn", "ECN: 3 is Congestion Experienced", |p| p
        .ip
        .map(|i| i.ecn()))
    .keyed("ip.ecn"),
    int!("inet.ttl", "IPv4 TTL or IPv6 hop limit", |p| p
        .ip
        .map(|i| i.ttl()))
    .keyed("ip.ttl"),
    int!("inet.proto", "IPv4 protocol or IPv6 next header", |p| p
        .ip
        .map(|i| match i {
            crate::dissect::IpHeader::V4(h) => h.protocol(),
            crate::dissect::IpHeader::V6(h) => h.next_header(),
        }))
    .keyed("ip.proto"),
    int!("ip.total_len", "IPv4 total length", |p| match p.ip {
        Some(crate::dissect::IpHeader::V4(h)) => Some(h.total_len()),
        _ => None,
    })
    .wireshark("ip.len"),
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
        .map(|u| u.src_port()))
    .wireshark("udp.srcport"),
    int!("udp.dport", "UDP destination port", |p| p
        .udp
        .map(|u| u.dst_port()))
    .wireshark("udp.dstport"),
    each!(
        "udp.port",
        Type::Int,
        "either UDP port, source or destination",
        |p, i| p
            .udp
            .and_then(|u| either(i, || Some(u.src_port()), || Some(u.dst_port()))),
        int
    )
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    int!("udp.len", "UDP length", |p| p.udp.map(|u| u.length())).wireshark("udp.length"),
    int!("udp.checksum", "UDP checksum", |p| p
        .udp
        .map(|u| u.checksum()))
    .same_in_wireshark(),
];

/// IPv4 under the names Wireshark gives it and the JSON's keys: in a filter or `-e`, as in
/// Wireshark, `ip` is IPv4 (the either-version fields are `addr.*` and `inet.*`).
pub(super) const IPV4: &[Field] = &[
    protocol!("ip", "IPv4 (either version: inet)", |p| v4(p).is_some()),
    // Wireshark's IPv6 dissector adds an `ip.version` too: of IPv4's names, this one alone
    // is either version's.
    int!("ip.version", "IP version, 4 or 6", |p| p
        .ip
        .map(|i| i.version()))
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    ip!("ip.src", "IPv4 source address", |p| v4(p).map(|h| h.src()))
        .same_in_wireshark()
        .parquet(Parquet::NoColumn),
    ip!("ip.dst", "IPv4 destination address", |p| v4(p)
        .map(|h| h.dst()))
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    each!(
        "ip.addr",
        Type::Ip,
        "either IPv4 address, source or destination",
        |p, i| v4(p).and_then(|h| either(i, || Some(h.src()), || Some(h.dst()))),
        ip,
        2
    )
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    int!("ip.dsfield", "IPv4 DS field: DSCP and ECN", |p| v4(p)
        .map(|h| h.dscp() << 2 | h.ecn()))
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    int!("ip.dscp", "IPv4 DSCP: the DS field's top six bits", |p| v4(
        p
    )
    .map(|h| h.dscp()))
    .wireshark("ip.dsfield.dscp")
    .parquet(Parquet::NoColumn),
    int!("ip.ecn", "IPv4 ECN: 3 is Congestion Experienced", |p| v4(p)
        .map(|h| h.ecn()))
    .wireshark("ip.dsfield.ecn")
    .parquet(Parquet::NoColumn),
    int!("ip.ttl", "IPv4 TTL", |p| v4(p).map(|h| h.ttl()))
        .same_in_wireshark()
        .parquet(Parquet::NoColumn),
    int!("ip.proto", "IPv4 protocol", |p| v4(p).map(|h| h.protocol()))
        .same_in_wireshark()
        .parquet(Parquet::NoColumn),
];

/// What IP carries besides RoCE, and ARP: the packet's `upper` header.
pub(super) const UPPER: &[Field] = &[
    int!(
        "arp.op",
        "ARP operation (1 request, 2 reply)",
        |p| match &p.upper {
            Some(Upper::Arp(a)) => Some(a.header.op()),
            _ => None,
        }
    )
    .wireshark("arp.opcode"),
    ip!(
        "arp.sender_ip",
        "ARP sender IPv4 address",
        |p| match &p.upper {
            Some(Upper::Arp(a)) => a.ips().map(|(sender, _)| sender),
            _ => None,
        }
    )
    .wireshark("arp.src.proto_ipv4"),
    ip!(
        "arp.target_ip",
        "ARP target IPv4 address",
        |p| match &p.upper {
            Some(Upper::Arp(a)) => a.ips().map(|(_, target)| target),
            _ => None,
        }
    )
    .wireshark("arp.dst.proto_ipv4"),
    int!("tcp.sport", "TCP source port", |p| match &p.upper {
        Some(Upper::Tcp(t)) => Some(t.src_port()),
        _ => None,
    })
    .wireshark("tcp.srcport"),
    int!("tcp.dport", "TCP destination port", |p| match &p.upper {
        Some(Upper::Tcp(t)) => Some(t.dst_port()),
        _ => None,
    })
    .wireshark("tcp.dstport"),
    each!(
        "tcp.port",
        Type::Int,
        "either TCP port, source or destination",
        |p, i| match &p.upper {
            Some(Upper::Tcp(t)) => either(i, || Some(t.src_port()), || Some(t.dst_port())),
            _ => None,
        },
        int
    )
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    int!("icmp.type", "ICMP or ICMPv6 type", |p| match &p.upper {
        Some(Upper::Icmp(i)) => Some(i.icmp_type()),
        _ => None,
    })
    .same_in_wireshark(),
    int!("icmp.code", "ICMP or ICMPv6 code", |p| match &p.upper {
        Some(Upper::Icmp(i)) => Some(i.code()),
        _ => None,
    })
    .same_in_wireshark(),
];

/// InfiniBand's Global Route Header, the IPv6-shaped network header of native InfiniBand
/// and RoCE v1.
pub(super) const GRH: &[Field] = &[
    int!("grh.ipver", "GRH IP version", |p| p.grh.map(|g| g.ipver()))
        .wireshark("infiniband.grh.ipver"),
    int!("grh.tclass", "GRH traffic class", |p| p
        .grh
        .map(|g| g.tclass()))
    .wireshark("infiniband.grh.tclass"),
    int!("grh.flow_label", "GRH flow label", |p| p
        .grh
        .map(|g| g.flow_label()))
    .wireshark("infiniband.grh.flowlabel"),
    int!("grh.paylen", "GRH payload length", |p| p
        .grh
        .map(|g| g.paylen()))
    .wireshark("infiniband.grh.paylen"),
    int!("grh.nxthdr", "GRH next header (0x1b: BTH)", |p| p
        .grh
        .map(|g| g.nxthdr()))
    .wireshark("infiniband.grh.nxthdr"),
    int!("grh.hoplmt", "GRH hop limit", |p| p.grh.map(|g| g.hoplmt()))
        .wireshark("infiniband.grh.hoplmt"),
    ip!("grh.sgid", "GRH source GID (IPv6 form)", |p| p
        .grh
        .map(|g| g.sgid()))
    .wireshark("infiniband.grh.sgid"),
    ip!("grh.dgid", "GRH destination GID (IPv6 form)", |p| p
        .grh
        .map(|g| g.dgid()))
    .wireshark("infiniband.grh.dgid"),
];

pub(super) const IP_UDP_PRESENT: &[Field] = &[
    header!("inet", "has an IP header, IPv4 or IPv6", |p| p.ip.is_some()).keyed("ip"),
    header!("udp", "has a UDP header", |p| p.udp.is_some()).same_in_wireshark(),
];

pub(super) const UPPER_PRESENT: &[Field] = &[
    header!("arp", "is ARP", |p| matches!(p.upper, Some(Upper::Arp(_)))),
    header!("tcp", "is TCP", |p| matches!(p.upper, Some(Upper::Tcp(_)))),
    header!("icmp", "is ICMP or ICMPv6", |p| matches!(
        p.upper,
        Some(Upper::Icmp(_))
    )),
];

pub(super) const GRH_PRESENT: &[Field] =
    &[header!("grh", "has a GRH", |p| p.grh.is_some()).wireshark("infiniband.grh")];

/// IPv6 and ICMPv6 under Wireshark's names: rdmadump's `ip.*` and `icmp.*` cover both versions.
pub(super) const WIRESHARK: &[Field] = &[
    protocol!("ipv6", "IPv6", |p| v6(p).is_some()),
    ipv6!("ipv6.version", "IPv6 version", Type::Int, |h| Value::Int(
        u64::from(h.version())
    ))
    .wireshark_only(),
    ipv6!("ipv6.src", "IPv6 source address", Type::Ip, |h| Value::Ip(
        IpAddr::V6(h.src())
    ))
    .wireshark_only(),
    ipv6!("ipv6.dst", "IPv6 destination address", Type::Ip, |h| {
        Value::Ip(IpAddr::V6(h.dst()))
    })
    .wireshark_only(),
    Field::new(
        "ipv6.addr",
        Type::Ip,
        "either IPv6 address, source or destination",
        |p| v6(p).map(|h| Value::Ip(IpAddr::V6(h.src()))),
    )
    .repeated(Each {
        get: |p, i| {
            v6(p).and_then(|h| match i {
                0 => Some(Value::Ip(IpAddr::V6(h.src()))),
                1 => Some(Value::Ip(IpAddr::V6(h.dst()))),
                _ => None,
            })
        },
        max: 2,
    })
    .wireshark_only(),
    ipv6!("ipv6.tclass", "IPv6 traffic class", Type::Int, |h| {
        Value::Int(u64::from(h.traffic_class()))
    })
    .wireshark_only(),
    ipv6!("ipv6.tclass.dscp", "IPv6 DSCP", Type::Int, |h| Value::Int(
        u64::from(h.traffic_class() >> 2)
    ))
    .wireshark_only(),
    ipv6!("ipv6.tclass.ecn", "IPv6 ECN", Type::Int, |h| Value::Int(
        u64::from(h.traffic_class() & 3)
    ))
    .wireshark_only(),
    ipv6!("ipv6.flow", "IPv6 flow label", Type::Int, |h| Value::Int(
        u64::from(h.flow_label())
    ))
    .wireshark_only(),
    ipv6!("ipv6.plen", "IPv6 payload length", Type::Int, |h| {
        Value::Int(u64::from(h.payload_len()))
    })
    .wireshark_only(),
    ipv6!("ipv6.nxt", "IPv6 next header", Type::Int, |h| Value::Int(
        u64::from(h.next_header())
    ))
    .wireshark_only(),
    ipv6!("ipv6.hlim", "IPv6 hop limit", Type::Int, |h| Value::Int(
        u64::from(h.hop_limit())
    ))
    .wireshark_only(),
    int!("icmpv6.type", "ICMPv6 type", |p| icmpv6(p)
        .map(|i| i.icmp_type()))
    .wireshark_only(),
    int!("icmpv6.code", "ICMPv6 code", |p| icmpv6(p)
        .map(|i| i.code()))
    .wireshark_only(),
];

fn v4<'a>(p: &Packet<'a>) -> Option<crate::wire::ipv4::Ipv4Header<'a>> {
    match p.ip {
        Some(IpHeader::V4(h)) => Some(h),
        _ => None,
    }
}

fn v6<'a>(p: &Packet<'a>) -> Option<Ipv6Header<'a>> {
    match p.ip {
        Some(IpHeader::V6(h)) => Some(h),
        _ => None,
    }
}

/// ICMP carried by IPv6: Wireshark's icmpv6, where rdmadump's icmp.* cover both versions.
fn icmpv6<'a>(p: &Packet<'a>) -> Option<crate::wire::icmp::IcmpHeader<'a>> {
    match (p.upper, v6(p)) {
        (Some(crate::dissect::Upper::Icmp(i)), Some(_)) => Some(i),
        _ => None,
    }
}
