//! Management datagrams: the common header, directed-route SMPs, and the attributes rdmadump
//! decodes (NodeInfo, PortInfo, SMInfo, SubnAdm's RMPP header and PathRecord, PortCounters).
//! The CM class has a file of its own, `cm.rs`.

use std::net::IpAddr;

use super::{Each, Field, Parquet, Type, Value, int};
use crate::dissect::Packet;
use crate::wire::mad::MadHeader;
use crate::wire::mad::names;
use crate::wire::mad::sa::PathRecord;
use crate::wire::mad::smp::{MAX_HOPS, NodeInfo, PortInfo, SmInfo, SmpAttr, SmpBody};

/// Hops a directed route's paths hold at most.
const DR_HOPS: usize = MAX_HOPS as usize;

/// The MAD common header, directed-route SMPs, and the SMP, SubnAdm and PerfMgt attributes
/// rdmadump decodes.
pub(super) const MAD: &[Field] = &[
    int!("mad.base_version", "MAD base version", |p| p
        .mad
        .map(|m| m.header.base_version()))
    .wireshark("infiniband.mad.baseversion"),
    int!("mad.class", "MAD management class", |p| p
        .mad
        .map(|m| m.header.mgmt_class()))
    .wireshark("infiniband.mad.mgmtclass"),
    int!("mad.class_version", "MAD class version", |p| p
        .mad
        .map(|m| m.header.class_version()))
    .wireshark("infiniband.mad.classversion"),
    string!("mad.class_name", "MAD class name, e.g. SubnAdm, CM", |p| p
        .mad
        .map(|m| names::class_name(m.header.mgmt_class()))),
    int!("mad.method", "MAD method, response bit included", |p| p
        .mad
        .map(|m| m.header.method()))
    .wireshark("infiniband.mad.method"),
    string!(
        "mad.method_name",
        "MAD method name, e.g. Get, GetResp",
        |p| p.mad.map(|m| names::method_name(m.header.method()))
    ),
    int!("mad.status", "MAD status", |p| p
        .mad
        .map(|m| m.header.status()))
    .wireshark("infiniband.mad.status"),
    int!("mad.tid", "MAD transaction ID", |p| p
        .mad
        .map(|m| m.header.tid()))
    .wireshark("infiniband.mad.transactionid")
    .parquet(Parquet::FullWidth),
    int!("mad.attr_id", "MAD attribute ID", |p| p
        .mad
        .map(|m| m.header.attr_id()))
    .wireshark("infiniband.mad.attributeid"),
    string!(
        "mad.attr_name",
        "MAD attribute name, e.g. PathRecord",
        |p| p
            .mad
            .map(|m| names::attr_name(m.header.mgmt_class(), m.header.attr_id()))
    ),
    int!("mad.attr_mod", "MAD attribute modifier", |p| p
        .mad
        .map(|m| m.header.attr_mod()))
    .wireshark("infiniband.mad.attributemodifier"),
    boolean!(
        "mad.dr.d",
        "directed-route SMP D bit: true on the way back",
        |p| dr(p).map(|h| h.direction())
    ),
    int!(
        "mad.dr.hop_pointer",
        "directed-route SMP hop pointer",
        |p| dr(p).map(|h| h.hop_pointer())
    ),
    int!("mad.dr.hop_count", "directed-route SMP hop count", |p| dr(
        p
    )
    .map(|h| h.hop_count())),
    int!(
        "mad.dr.dr_slid",
        "directed-route SMP DrSLID (where the return path starts)",
        |p| dr_smp(p).map(|s| s.dr_slid())
    ),
    each!(
        "mad.dr.initial_path",
        Type::Int,
        "directed-route SMP initial path: the output port at each hop, 1 to hop_count",
        |p, i| dr_hop(p, i, |s| s.initial_path()),
        int,
        DR_HOPS
    ),
    each!(
        "mad.dr.return_path",
        Type::Int,
        "directed-route SMP return path: the input port at each hop, 1 to hop_count",
        |p, i| dr_hop(p, i, |s| s.return_path()),
        int,
        DR_HOPS
    ),
    int!("mad.dr.dr_dlid", "directed-route SMP DrDLID", |p| dr_smp(p)
        .map(|s| s.dr_dlid())),
    int!("mad.m_key", "SMP management key", |p| p
        .mad
        .and_then(|m| m.smp())
        .map(|s| s.m_key()))
    .parquet(Parquet::FullWidth),
    int!(
        "mad.node_info.base_version",
        "NodeInfo MAD base version the node supports",
        |p| node_info(p).map(|n| n.base_version())
    ),
    int!(
        "mad.node_info.class_version",
        "NodeInfo SMP class version the node supports",
        |p| node_info(p).map(|n| n.class_version())
    ),
    int!(
        "mad.node_info.node_type",
        "NodeInfo node type: 1 CA, 2 switch, 3 router",
        |p| node_info(p).map(|n| n.node_type())
    ),
    int!(
        "mad.node_info.num_ports",
        "NodeInfo number of physical ports",
        |p| node_info(p).map(|n| n.num_ports())
    ),
    int!(
        "mad.node_info.system_image_guid",
        "NodeInfo system image GUID",
        |p| node_info(p).map(|n| n.system_image_guid())
    )
    .parquet(Parquet::FullWidth),
    int!("mad.node_info.node_guid", "NodeInfo node GUID", |p| {
        node_info(p).map(|n| n.node_guid())
    })
    .parquet(Parquet::FullWidth),
    int!(
        "mad.node_info.port_guid",
        "NodeInfo GUID of the port the SMP came in on",
        |p| node_info(p).map(|n| n.port_guid())
    )
    .parquet(Parquet::FullWidth),
    int!(
        "mad.node_info.partition_cap",
        "NodeInfo partition table entries per port",
        |p| node_info(p).map(|n| n.partition_cap())
    ),
    int!("mad.node_info.device_id", "NodeInfo device ID", |p| {
        node_info(p).map(|n| n.device_id())
    }),
    int!("mad.node_info.revision", "NodeInfo device revision", |p| {
        node_info(p).map(|n| n.revision())
    }),
    int!(
        "mad.node_info.local_port_num",
        "NodeInfo local port number: the port the SMP came in on",
        |p| node_info(p).map(|n| n.local_port_num())
    ),
    int!("mad.node_info.vendor_id", "NodeInfo vendor OUI", |p| {
        node_info(p).map(|n| n.vendor_id())
    }),
    int!("mad.port_info.m_key", "PortInfo management key", |p| {
        port_info(p).map(|i| i.m_key())
    })
    .parquet(Parquet::FullWidth),
    int!("mad.port_info.gid_prefix", "PortInfo GID prefix", |p| {
        port_info(p).map(|i| i.gid_prefix())
    })
    .parquet(Parquet::FullWidth),
    int!("mad.port_info.lid", "PortInfo base LID", |p| port_info(p)
        .map(|i| i.lid())),
    int!(
        "mad.port_info.master_sm_lid",
        "PortInfo master SM LID",
        |p| port_info(p).map(|i| i.master_sm_lid())
    ),
    int!(
        "mad.port_info.capability_mask",
        "PortInfo capability mask",
        |p| port_info(p).map(|i| i.capability_mask())
    ),
    int!(
        "mad.port_info.local_port_num",
        "PortInfo local port number",
        |p| port_info(p).map(|i| i.local_port_num())
    ),
    int!(
        "mad.port_info.link_width_active",
        "PortInfo active link width",
        |p| port_info(p).map(|i| i.link_width_active())
    ),
    int!(
        "mad.port_info.link_speed_active",
        "PortInfo active link speed",
        |p| port_info(p).map(|i| i.link_speed_active())
    ),
    int!(
        "mad.port_info.port_state",
        "PortInfo port state: 1 down, 2 init, 3 armed, 4 active",
        |p| port_info(p).map(|i| i.port_state())
    ),
    int!(
        "mad.port_info.port_phys_state",
        "PortInfo physical port state",
        |p| port_info(p).map(|i| i.port_phys_state())
    ),
    int!("mad.port_info.lmc", "PortInfo LID mask control", |p| {
        port_info(p).map(|i| i.lmc())
    }),
    int!(
        "mad.port_info.neighbor_mtu",
        "PortInfo neighbor MTU code",
        |p| port_info(p).map(|i| i.neighbor_mtu())
    ),
    int!(
        "mad.port_info.master_sm_sl",
        "PortInfo master SM service level",
        |p| port_info(p).map(|i| i.master_sm_sl())
    ),
    int!(
        "mad.port_info.mtu_cap",
        "PortInfo MTU capability code",
        |p| port_info(p).map(|i| i.mtu_cap())
    ),
    int!("mad.sm_info.guid", "SMInfo GUID of the SM", |p| sm_info(p)
        .map(|i| i.guid()))
    .parquet(Parquet::FullWidth),
    int!("mad.sm_info.sm_key", "SMInfo SM key", |p| sm_info(p)
        .map(|i| i.sm_key()))
    .parquet(Parquet::FullWidth),
    int!("mad.sm_info.act_count", "SMInfo activity counter", |p| {
        sm_info(p).map(|i| i.act_count())
    }),
    int!("mad.sm_info.priority", "SMInfo priority", |p| sm_info(p)
        .map(|i| i.priority())),
    int!("mad.sm_info.sm_state", "SMInfo SM state", |p| sm_info(p)
        .map(|i| i.sm_state())),
    int!("mad.sa.rmpp_type", "SubnAdm RMPP type", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.rmpp_type())),
    int!("mad.sa.rmpp_flags", "SubnAdm RMPP flags", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.rmpp_flags())),
    int!("mad.sa.rmpp_status", "SubnAdm RMPP status", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.rmpp_status())),
    int!("mad.sa.sm_key", "SubnAdm SM key", |p| p
        .mad
        .and_then(|m| m.sa())
        .map(|s| s.sm_key()))
    .parquet(Parquet::FullWidth),
    int!(
        "mad.sa.attr_offset",
        "SubnAdm attribute offset, in 8-byte words",
        |p| p.mad.and_then(|m| m.sa()).map(|s| s.attr_offset())
    ),
    int!(
        "mad.sa.component_mask",
        "SubnAdm component mask: which record fields the query sets",
        |p| p.mad.and_then(|m| m.sa()).map(|s| s.component_mask())
    )
    .parquet(Parquet::FullWidth),
    ip!(
        "mad.path_record.dgid",
        "PathRecord destination GID (the first record)",
        |p| path_record(p).map(|r| r.dgid())
    ),
    ip!(
        "mad.path_record.sgid",
        "PathRecord source GID (the first record)",
        |p| path_record(p).map(|r| r.sgid())
    ),
    int!(
        "mad.path_record.dlid",
        "PathRecord destination LID (the first record)",
        |p| path_record(p).map(|r| r.dlid())
    ),
    int!(
        "mad.path_record.slid",
        "PathRecord source LID (the first record)",
        |p| path_record(p).map(|r| r.slid())
    ),
    boolean!(
        "mad.path_record.raw_traffic",
        "PathRecord raw traffic bit (the first record)",
        |p| path_record(p).map(|r| r.raw_traffic())
    ),
    int!(
        "mad.path_record.flow_label",
        "PathRecord flow label (the first record)",
        |p| path_record(p).map(|r| r.flow_label())
    ),
    int!(
        "mad.path_record.hop_limit",
        "PathRecord hop limit (the first record)",
        |p| path_record(p).map(|r| r.hop_limit())
    ),
    int!(
        "mad.path_record.tclass",
        "PathRecord traffic class (the first record)",
        |p| path_record(p).map(|r| r.tclass())
    ),
    boolean!(
        "mad.path_record.reversible",
        "PathRecord reversible bit (the first record)",
        |p| path_record(p).map(|r| r.reversible())
    ),
    int!(
        "mad.path_record.num_path",
        "PathRecord number of paths asked for (the first record)",
        |p| path_record(p).map(|r| r.num_path())
    ),
    int!(
        "mad.path_record.pkey",
        "PathRecord partition key (the first record)",
        |p| path_record(p).map(|r| r.pkey())
    ),
    int!(
        "mad.path_record.sl",
        "PathRecord service level (the first record)",
        |p| path_record(p).map(|r| r.sl())
    ),
    int!(
        "mad.path_record.mtu_selector",
        "PathRecord MTU selector (the first record)",
        |p| path_record(p).map(|r| r.mtu_selector())
    ),
    int!(
        "mad.path_record.mtu",
        "PathRecord MTU code (the first record)",
        |p| path_record(p).map(|r| r.mtu())
    ),
    int!(
        "mad.path_record.mtu_bytes",
        "PathRecord MTU in bytes; absent for a reserved code (the first record)",
        |p| path_record(p).and_then(|r| names::mtu_bytes(r.mtu()))
    ),
    int!(
        "mad.path_record.rate_selector",
        "PathRecord rate selector (the first record)",
        |p| path_record(p).map(|r| r.rate_selector())
    ),
    int!(
        "mad.path_record.rate",
        "PathRecord rate code (the first record)",
        |p| path_record(p).map(|r| r.rate())
    ),
    int!(
        "mad.path_record.packet_lifetime_selector",
        "PathRecord packet lifetime selector (the first record)",
        |p| path_record(p).map(|r| r.packet_lifetime_selector())
    ),
    int!(
        "mad.path_record.packet_lifetime",
        "PathRecord packet lifetime (the first record)",
        |p| path_record(p).map(|r| r.packet_lifetime())
    ),
    int!(
        "mad.path_record.preference",
        "PathRecord preference (the first record)",
        |p| path_record(p).map(|r| r.preference())
    ),
    int!(
        "mad.port_counters.port_select",
        "PortCounters port the counters are of",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.port_select())
    ),
    int!(
        "mad.port_counters.counter_select",
        "PortCounters counters to clear (Set)",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.counter_select())
    ),
    int!(
        "mad.port_counters.symbol_errors",
        "PortCounters symbol errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.symbol_errors())
    ),
    int!(
        "mad.port_counters.link_error_recovery",
        "PortCounters link error recoveries",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.link_error_recovery())
    ),
    int!(
        "mad.port_counters.link_downed",
        "PortCounters link downed count",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.link_downed())
    ),
    int!(
        "mad.port_counters.rcv_errors",
        "PortCounters receive errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_errors())
    ),
    int!(
        "mad.port_counters.rcv_remote_physical_errors",
        "PortCounters remote physical errors received",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_remote_physical_errors())
    ),
    int!(
        "mad.port_counters.rcv_switch_relay_errors",
        "PortCounters switch relay errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_switch_relay_errors())
    ),
    int!(
        "mad.port_counters.xmit_discards",
        "PortCounters transmit discards",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.xmit_discards())
    ),
    int!(
        "mad.port_counters.xmit_constraint_errors",
        "PortCounters transmit constraint errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.xmit_constraint_errors())
    ),
    int!(
        "mad.port_counters.rcv_constraint_errors",
        "PortCounters receive constraint errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.rcv_constraint_errors())
    ),
    int!(
        "mad.port_counters.local_link_integrity_errors",
        "PortCounters local link integrity errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.local_link_integrity_errors())
    ),
    int!(
        "mad.port_counters.excessive_buffer_overrun_errors",
        "PortCounters excessive buffer overrun errors",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.excessive_buffer_overrun_errors())
    ),
    int!(
        "mad.port_counters.vl15_dropped",
        "PortCounters VL15 packets dropped",
        |p| p
            .mad
            .and_then(|m| m.port_counters())
            .map(|c| c.vl15_dropped())
    ),
    int!(
        "mad.port_counters.xmit_data",
        "PortCounters data transmitted, in 4-byte words",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.xmit_data())
    ),
    int!(
        "mad.port_counters.rcv_data",
        "PortCounters data received, in 4-byte words",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.rcv_data())
    ),
    int!(
        "mad.port_counters.xmit_pkts",
        "PortCounters packets transmitted",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.xmit_pkts())
    ),
    int!(
        "mad.port_counters.rcv_pkts",
        "PortCounters packets received",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.rcv_pkts())
    ),
    int!(
        "mad.port_counters.xmit_wait",
        "PortCounters ticks waiting to transmit",
        |p| p.mad.and_then(|m| m.port_counters()).map(|c| c.xmit_wait())
    ),
];

pub(super) const PRESENT: &[Field] =
    &[header!("mad", "carries a MAD", |p| p.mad.is_some()).wireshark("infiniband.mad")];

/// The common header of a directed-route SMP, whose hop fields need no body.
fn dr<'a>(p: &Packet<'a>) -> Option<MadHeader<'a>> {
    p.mad.map(|m| m.header).filter(|h| h.is_directed_route())
}

fn dr_smp<'a>(p: &Packet<'a>) -> Option<SmpBody<'a>> {
    p.mad
        .filter(|m| m.header.is_directed_route())
        .and_then(|m| m.smp())
}

/// Hop `i + 1` of a directed route's path: entry 0 is unused.
fn dr_hop(p: &Packet<'_>, i: usize, path: for<'b> fn(&SmpBody<'b>) -> &'b [u8; 64]) -> Option<u8> {
    let smp = dr_smp(p)?;
    let hops = usize::from(p.mad?.header.hop_count());
    if i >= hops {
        return None;
    }
    path(&smp).get(i + 1).copied()
}

fn node_info<'a>(p: &Packet<'a>) -> Option<NodeInfo<'a>> {
    match p.mad?.smp_attr()? {
        SmpAttr::NodeInfo(n) => Some(n),
        _ => None,
    }
}

fn port_info<'a>(p: &Packet<'a>) -> Option<PortInfo<'a>> {
    match p.mad?.smp_attr()? {
        SmpAttr::PortInfo(i) => Some(i),
        _ => None,
    }
}

fn sm_info<'a>(p: &Packet<'a>) -> Option<SmInfo<'a>> {
    match p.mad?.smp_attr()? {
        SmpAttr::SmInfo(i) => Some(i),
        _ => None,
    }
}

fn path_record<'a>(p: &Packet<'a>) -> Option<PathRecord<'a>> {
    p.mad.and_then(|m| m.path_record())
}
