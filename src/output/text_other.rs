//! The text line of frames that are not RDMA (and of IPoIB inside InfiniBand): named by
//! protocol, addresses and ports, as tcpdump names them.

use std::io::Write;
use std::net::IpAddr;

use crate::dissect::{Arp, Kind, Packet, Upper};
use crate::wire::arp::op;
use crate::wire::icmp::{icmpv4_name, icmpv6_name};

/// Writes ` src:sport > dst:dport proto` or the like and returns true, for the frames this
/// naming is for; returns false, writing nothing, for every other frame.
pub fn write_endpoints(out: &mut Vec<u8>, pkt: &Packet<'_>) -> bool {
    let eligible = match pkt.kind {
        Kind::Other => true,
        Kind::Ib => pkt.ipoib.is_some(),
        _ => false,
    };
    if !eligible {
        return false;
    }
    if let Some(Upper::Arp(arp)) = &pkt.upper {
        write_arp(out, arp);
        return true;
    }
    let Some(ip) = &pkt.ip else {
        return false;
    };
    let (src, dst) = (ip.src(), ip.dst());
    let ports = match (&pkt.upper, &pkt.udp) {
        (Some(Upper::Tcp(tcp)), _) => Some((tcp.src_port(), tcp.dst_port(), "tcp")),
        (_, Some(udp)) => Some((udp.src_port(), udp.dst_port(), "udp")),
        _ => None,
    };
    if let Some((sport, dport, proto)) = ports {
        out.push(b' ');
        write_endpoint(out, src, sport);
        out.extend_from_slice(b" > ");
        write_endpoint(out, dst, dport);
        let _ = write!(out, " {proto}");
        return true;
    }
    let _ = write!(out, " {src} > {dst}");
    if let Some(Upper::Icmp(icmp)) = &pkt.upper {
        let (proto, name) = if ip.version() == 6 {
            ("icmp6", icmpv6_name(icmp.icmp_type()))
        } else {
            ("icmp", icmpv4_name(icmp.icmp_type()))
        };
        let _ = match name {
            Some(name) => write!(out, " {proto} {name}"),
            None => write!(
                out,
                " {proto} type {} code {}",
                icmp.icmp_type(),
                icmp.code()
            ),
        };
    }
    true
}

fn write_endpoint(out: &mut Vec<u8>, addr: IpAddr, port: u16) {
    let _ = match addr {
        IpAddr::V4(a) => write!(out, "{a}:{port}"),
        IpAddr::V6(a) => write!(out, "[{a}]:{port}"),
    };
}

fn write_arp(out: &mut Vec<u8>, arp: &Arp<'_>) {
    let _ = match (arp.header.op(), arp.ips()) {
        (op::REQUEST, Some((sender, target))) => {
            write!(out, " arp who-has {target} tell {sender}")
        }
        (op::REPLY, Some((sender, _))) => {
            let _ = write!(out, " arp reply {sender} is-at ");
            for (i, b) in arp.sender_hw().iter().enumerate() {
                if i > 0 {
                    out.push(b':');
                }
                let _ = write!(out, "{b:02x}");
            }
            Ok(())
        }
        (code, _) => write!(out, " arp op {code}"),
    };
}
