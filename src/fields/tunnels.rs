//! The tunnels a frame was found in: GRE, ERSPAN and VXLAN, outermost first.

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, int, ip};

/// A field of every tunnel entry: `$e` gives it from the entry `$t`.
macro_rules! per_tunnel {
    ($name:literal, $ty:expr, $about:literal, |$t:ident| $e:expr, $wrap:expr) => {
        each!(
            $name,
            $ty,
            $about,
            |p, i| p.tunnels.get(i).and_then(|$t| $e),
            $wrap
        )
    };
}

/// The tunnels a frame was found in (GRE, ERSPAN, VXLAN), outermost first.
pub(super) const TUNNELS: &[Field] = &[
    per_tunnel!(
        "tunnel.src_mac",
        Type::Mac,
        "outer source MAC of any tunnel",
        |t| t.eth.map(|e| e.src().0),
        Value::Mac
    ),
    per_tunnel!(
        "tunnel.dst_mac",
        Type::Mac,
        "outer destination MAC of any tunnel",
        |t| t.eth.map(|e| e.dst().0),
        Value::Mac
    ),
    per_tunnel!(
        "tunnel.eth_vlan.id",
        Type::Int,
        "outer VLAN ID of any tunnel",
        |t| t.vlan.map(|v| v.vid()),
        int
    ),
    per_tunnel!(
        "tunnel.eth_vlan.pcp",
        Type::Int,
        "outer VLAN priority of any tunnel",
        |t| t.vlan.map(|v| v.pcp()),
        int
    ),
    per_tunnel!(
        "tunnel.checksum",
        Type::Int,
        "GRE checksum of any tunnel",
        |t| t.encap.gre().and_then(|g| g.checksum()),
        int
    ),
    per_tunnel!(
        "tunnel.type",
        Type::Str,
        "tunnel type of any tunnel: gre, erspan, vxlan",
        |t| Some(t.encap.name()),
        Value::Str
    ),
    per_tunnel!(
        "tunnel.src",
        Type::Ip,
        "outer IP source of any tunnel",
        |t| Some(t.ip.src()),
        ip
    ),
    per_tunnel!(
        "tunnel.dst",
        Type::Ip,
        "outer IP destination of any tunnel",
        |t| Some(t.ip.dst()),
        ip
    ),
    per_tunnel!(
        "tunnel.proto",
        Type::Int,
        "GRE protocol type of any tunnel",
        |t| t.encap.gre().map(|g| g.header.protocol()),
        int
    ),
    per_tunnel!(
        "tunnel.key",
        Type::Int,
        "GRE key of any tunnel",
        |t| t.encap.gre().and_then(|g| g.key()),
        int
    ),
    per_tunnel!(
        "tunnel.seq",
        Type::Int,
        "GRE sequence number of any tunnel",
        |t| t.encap.gre().and_then(|g| g.sequence()),
        int
    ),
    per_tunnel!(
        "tunnel.version",
        Type::Int,
        "ERSPAN version of any tunnel",
        |t| t.encap.erspan_version(),
        int
    ),
    per_tunnel!(
        "tunnel.session_id",
        Type::Int,
        "ERSPAN session ID of any tunnel",
        |t| t.encap.erspan_session_id(),
        int
    ),
    per_tunnel!(
        "tunnel.vlan",
        Type::Int,
        "ERSPAN VLAN of any tunnel",
        |t| t.encap.erspan_vlan(),
        int
    ),
    per_tunnel!(
        "tunnel.vni",
        Type::Int,
        "VXLAN network identifier of any tunnel",
        |t| t.encap.vni(),
        int
    ),
    per_tunnel!(
        "tunnel.cos",
        Type::Int,
        "ERSPAN class of service of any tunnel",
        |t| t.encap.erspan_cos(),
        int
    ),
    per_tunnel!(
        "tunnel.index",
        Type::Int,
        "ERSPAN type II index (the mirrored port) of any tunnel",
        |t| t.encap.erspan_index(),
        int
    ),
    per_tunnel!(
        "tunnel.direction",
        Type::Str,
        "ERSPAN type III direction of any tunnel: ingress, egress",
        |t| t.encap.erspan_direction(),
        Value::Str
    ),
    per_tunnel!(
        "tunnel.timestamp",
        Type::Int,
        "ERSPAN type III timestamp of any tunnel",
        |t| t.encap.erspan_timestamp(),
        int
    ),
    per_tunnel!(
        "tunnel.hw_id",
        Type::Int,
        "ERSPAN type III hardware ID of any tunnel",
        |t| t.encap.erspan_hw_id(),
        int
    ),
    per_tunnel!(
        "tunnel.platform_id",
        Type::Int,
        "ERSPAN type III platform ID of any tunnel, when the platform subheader is there",
        |t| t.encap.erspan_platform_id(),
        int
    ),
    per_tunnel!(
        "tunnel.sport",
        Type::Int,
        "VXLAN outer UDP source port of any tunnel",
        |t| t.encap.vxlan_udp().map(|u| u.src_port()),
        int
    ),
    per_tunnel!(
        "tunnel.dport",
        Type::Int,
        "VXLAN outer UDP destination port of any tunnel",
        |t| t.encap.vxlan_udp().map(|u| u.dst_port()),
        int
    ),
    per_tunnel!(
        "tunnel.flags",
        Type::Int,
        "VXLAN flags byte of any tunnel",
        |t| t.encap.vxlan_flags(),
        int
    ),
    boolean!(
        "tunnel_too_deep",
        "a tunnel nested deeper than 4 was left undecoded",
        |p| Some(p.tunnels.too_deep)
    ),
];

pub(super) const PRESENT: &[Field] = &[
    // Header presence, for filters such as `reth && !immdt`.
    header!("tunnel", "the frame was found in a tunnel", |p| !p
        .tunnels
        .is_empty()),
];
