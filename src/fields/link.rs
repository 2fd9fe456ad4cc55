//! The link layers: Ethernet with its VLAN tags, and InfiniBand's Local Route Header.

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, either, int};

/// Ethernet and its VLAN tags.
pub(super) const ETHERNET: &[Field] = &[
    Field::new("eth.src", Type::Mac, "Ethernet source MAC", |p| {
        p.eth.map(|e| Value::Mac(e.src().0))
    })
    .same_in_wireshark(),
    Field::new("eth.dst", Type::Mac, "Ethernet destination MAC", |p| {
        p.eth.map(|e| Value::Mac(e.dst().0))
    })
    .same_in_wireshark(),
    each!(
        "eth.addr",
        Type::Mac,
        "either Ethernet MAC, source or destination",
        |p, i| p
            .eth
            .and_then(|e| either(i, || Some(e.src().0), || Some(e.dst().0))),
        Value::Mac
    )
    .same_in_wireshark()
    .parquet(Parquet::NoColumn),
    int!("eth.type", "the first EtherType or VLAN TPID", |p| p
        .eth
        .map(|e| e.ethertype()))
    .same_in_wireshark(),
    header!("eth.vlan", "the frame has a VLAN tag", |p| !p
        .vlans
        .is_empty())
    .wireshark("vlan")
    // The tags' list columns say as much; a frame without a tag still has `eth` columns.
    .parquet(Parquet::NoColumn),
    each!(
        "eth.vlan.id",
        Type::Int,
        "VLAN ID of any tag",
        |p, i| p.vlans.iter().nth(i).map(|t| t.vid()),
        int
    )
    .wireshark("vlan.id"),
    each!(
        "eth.vlan.pcp",
        Type::Int,
        "VLAN priority (PCP) of any tag",
        |p, i| p.vlans.iter().nth(i).map(|t| t.pcp()),
        int
    )
    .wireshark("vlan.priority"),
    each!(
        "eth.vlan.dei",
        Type::Int,
        "VLAN drop eligible bit of any tag, 0 or 1",
        |p, i| p.vlans.iter().nth(i).map(|t| u8::from(t.dei())),
        int
    )
    .wireshark("vlan.dei"),
];

/// InfiniBand's Local Route Header.
pub(super) const LRH: &[Field] = &[
    int!("lrh.vl", "LRH virtual lane", |p| p.lrh.map(|l| l.vl())).wireshark("infiniband.lrh.vl"),
    int!("lrh.lver", "LRH link version", |p| p.lrh.map(|l| l.lver()))
        .wireshark("infiniband.lrh.lver"),
    int!("lrh.sl", "LRH service level", |p| p.lrh.map(|l| l.sl())).wireshark("infiniband.lrh.sl"),
    int!("lrh.lnh", "LRH link next header (2 BTH, 3 GRH)", |p| p
        .lrh
        .map(|l| l.lnh()))
    .wireshark("infiniband.lrh.lnh"),
    int!("lrh.dlid", "LRH destination LID", |p| p
        .lrh
        .map(|l| l.dlid()))
    .wireshark("infiniband.lrh.dlid"),
    int!("lrh.pktlen", "LRH packet length in 4-byte words", |p| p
        .lrh
        .map(|l| l.pktlen()))
    .wireshark("infiniband.lrh.pktlen"),
    int!("lrh.slid", "LRH source LID", |p| p.lrh.map(|l| l.slid()))
        .wireshark("infiniband.lrh.slid"),
    each!(
        "lrh.lid",
        Type::Int,
        "either LID, source or destination",
        |p, i| p
            .lrh
            .and_then(|l| either(i, || Some(l.slid()), || Some(l.dlid()))),
        int
    )
    .parquet(Parquet::NoColumn),
];

pub(super) const ETH_PRESENT: &[Field] =
    &[header!("eth", "has an Ethernet header", |p| p.eth.is_some()).same_in_wireshark()];

pub(super) const LRH_PRESENT: &[Field] = &[header!("lrh", "has an LRH (native InfiniBand)", |p| p
    .lrh
    .is_some())
.wireshark("infiniband.lrh")];
