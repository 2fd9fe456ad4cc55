//! Protocols by Wireshark's names, the first filter a Wireshark user types: `infiniband`,
//! `!infiniband`, `macc`. Each is present when Wireshark's dissector of it would run on the
//! frame, which is not always when one header of it was decoded: a frame whose BTH is cut
//! short is still InfiniBand. The protocols whose name is a header's (`eth`, `udp`, `ipv6`)
//! are that header's presence, in the file of the header.

use super::{Field, Value};
use crate::dissect::{Kind, Packet, Upper};
use crate::wire::Layer;

pub(super) const PROTOCOLS: &[Field] = &[
    protocol!(
        "infiniband",
        "InfiniBand: native, RoCE v1 or RoCE v2",
        |p| infiniband(p)
    ),
    protocol!("rroce", "RoCE v2: InfiniBand in UDP", |p| p.kind
        == Kind::RoceV2
        || p.udp.is_some() && infiniband(p)),
    protocol!("macc", "MAC Control: PAUSE or PFC", |p| p.pfc.is_some()
        || p.pause.is_some()
        || failed_in(p, &[Layer::MacControl])),
    protocol!(
        "icmpv6",
        "ICMPv6 (rdmadump's icmp is either version)",
        |p| matches!(
            (p.upper, p.ip),
            (Some(Upper::Icmp(_)), Some(crate::dissect::IpHeader::V6(_)))
        )
    ),
];

/// The InfiniBand dissector runs on native InfiniBand, RoCE v1 and RoCE v2, whether or
/// not it gets far.
fn infiniband(p: &Packet<'_>) -> bool {
    matches!(p.kind, Kind::Ib | Kind::RoceV1 | Kind::RoceV2)
        || p.lrh.is_some()
        || p.bth.is_some()
        || failed_in(
            p,
            &[
                Layer::Lrh,
                Layer::Grh,
                Layer::Bth,
                Layer::Reth,
                Layer::Aeth,
                Layer::Deth,
                Layer::Rdeth,
                Layer::ImmDt,
                Layer::Ieth,
                Layer::AtomicEth,
                Layer::AtomicAckEth,
                Layer::XrcEth,
                Layer::Feth,
                Layer::Cnp,
                Layer::Icrc,
                Layer::Vcrc,
                Layer::Mad,
                Layer::Smp,
                Layer::Sa,
                Layer::Perf,
                Layer::Cm,
            ],
        )
}

fn failed_in(p: &Packet<'_>, layers: &[Layer]) -> bool {
    p.error.is_some_and(|e| layers.contains(&e.layer))
}
