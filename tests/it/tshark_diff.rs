//! Differential test against tshark: every capture in fixtures/, fixtures/scenarios/,
//! fixtures/connections/, fixtures/tunnel_pfc/ and the real captures is decoded by rdmadump and
//! by tshark, and every field both decode is compared frame by frame. tshark is an independent
//! implementation of the same specifications, so a field on which they disagree is either an
//! rdmadump bug or a tshark quirk; the quirks we know of are listed in KNOWN (and explained in
//! docs/tshark-differences.md), anything else fails the test. A KNOWN entry that no longer
//! reproduces fails too, so the list cannot rot.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::harness::{
    fixture, parse_line, rdmadump, real_capture, required, root, stderr, stdout, tool_available,
};

/// Options every tshark run gets.
const TSHARK_OPTS: &[&str] = &[
    // UDP port 69 is TFTP's, and tshark prefers the lower port, so RoCE v2 from source port 69
    // would be decoded as TFTP (the "[tftp enabled]" run shows it).
    "--disable-protocol",
    "tftp",
    // tshark's eth_over_ib heuristic is what decodes IPoIB in InfiniBand payloads; it stays on
    // so that rdmadump's IPoIB, IP, ARP, TCP and ICMP fields are compared.
];

/// How a tshark value is turned into the text rdmadump's value is compared with.
#[derive(Clone, Copy)]
enum Conv {
    /// An integer, which tshark prints in decimal or `0x` hex depending on the field's base.
    Num,
    /// Compared as printed (addresses).
    Text,
    /// A byte string (tshark 4.0 has only these for ImmDt and IETH), read big-endian.
    Bytes,
    /// All occurrences, each an integer, joined by commas (VLAN tag lists).
    NumList,
    /// tshark prints the CRC's bytes as one big-endian number, rdmadump the CRC value, which goes
    /// on the wire least significant byte first (all 43 CRCs of the real capture verify read
    /// that way): swap to compare.
    Swap32,
    Swap16,
    /// One bit of the raw BTH byte 8, which tshark 4.0 shows only as "Reserved" although its top
    /// bits are FECN (0x80) and BECN (0x40).
    Bit(u8),
    /// The AETH syndrome class (bits 6..5), as rdmadump names it.
    AckClass,
    /// The opcode name, from tshark's Info column (the only place -T fields has it).
    OpName,
    /// Seconds since the epoch with a decimal fraction, as integer nanoseconds.
    EpochNs,
    /// An IBA MTU code (1 = 256 ... 5 = 4096), which rdmadump gives in bytes.
    MtuBytes,
    /// A GID, which tshark shows as IPv4 when it is IPv4-mapped (RoCE v2).
    Gid,
    /// The CM message name, from tshark's Info column ("CM: ConnectRequest").
    CmName,
    /// A latency tshark gives in milliseconds (`nvme.cmd_latency`), as integer nanoseconds.
    MsAsNs,
    /// A latency tshark gives in seconds (`rpc.time`), as integer nanoseconds.
    SecAsNs,
}

struct Field {
    label: &'static str,
    /// JSON pointer into rdmadump's frame; a `*` segment collects every element of an array.
    ours: &'static str,
    /// tshark fields, the first one present is used.
    theirs: &'static [&'static str],
    conv: Conv,
}

struct Layer {
    name: &'static str,
    /// Present in rdmadump's frame when this pointer resolves.
    ours: &'static str,
    /// Present in tshark's when any of these fields is.
    markers: &'static [&'static str],
    /// Compared only when tshark has the layer (rdmadump's output cannot tell, e.g. the TPID).
    guarded: bool,
    /// Only for frames tshark read from the original file (not for ERF-wrapped copies).
    direct_only: bool,
    /// In a tunnelled frame rdmadump's layer is the inner one: tshark's innermost occurrence,
    /// among its field names the one whose protocol comes last in `frame.protocols`.
    inner: bool,
    fields: &'static [Field],
}

const fn f(
    label: &'static str,
    ours: &'static str,
    theirs: &'static [&'static str],
    conv: Conv,
) -> Field {
    Field {
        label,
        ours,
        theirs,
        conv,
    }
}

const fn layer(
    name: &'static str,
    ours: &'static str,
    markers: &'static [&'static str],
    fields: &'static [Field],
) -> Layer {
    Layer {
        name,
        ours,
        markers,
        guarded: false,
        direct_only: false,
        inner: false,
        fields,
    }
}

use Conv::*;

const LAYERS: &[Layer] = &[
    Layer {
        direct_only: true,
        ..layer(
            "frame",
            "/frame",
            &["frame.number"],
            &[
                f("frame.ts", "/ts_ns", &["frame.time_epoch"], EpochNs),
                f("frame.len", "/len", &["frame.len"], Num),
                f("frame.caplen", "/caplen", &["frame.cap_len"], Num),
            ],
        )
    },
    Layer {
        direct_only: true,
        ..layer(
            "erf",
            "/erf",
            &["erf.types.type"],
            &[
                f("erf.type", "/erf/type", &["erf.types.type"], Num),
                f("erf.wlen", "/erf/wlen", &["erf.wlen"], Num),
            ],
        )
    },
    layer(
        "sll",
        "/sll",
        &["sll.hatype"],
        &[
            f("sll.pkttype", "/sll/pkttype", &["sll.pkttype"], Num),
            f("sll.hatype", "/sll/hatype", &["sll.hatype"], Num),
            f(
                "sll.protocol",
                "/sll/protocol",
                &["sll.etype", "sll.ltype"],
                Num,
            ),
        ],
    ),
    // Tunnels, outermost first, as rdmadump's `tunnel` list; entries without the field (a
    // VXLAN beside a GRE) are skipped, as tshark has no occurrence for them.
    Layer {
        guarded: true,
        ..layer(
            "gre",
            "/tunnel",
            &["gre.proto"],
            &[
                f("gre.proto", "/tunnel/*/proto", &["gre.proto"], NumList),
                f("gre.key", "/tunnel/*/key", &["gre.key"], NumList),
                f(
                    "gre.seq",
                    "/tunnel/*/seq",
                    &["gre.sequence_number"],
                    NumList,
                ),
                f(
                    "gre.checksum",
                    "/tunnel/*/checksum",
                    &["gre.checksum"],
                    NumList,
                ),
            ],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "erspan",
            "/tunnel",
            &["erspan.spanid", "erspan.version"],
            &[
                f(
                    "erspan.ver",
                    "/tunnel/*/version",
                    &["erspan.version"],
                    NumList,
                ),
                f(
                    "erspan.spanid",
                    "/tunnel/*/session_id",
                    &["erspan.spanid"],
                    NumList,
                ),
                f("erspan.vlan", "/tunnel/*/vlan", &["erspan.vlan"], NumList),
                f("erspan.cos", "/tunnel/*/cos", &["erspan.cos"], NumList),
                f(
                    "erspan.index",
                    "/tunnel/*/index",
                    &["erspan.index"],
                    NumList,
                ),
                f(
                    "erspan.timestamp",
                    "/tunnel/*/timestamp",
                    &["erspan.timestamp"],
                    NumList,
                ),
                f("erspan.hw", "/tunnel/*/hw_id", &["erspan.hw"], NumList),
                f(
                    "erspan.platid",
                    "/tunnel/*/platform_id",
                    &["erspan.platid"],
                    NumList,
                ),
            ],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "vxlan",
            "/tunnel",
            &["vxlan.vni"],
            &[f("vxlan.vni", "/tunnel/*/vni", &["vxlan.vni"], NumList)],
        )
    },
    Layer {
        inner: true,
        ..layer(
            "eth",
            "/eth",
            &["eth.type"],
            &[
                f("eth.src", "/eth/src", &["eth.src"], Text),
                f("eth.dst", "/eth/dst", &["eth.dst"], Text),
                f("eth.type", "/eth/type", &["eth.type"], Num),
            ],
        )
    },
    // tshark's vlan.* lists the 802.1Q (C-)tags only; rdmadump's eth.vlan lists every tag.
    layer(
        "vlan",
        "/eth/vlan",
        &["vlan.id"],
        &[
            f("vlan.id", "/eth/vlan/*/id", &["vlan.id"], NumList),
            f("vlan.pcp", "/eth/vlan/*/pcp", &["vlan.priority"], NumList),
            f("vlan.dei", "/eth/vlan/*/dei", &["vlan.dei"], NumList),
        ],
    ),
    // An 802.1ad S-tag is always the outer one, so it is rdmadump's first tag.
    Layer {
        guarded: true,
        ..layer(
            "ieee8021ad",
            "/eth/vlan/0",
            &["ieee8021ad.id"],
            &[
                f("ieee8021ad.id", "/eth/vlan/0/id", &["ieee8021ad.id"], Num),
                f(
                    "ieee8021ad.pcp",
                    "/eth/vlan/0/pcp",
                    &["ieee8021ad.priority"],
                    Num,
                ),
                f(
                    "ieee8021ad.dei",
                    "/eth/vlan/0/dei",
                    &["ieee8021ad.dei"],
                    Num,
                ),
            ],
        )
    },
    Layer {
        inner: true,
        ..layer(
            "ip",
            "/ip",
            &["ip.version", "ipv6.version"],
            &[
                f(
                    "ip.version",
                    "/ip/version",
                    &["ip.version", "ipv6.version"],
                    Num,
                ),
                f("ip.src", "/ip/src", &["ip.src", "ipv6.src"], Text),
                f("ip.dst", "/ip/dst", &["ip.dst", "ipv6.dst"], Text),
                f(
                    "ip.dscp",
                    "/ip/dscp",
                    &["ip.dsfield.dscp", "ipv6.tclass.dscp"],
                    Num,
                ),
                f(
                    "ip.ecn",
                    "/ip/ecn",
                    &["ip.dsfield.ecn", "ipv6.tclass.ecn"],
                    Num,
                ),
                f("ip.ttl", "/ip/ttl", &["ip.ttl", "ipv6.hlim"], Num),
                f("ip.total_len", "/ip/total_len", &["ip.len"], Num),
                f("ip.proto", "/ip/proto", &["ip.proto"], Num),
                f("ip.flow_label", "/ip/flow_label", &["ipv6.flow"], Num),
                f("ip.payload_len", "/ip/payload_len", &["ipv6.plen"], Num),
            ],
        )
    },
    Layer {
        inner: true,
        ..layer(
            "udp",
            "/udp",
            &["udp.srcport"],
            &[
                f("udp.sport", "/udp/sport", &["udp.srcport"], Num),
                f("udp.dport", "/udp/dport", &["udp.dstport"], Num),
                f("udp.len", "/udp/len", &["udp.length"], Num),
                f("udp.checksum", "/udp/checksum", &["udp.checksum"], Num),
            ],
        )
    },
    layer(
        "ipoib",
        "/ipoib",
        &["ipoib.type", "infiniband.rwh.etype"],
        &[f(
            "ipoib.ethertype",
            "/ipoib/ethertype",
            &["ipoib.type", "infiniband.rwh.etype"],
            Num,
        )],
    ),
    layer(
        "arp",
        "/arp",
        &["arp.opcode"],
        &[
            f("arp.op", "/arp/op", &["arp.opcode"], Num),
            f(
                "arp.sender_ip",
                "/arp/sender_ip",
                &["arp.src.proto_ipv4"],
                Text,
            ),
            f(
                "arp.target_ip",
                "/arp/target_ip",
                &["arp.dst.proto_ipv4"],
                Text,
            ),
        ],
    ),
    layer(
        "tcp",
        "/tcp",
        &["tcp.srcport"],
        &[
            f("tcp.sport", "/tcp/sport", &["tcp.srcport"], Num),
            f("tcp.dport", "/tcp/dport", &["tcp.dstport"], Num),
        ],
    ),
    layer(
        "icmp",
        "/icmp",
        &["icmp.type", "icmpv6.type"],
        &[
            f(
                "icmp.type",
                "/icmp/type",
                &["icmp.type", "icmpv6.type"],
                Num,
            ),
            f(
                "icmp.code",
                "/icmp/code",
                &["icmp.code", "icmpv6.code"],
                Num,
            ),
        ],
    ),
    layer(
        "lrh",
        "/lrh",
        &["infiniband.lrh"],
        &[
            f("lrh.vl", "/lrh/vl", &["infiniband.lrh.vl"], Num),
            f("lrh.lver", "/lrh/lver", &["infiniband.lrh.lver"], Num),
            f("lrh.sl", "/lrh/sl", &["infiniband.lrh.sl"], Num),
            f("lrh.lnh", "/lrh/lnh", &["infiniband.lrh.lnh"], Num),
            f("lrh.dlid", "/lrh/dlid", &["infiniband.lrh.dlid"], Num),
            f("lrh.pktlen", "/lrh/pktlen", &["infiniband.lrh.pktlen"], Num),
            f("lrh.slid", "/lrh/slid", &["infiniband.lrh.slid"], Num),
        ],
    ),
    layer(
        "grh",
        "/grh",
        &["infiniband.grh"],
        &[
            f("grh.ipver", "/grh/ipver", &["infiniband.grh.ipver"], Num),
            f("grh.tclass", "/grh/tclass", &["infiniband.grh.tclass"], Num),
            f(
                "grh.flow_label",
                "/grh/flow_label",
                &["infiniband.grh.flowlabel"],
                Num,
            ),
            f("grh.paylen", "/grh/paylen", &["infiniband.grh.paylen"], Num),
            f("grh.nxthdr", "/grh/nxthdr", &["infiniband.grh.nxthdr"], Num),
            f("grh.hoplmt", "/grh/hoplmt", &["infiniband.grh.hoplmt"], Num),
            f("grh.sgid", "/grh/sgid", &["infiniband.grh.sgid"], Text),
            f("grh.dgid", "/grh/dgid", &["infiniband.grh.dgid"], Text),
        ],
    ),
    layer(
        "bth",
        "/bth",
        &["infiniband.bth"],
        &[
            f("bth.opcode", "/bth/opcode", &["infiniband.bth.opcode"], Num),
            f(
                "bth.opcode_name",
                "/bth/opcode_name",
                &["_ws.col.Info"],
                OpName,
            ),
            f("bth.se", "/bth/se", &["infiniband.bth.se"], Num),
            f("bth.migreq", "/bth/migreq", &["infiniband.bth.m"], Num),
            f("bth.pad", "/bth/pad", &["infiniband.bth.padcnt"], Num),
            f("bth.tver", "/bth/tver", &["infiniband.bth.tver"], Num),
            f("bth.pkey", "/bth/pkey", &["infiniband.bth.p_key"], Num),
            // The first infiniband.reserved is BTH byte 8: the LRH's reserved bits have
            // their own fields and the GRH has none.
            f("bth.fecn", "/bth/fecn", &["infiniband.reserved"], Bit(0x80)),
            f("bth.becn", "/bth/becn", &["infiniband.reserved"], Bit(0x40)),
            f(
                "bth.dest_qp",
                "/bth/dest_qp",
                &["infiniband.bth.destqp"],
                Num,
            ),
            f("bth.ack_req", "/bth/ack_req", &["infiniband.bth.a"], Num),
            f("bth.psn", "/bth/psn", &["infiniband.bth.psn"], Num),
        ],
    ),
    layer(
        "rdeth",
        "/rdeth",
        &["infiniband.rdeth"],
        &[f(
            "rdeth.eecnxt",
            "/rdeth/eecnxt",
            &["infiniband.rdeth.eecnxt"],
            Num,
        )],
    ),
    layer(
        "deth",
        "/deth",
        &["infiniband.deth"],
        &[
            f("deth.qkey", "/deth/qkey", &["infiniband.deth.q_key"], Num),
            f(
                "deth.src_qp",
                "/deth/src_qp",
                &["infiniband.deth.srcqp"],
                Num,
            ),
        ],
    ),
    layer(
        "reth",
        "/reth",
        &["infiniband.reth"],
        &[
            f("reth.va", "/reth/va", &["infiniband.reth.va"], Num),
            f("reth.rkey", "/reth/rkey", &["infiniband.reth.r_key"], Num),
            f(
                "reth.dma_len",
                "/reth/dma_len",
                &["infiniband.reth.dmalen"],
                Num,
            ),
        ],
    ),
    // tshark 4.0 files the AtomicETH's VA and R_Key under reth.*; an atomic request has no RETH,
    // so the first occurrence is the AtomicETH's.
    layer(
        "atomic_eth",
        "/atomic_eth",
        &["infiniband.atomiceth"],
        &[
            f(
                "atomic_eth.va",
                "/atomic_eth/va",
                &["infiniband.reth.va"],
                Num,
            ),
            f(
                "atomic_eth.rkey",
                "/atomic_eth/rkey",
                &["infiniband.reth.r_key"],
                Num,
            ),
            f(
                "atomic_eth.swap",
                "/atomic_eth/swap",
                &["infiniband.atomiceth.swapdt"],
                Num,
            ),
            f(
                "atomic_eth.compare",
                "/atomic_eth/compare",
                &["infiniband.atomiceth.cmpdt"],
                Num,
            ),
        ],
    ),
    layer(
        "aeth",
        "/aeth",
        &["infiniband.aeth"],
        &[
            f(
                "aeth.syndrome",
                "/aeth/syndrome",
                &["infiniband.aeth.syndrome"],
                Num,
            ),
            f(
                "aeth.kind",
                "/aeth/kind",
                &["infiniband.aeth.syndrome.opcode"],
                AckClass,
            ),
            f(
                "aeth.code",
                "/aeth/code",
                &[
                    "infiniband.aeth.syndrome.credit_count",
                    "infiniband.aeth.syndrome.timer",
                    "infiniband.aeth.syndrome.error_code",
                    "infiniband.aeth.syndrome.reserved_value",
                ],
                Num,
            ),
            f("aeth.msn", "/aeth/msn", &["infiniband.aeth.msn"], Num),
        ],
    ),
    layer(
        "atomic_ack_eth",
        "/atomic_ack_eth",
        &["infiniband.atomicacketh"],
        &[f(
            "atomic_ack_eth.orig",
            "/atomic_ack_eth/orig",
            &["infiniband.atomicacketh.origremdt"],
            Num,
        )],
    ),
    layer(
        "immdt",
        "/immdt",
        &["infiniband.immdt"],
        &[f("immdt", "/immdt", &["infiniband.immdt"], Bytes)],
    ),
    layer(
        "ieth",
        "/ieth",
        &["infiniband.ieth"],
        &[f("ieth", "/ieth", &["infiniband.ieth"], Bytes)],
    ),
    layer(
        "mad",
        "/mad",
        &["infiniband.mad.mgmtclass"],
        &[
            f(
                "mad.base_version",
                "/mad/base_version",
                &["infiniband.mad.baseversion"],
                Num,
            ),
            f(
                "mad.class",
                "/mad/class",
                &["infiniband.mad.mgmtclass"],
                Num,
            ),
            f(
                "mad.class_version",
                "/mad/class_version",
                &["infiniband.mad.classversion"],
                Num,
            ),
            f("mad.method", "/mad/method", &["infiniband.mad.method"], Num),
            f("mad.status", "/mad/status", &["infiniband.mad.status"], Num),
            f(
                "mad.tid",
                "/mad/tid",
                &["infiniband.mad.transactionid"],
                Num,
            ),
            f(
                "mad.attr_id",
                "/mad/attr_id",
                &["infiniband.mad.attributeid"],
                Num,
            ),
            f(
                "mad.attr_mod",
                "/mad/attr_mod",
                &["infiniband.mad.attributemodifier"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.dr",
        "/mad/dr/dr_slid",
        &["infiniband.smpdirected.drslid"],
        &[
            f(
                "mad.dr.hop_pointer",
                "/mad/dr/hop_pointer",
                &["infiniband.smpdirected.hoppointer"],
                Num,
            ),
            f(
                "mad.dr.hop_count",
                "/mad/dr/hop_count",
                &["infiniband.smpdirected.hopcount"],
                Num,
            ),
            f(
                "mad.dr.dr_slid",
                "/mad/dr/dr_slid",
                &["infiniband.smpdirected.drslid"],
                Num,
            ),
            f(
                "mad.dr.dr_dlid",
                "/mad/dr/dr_dlid",
                &["infiniband.smpdirected.drdlid"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.sm_info",
        "/mad/sm_info",
        &["infiniband.sminfo.guid"],
        &[
            f(
                "sm_info.guid",
                "/mad/sm_info/guid",
                &["infiniband.sminfo.guid"],
                Num,
            ),
            f(
                "sm_info.sm_key",
                "/mad/sm_info/sm_key",
                &["infiniband.sminfo.sm_key"],
                Num,
            ),
            f(
                "sm_info.act_count",
                "/mad/sm_info/act_count",
                &["infiniband.sminfo.actcount"],
                Num,
            ),
            f(
                "sm_info.priority",
                "/mad/sm_info/priority",
                &["infiniband.sminfo.priority"],
                Num,
            ),
            f(
                "sm_info.sm_state",
                "/mad/sm_info/sm_state",
                &["infiniband.sminfo.smstate"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.node_info",
        "/mad/node_info",
        &["infiniband.nodeinfo.nodetype"],
        &[
            f(
                "node_info.node_type",
                "/mad/node_info/node_type",
                &["infiniband.nodeinfo.nodetype"],
                Num,
            ),
            f(
                "node_info.num_ports",
                "/mad/node_info/num_ports",
                &["infiniband.nodeinfo.numports"],
                Num,
            ),
            f(
                "node_info.system_image_guid",
                "/mad/node_info/system_image_guid",
                &["infiniband.nodeinfo.systemimageguid"],
                Num,
            ),
            f(
                "node_info.node_guid",
                "/mad/node_info/node_guid",
                &["infiniband.nodeinfo.nodeguid"],
                Num,
            ),
            f(
                "node_info.port_guid",
                "/mad/node_info/port_guid",
                &["infiniband.nodeinfo.portguid"],
                Num,
            ),
            f(
                "node_info.partition_cap",
                "/mad/node_info/partition_cap",
                &["infiniband.nodeinfo.partitioncap"],
                Num,
            ),
            f(
                "node_info.device_id",
                "/mad/node_info/device_id",
                &["infiniband.nodeinfo.deviceid"],
                Num,
            ),
            f(
                "node_info.revision",
                "/mad/node_info/revision",
                &["infiniband.nodeinfo.revision"],
                Num,
            ),
            f(
                "node_info.local_port_num",
                "/mad/node_info/local_port_num",
                &["infiniband.nodeinfo.localportnum"],
                Num,
            ),
            f(
                "node_info.vendor_id",
                "/mad/node_info/vendor_id",
                &["infiniband.nodeinfo.vendorid"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.port_info",
        "/mad/port_info",
        &["infiniband.portinfo.lid"],
        &[
            f(
                "port_info.m_key",
                "/mad/port_info/m_key",
                &["infiniband.portinfo.m_key"],
                Num,
            ),
            f(
                "port_info.gid_prefix",
                "/mad/port_info/gid_prefix",
                &["infiniband.portinfo.guid"],
                Num,
            ),
            f(
                "port_info.lid",
                "/mad/port_info/lid",
                &["infiniband.portinfo.lid"],
                Num,
            ),
            f(
                "port_info.master_sm_lid",
                "/mad/port_info/master_sm_lid",
                &["infiniband.portinfo.mastersmlid"],
                Num,
            ),
            f(
                "port_info.capability_mask",
                "/mad/port_info/capability_mask",
                &["infiniband.portinfo.capabilitymask"],
                Num,
            ),
            f(
                "port_info.local_port_num",
                "/mad/port_info/local_port_num",
                &["infiniband.portinfo.localportnum"],
                Num,
            ),
            f(
                "port_info.link_width_active",
                "/mad/port_info/link_width_active",
                &["infiniband.portinfo.linkwidthactive"],
                Num,
            ),
            f(
                "port_info.link_speed_active",
                "/mad/port_info/link_speed_active",
                &["infiniband.portinfo.linkspeedactive"],
                Num,
            ),
            f(
                "port_info.port_state",
                "/mad/port_info/port_state",
                &["infiniband.portinfo.portstate"],
                Num,
            ),
            f(
                "port_info.port_phys_state",
                "/mad/port_info/port_phys_state",
                &["infiniband.portinfo.portphysicalstate"],
                Num,
            ),
            f(
                "port_info.lmc",
                "/mad/port_info/lmc",
                &["infiniband.portinfo.lmc"],
                Num,
            ),
            f(
                "port_info.neighbor_mtu",
                "/mad/port_info/neighbor_mtu",
                &["infiniband.portinfo.neighbormtu"],
                Num,
            ),
            f(
                "port_info.master_sm_sl",
                "/mad/port_info/master_sm_sl",
                &["infiniband.portinfo.mastersmsl"],
                Num,
            ),
            f(
                "port_info.mtu_cap",
                "/mad/port_info/mtu_cap",
                &["infiniband.portinfo.mtucap"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.sa",
        "/mad/sa",
        &["infiniband.sa.smkey"],
        &[
            f("sa.sm_key", "/mad/sa/sm_key", &["infiniband.sa.smkey"], Num),
            f(
                "sa.attr_offset",
                "/mad/sa/attr_offset",
                &["infiniband.sa.attributeoffset"],
                Num,
            ),
            f(
                "sa.component_mask",
                "/mad/sa/component_mask",
                &["infiniband.sa.componentmask"],
                Num,
            ),
            f(
                "sa.rmpp_type",
                "/mad/sa/rmpp_type",
                &["infiniband.rmpp.rmpptype"],
                Num,
            ),
            f(
                "sa.rmpp_status",
                "/mad/sa/rmpp_status",
                &["infiniband.rmpp.rmppstatus"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.path_record",
        "/mad/path_record",
        &["infiniband.pathrecord.dlid"],
        &[
            f(
                "path_record.dgid",
                "/mad/path_record/dgid",
                &["infiniband.pathrecord.dgid"],
                Text,
            ),
            f(
                "path_record.sgid",
                "/mad/path_record/sgid",
                &["infiniband.pathrecord.sgid"],
                Text,
            ),
            f(
                "path_record.dlid",
                "/mad/path_record/dlid",
                &["infiniband.pathrecord.dlid"],
                Num,
            ),
            f(
                "path_record.slid",
                "/mad/path_record/slid",
                &["infiniband.pathrecord.slid"],
                Num,
            ),
            f(
                "path_record.raw_traffic",
                "/mad/path_record/raw_traffic",
                &["infiniband.pathrecord.rawtraffic"],
                Num,
            ),
            f(
                "path_record.flow_label",
                "/mad/path_record/flow_label",
                &["infiniband.pathrecord.flowlabel"],
                Num,
            ),
            f(
                "path_record.hop_limit",
                "/mad/path_record/hop_limit",
                &["infiniband.pathrecord.hoplimit"],
                Num,
            ),
            f(
                "path_record.tclass",
                "/mad/path_record/tclass",
                &["infiniband.pathrecord.tclass"],
                Num,
            ),
            f(
                "path_record.reversible",
                "/mad/path_record/reversible",
                &["infiniband.pathrecord.reversible"],
                Num,
            ),
            f(
                "path_record.num_path",
                "/mad/path_record/num_path",
                &["infiniband.pathrecord.numbpath"],
                Num,
            ),
            f(
                "path_record.pkey",
                "/mad/path_record/pkey",
                &["infiniband.pathrecord.p_key"],
                Num,
            ),
            f(
                "path_record.sl",
                "/mad/path_record/sl",
                &["infiniband.pathrecord.sl"],
                Num,
            ),
            f(
                "path_record.mtu_selector",
                "/mad/path_record/mtu_selector",
                &["infiniband.pathrecord.mtuselector"],
                Num,
            ),
            f(
                "path_record.mtu",
                "/mad/path_record/mtu",
                &["infiniband.pathrecord.mtu"],
                Num,
            ),
            f(
                "path_record.rate_selector",
                "/mad/path_record/rate_selector",
                &["infiniband.pathrecord.rateselector"],
                Num,
            ),
            f(
                "path_record.rate",
                "/mad/path_record/rate",
                &["infiniband.pathrecord.rate"],
                Num,
            ),
            f(
                "path_record.packet_lifetime_selector",
                "/mad/path_record/packet_lifetime_selector",
                &["infiniband.pathrecord.packetlifetimeselector"],
                Num,
            ),
            f(
                "path_record.packet_lifetime",
                "/mad/path_record/packet_lifetime",
                &["infiniband.pathrecord.packetlifetime"],
                Num,
            ),
            f(
                "path_record.preference",
                "/mad/path_record/preference",
                &["infiniband.pathrecord.preference"],
                Num,
            ),
        ],
    ),
    layer(
        "mad.port_counters",
        "/mad/port_counters",
        &["infiniband.portcounters.portselect"],
        &[
            f(
                "port_counters.port_select",
                "/mad/port_counters/port_select",
                &["infiniband.portcounters.portselect"],
                Num,
            ),
            f(
                "port_counters.counter_select",
                "/mad/port_counters/counter_select",
                &["infiniband.portcounters.counterselect"],
                Num,
            ),
            f(
                "port_counters.symbol_errors",
                "/mad/port_counters/symbol_errors",
                &["infiniband.portcounters.symbolerrorcounter"],
                Num,
            ),
            f(
                "port_counters.link_error_recovery",
                "/mad/port_counters/link_error_recovery",
                &["infiniband.portcounters.linkerrorrecoverycounter"],
                Num,
            ),
            f(
                "port_counters.link_downed",
                "/mad/port_counters/link_downed",
                &["infiniband.portcounters.linkdownedcounter"],
                Num,
            ),
            f(
                "port_counters.rcv_errors",
                "/mad/port_counters/rcv_errors",
                &["infiniband.portcounters.portrcverrors"],
                Num,
            ),
            f(
                "port_counters.rcv_remote_physical_errors",
                "/mad/port_counters/rcv_remote_physical_errors",
                &["infiniband.portcounters.portrcvremotephysicalerrors"],
                Num,
            ),
            f(
                "port_counters.rcv_switch_relay_errors",
                "/mad/port_counters/rcv_switch_relay_errors",
                &["infiniband.portcounters.portrcvswitchrelayerrors"],
                Num,
            ),
            f(
                "port_counters.xmit_discards",
                "/mad/port_counters/xmit_discards",
                &["infiniband.portcounters.portxmitdiscards"],
                Num,
            ),
            f(
                "port_counters.xmit_constraint_errors",
                "/mad/port_counters/xmit_constraint_errors",
                &["infiniband.portcounters.portxmitconstrainterrors"],
                Num,
            ),
            f(
                "port_counters.rcv_constraint_errors",
                "/mad/port_counters/rcv_constraint_errors",
                &["infiniband.portcounters.portrcvconstrainterrors"],
                Num,
            ),
            f(
                "port_counters.local_link_integrity_errors",
                "/mad/port_counters/local_link_integrity_errors",
                &["infiniband.portcounters.locallinkintegrityerrors"],
                Num,
            ),
            f(
                "port_counters.excessive_buffer_overrun_errors",
                "/mad/port_counters/excessive_buffer_overrun_errors",
                &["infiniband.portcounters.excessivebufferoverrunerrors"],
                Num,
            ),
            f(
                "port_counters.vl15_dropped",
                "/mad/port_counters/vl15_dropped",
                &["infiniband.portcounters.vl15dropped"],
                Num,
            ),
            f(
                "port_counters.xmit_data",
                "/mad/port_counters/xmit_data",
                &["infiniband.portcounters.portxmitdata"],
                Num,
            ),
            f(
                "port_counters.rcv_data",
                "/mad/port_counters/rcv_data",
                &["infiniband.portcounters.portrcvdata"],
                Num,
            ),
            f(
                "port_counters.xmit_pkts",
                "/mad/port_counters/xmit_pkts",
                &["infiniband.portcounters.portxmitpkts"],
                Num,
            ),
            f(
                "port_counters.rcv_pkts",
                "/mad/port_counters/rcv_pkts",
                &["infiniband.portcounters.portrcvpkts"],
                Num,
            ),
        ],
    ),
    // tshark 4.0 decodes REQ, REP, RTU, REJ, DREQ and DREP only; each is compared when tshark
    // has it, and the message name when tshark names one.
    Layer {
        guarded: true,
        ..layer(
            "cm",
            "/cm",
            &[
                "infiniband.cm.req",
                "infiniband.cm.rep",
                "infiniband.cm.rtu.localcommid",
                "infiniband.cm.rej.localcommid",
                "infiniband.cm.dreq.localcommid",
                "infiniband.cm.drsp.localcommid",
            ],
            &[f("cm.name", "/cm/name", &["_ws.col.Info"], CmName)],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "cm.req",
            "/cm",
            &["infiniband.cm.req.localqpn"],
            &[
                f(
                    "cm.req.local_comm_id",
                    "/cm/local_comm_id",
                    &["infiniband.cm.req"],
                    Num,
                ),
                f(
                    "cm.req.service_id",
                    "/cm/service_id",
                    &["infiniband.cm.req.serviceid"],
                    Num,
                ),
                f(
                    "cm.req.local_qpn",
                    "/cm/local_qpn",
                    &["infiniband.cm.req.localqpn"],
                    Num,
                ),
                f(
                    "cm.req.starting_psn",
                    "/cm/starting_psn",
                    &["infiniband.cm.req.startpsn"],
                    Num,
                ),
                f("cm.req.pkey", "/cm/pkey", &["infiniband.cm.req.pkey"], Num),
                f(
                    "cm.req.path_mtu",
                    "/cm/path_mtu",
                    &["infiniband.cm.req.pppmtu"],
                    MtuBytes,
                ),
                f(
                    "cm.req.retry_count",
                    "/cm/retry_count",
                    &["infiniband.cm.req.retrcount"],
                    Num,
                ),
                f(
                    "cm.req.rnr_retry_count",
                    "/cm/rnr_retry_count",
                    &["infiniband.cm.req.rnrretrcount"],
                    Num,
                ),
                f(
                    "cm.req.local_ca_guid",
                    "/cm/local_ca_guid",
                    &["infiniband.cm.req.localcaguid"],
                    Num,
                ),
                f(
                    "cm.req.local_qkey",
                    "/cm/local_qkey",
                    &["infiniband.cm.req.localqkey"],
                    Num,
                ),
                f(
                    "cm.req.responder_resources",
                    "/cm/responder_resources",
                    &["infiniband.cm.req.responderres"],
                    Num,
                ),
                f(
                    "cm.req.initiator_depth",
                    "/cm/initiator_depth",
                    &["infiniband.cm.req.initdepth"],
                    Num,
                ),
                f(
                    "cm.req.max_cm_retries",
                    "/cm/max_cm_retries",
                    &["infiniband.cm.req.maxcmretr"],
                    Num,
                ),
                f("cm.req.srq", "/cm/srq", &["infiniband.cm.req.srq"], Num),
                f(
                    "cm.req.local_lid",
                    "/cm/primary_path/local_lid",
                    &["infiniband.cm.req.prim_locallid"],
                    Num,
                ),
                f(
                    "cm.req.remote_lid",
                    "/cm/primary_path/remote_lid",
                    &["infiniband.cm.req.prim_remotelid"],
                    Num,
                ),
                f(
                    "cm.req.local_gid",
                    "/cm/primary_path/local_gid",
                    &[
                        "infiniband.cm.req.prim_localgid",
                        "infiniband.cm.req.prim_localgid_ipv4",
                    ],
                    Gid,
                ),
                f(
                    "cm.req.remote_gid",
                    "/cm/primary_path/remote_gid",
                    &[
                        "infiniband.cm.req.prim_remotegid",
                        "infiniband.cm.req.prim_remotegid_ipv4",
                    ],
                    Gid,
                ),
                f(
                    "cm.req.flow_label",
                    "/cm/primary_path/flow_label",
                    &["infiniband.cm.req.prim_flowlabel"],
                    Num,
                ),
                f(
                    "cm.req.packet_rate",
                    "/cm/primary_path/packet_rate",
                    &["infiniband.cm.req.prim_pktrate"],
                    Num,
                ),
                f(
                    "cm.req.traffic_class",
                    "/cm/primary_path/traffic_class",
                    &["infiniband.cm.req.prim_tfcclass"],
                    Num,
                ),
                f(
                    "cm.req.hop_limit",
                    "/cm/primary_path/hop_limit",
                    &["infiniband.cm.req.prim_hoplim"],
                    Num,
                ),
                f(
                    "cm.req.sl",
                    "/cm/primary_path/sl",
                    &["infiniband.cm.req.prim_sl"],
                    Num,
                ),
                f(
                    "cm.req.local_ack_timeout",
                    "/cm/primary_path/local_ack_timeout",
                    &["infiniband.cm.req.prim_localacktout"],
                    Num,
                ),
            ],
        )
    },
    layer(
        "cm.ip_cm",
        "/cm/ip_cm",
        &["infiniband.cm.req.ip_cm.sport"],
        &[
            f(
                "cm.ip_cm.port_space",
                "/cm/ip_cm/port_space",
                &["infiniband.cm.req.serviceid.protocol"],
                Num,
            ),
            f(
                "cm.ip_cm.port",
                "/cm/ip_cm/port",
                &["infiniband.cm.req.serviceid.dport"],
                Num,
            ),
            f(
                "cm.ip_cm.ip_version",
                "/cm/ip_cm/ip_version",
                &["infiniband.cm.req.ip_cm.ipv"],
                Num,
            ),
            f(
                "cm.ip_cm.src_port",
                "/cm/ip_cm/src_port",
                &["infiniband.cm.req.ip_cm.sport"],
                Num,
            ),
            f(
                "cm.ip_cm.src_ip",
                "/cm/ip_cm/src_ip",
                &[
                    "infiniband.cm.req.ip_cm.sip4",
                    "infiniband.cm.req.ip_cm.sip6",
                ],
                Text,
            ),
            f(
                "cm.ip_cm.dst_ip",
                "/cm/ip_cm/dst_ip",
                &[
                    "infiniband.cm.req.ip_cm.dip4",
                    "infiniband.cm.req.ip_cm.dip6",
                ],
                Text,
            ),
        ],
    ),
    Layer {
        guarded: true,
        ..layer(
            "cm.rep",
            "/cm",
            &["infiniband.cm.rep.localqpn"],
            &[
                f(
                    "cm.rep.local_comm_id",
                    "/cm/local_comm_id",
                    &["infiniband.cm.rep"],
                    Num,
                ),
                f(
                    "cm.rep.remote_comm_id",
                    "/cm/remote_comm_id",
                    &["infiniband.cm.rep.remotecommid"],
                    Num,
                ),
                f(
                    "cm.rep.local_qpn",
                    "/cm/local_qpn",
                    &["infiniband.cm.rep.localqpn"],
                    Num,
                ),
                f(
                    "cm.rep.starting_psn",
                    "/cm/starting_psn",
                    &["infiniband.cm.rep.startpsn"],
                    Num,
                ),
                f(
                    "cm.rep.local_qkey",
                    "/cm/local_qkey",
                    &["infiniband.cm.rep.localqkey"],
                    Num,
                ),
                f(
                    "cm.rep.local_ca_guid",
                    "/cm/local_ca_guid",
                    &["infiniband.cm.rep.localcaguid"],
                    Num,
                ),
                f(
                    "cm.rep.responder_resources",
                    "/cm/responder_resources",
                    &["infiniband.cm.rep.respres"],
                    Num,
                ),
                f(
                    "cm.rep.initiator_depth",
                    "/cm/initiator_depth",
                    &["infiniband.cm.rep.initdepth"],
                    Num,
                ),
                f(
                    "cm.rep.rnr_retry_count",
                    "/cm/rnr_retry_count",
                    &["infiniband.cm.rep.rnrretrcount"],
                    Num,
                ),
                f("cm.rep.srq", "/cm/srq", &["infiniband.cm.rep.srq"], Num),
            ],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "cm.rtu",
            "/cm",
            &["infiniband.cm.rtu.localcommid"],
            &[
                f(
                    "cm.rtu.local_comm_id",
                    "/cm/local_comm_id",
                    &["infiniband.cm.rtu.localcommid"],
                    Num,
                ),
                f(
                    "cm.rtu.remote_comm_id",
                    "/cm/remote_comm_id",
                    &["infiniband.cm.rtu.remotecommid"],
                    Num,
                ),
            ],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "cm.rej",
            "/cm",
            &["infiniband.cm.rej.localcommid"],
            &[
                f(
                    "cm.rej.local_comm_id",
                    "/cm/local_comm_id",
                    &["infiniband.cm.rej.localcommid"],
                    Num,
                ),
                f(
                    "cm.rej.remote_comm_id",
                    "/cm/remote_comm_id",
                    &["infiniband.cm.rej.remotecommid"],
                    Num,
                ),
                f(
                    "cm.rej.reason",
                    "/cm/reason",
                    &["infiniband.cm.rej.reason"],
                    Num,
                ),
                f(
                    "cm.rej.rejected_msg",
                    "/cm/rejected_msg",
                    &["infiniband.cm.rej.msgrej"],
                    Num,
                ),
            ],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "cm.dreq",
            "/cm",
            &["infiniband.cm.dreq.localcommid"],
            &[
                f(
                    "cm.dreq.local_comm_id",
                    "/cm/local_comm_id",
                    &["infiniband.cm.dreq.localcommid"],
                    Num,
                ),
                f(
                    "cm.dreq.remote_comm_id",
                    "/cm/remote_comm_id",
                    &["infiniband.cm.dreq.remotecommid"],
                    Num,
                ),
                // tshark 4.0 files the DREQ's Remote QPN/EECN under a cm.req name.
                f(
                    "cm.dreq.remote_qpn",
                    "/cm/remote_qpn",
                    &["infiniband.cm.req.remoteqpneecn"],
                    Num,
                ),
            ],
        )
    },
    Layer {
        guarded: true,
        ..layer(
            "cm.drep",
            "/cm",
            &["infiniband.cm.drsp.localcommid"],
            &[
                f(
                    "cm.drep.local_comm_id",
                    "/cm/local_comm_id",
                    &["infiniband.cm.drsp.localcommid"],
                    Num,
                ),
                f(
                    "cm.drep.remote_comm_id",
                    "/cm/remote_comm_id",
                    &["infiniband.cm.drsp.remotecommid"],
                    Num,
                ),
            ],
        )
    },
    // rdmadump gives no stored value for an ICRC/VCRC the snaplen cut off.
    layer(
        "icrc",
        "/icrc/value",
        &["infiniband.invariant.crc"],
        &[f(
            "icrc.value",
            "/icrc/value",
            &["infiniband.invariant.crc"],
            Swap32,
        )],
    ),
    layer(
        "vcrc",
        "/vcrc/value",
        &["infiniband.variant.crc"],
        &[f(
            "vcrc.value",
            "/vcrc/value",
            &["infiniband.variant.crc"],
            Swap16,
        )],
    ),
    layer(
        "pfc",
        "/pfc",
        &["macc.cbfc.enbv"],
        &[
            f(
                "pfc.class_enable",
                "/pfc/class_enable",
                &["macc.cbfc.enbv"],
                Num,
            ),
            f(
                "pfc.quanta.0",
                "/pfc/quanta/0",
                &["macc.cbfc.pause_time.c0"],
                Num,
            ),
            f(
                "pfc.quanta.1",
                "/pfc/quanta/1",
                &["macc.cbfc.pause_time.c1"],
                Num,
            ),
            f(
                "pfc.quanta.2",
                "/pfc/quanta/2",
                &["macc.cbfc.pause_time.c2"],
                Num,
            ),
            f(
                "pfc.quanta.3",
                "/pfc/quanta/3",
                &["macc.cbfc.pause_time.c3"],
                Num,
            ),
            f(
                "pfc.quanta.4",
                "/pfc/quanta/4",
                &["macc.cbfc.pause_time.c4"],
                Num,
            ),
            f(
                "pfc.quanta.5",
                "/pfc/quanta/5",
                &["macc.cbfc.pause_time.c5"],
                Num,
            ),
            f(
                "pfc.quanta.6",
                "/pfc/quanta/6",
                &["macc.cbfc.pause_time.c6"],
                Num,
            ),
            f(
                "pfc.quanta.7",
                "/pfc/quanta/7",
                &["macc.cbfc.pause_time.c7"],
                Num,
            ),
        ],
    ),
    // NVMe-oF over RDMA (SLBA and NLB, the REQ's and REJ's private data are decoded by tshark on
    // no capture here: rows 49 and 50 of docs/tshark-differences.md). tshark splits NVMe-set commands (nvme.cmd.*), Fabrics commands
    // (nvme.fabrics.cmd.*), completions (nvme.cqe.*) and the CM private data (nvme-rdma.cm.*);
    // rdmadump has one `nvme` layer whose keys say which it is.
    layer(
        "nvme.cmd",
        "/nvme/nsid",
        &["nvme.cmd.opc"],
        &[
            f("nvme.cmd.opc", "/nvme/opcode", &["nvme.cmd.opc"], Num),
            f("nvme.cmd.cid", "/nvme/cid", &["nvme.cmd.cid"], Num),
            f("nvme.cmd.nsid", "/nvme/nsid", &["nvme.cmd.nsid"], Num),
            f(
                "nvme.cmd.sgl.type",
                "/nvme/sgl/type",
                &["nvme.cmd.sgl.type"],
                Num,
            ),
            f(
                "nvme.cmd.sgl1.addr",
                "/nvme/sgl/address",
                &["nvme.cmd.sgl1.addr"],
                Num,
            ),
            f(
                "nvme.cmd.sgl1.len",
                "/nvme/sgl/length",
                &["nvme.cmd.sgl1.len"],
                Num,
            ),
            f(
                "nvme.cmd.sgl1.key",
                "/nvme/sgl/key",
                &["nvme.cmd.sgl1.key"],
                Num,
            ),
        ],
    ),
    layer(
        "nvme.fabrics.cmd",
        "/nvme/fctype",
        &["nvme.fabrics.cmd.fctype"],
        &[
            f(
                "nvme.fabrics.cmd.fctype",
                "/nvme/fctype",
                &["nvme.fabrics.cmd.fctype"],
                Num,
            ),
            f(
                "nvme.fabrics.cmd.cid",
                "/nvme/cid",
                &["nvme.fabrics.cmd.cid"],
                Num,
            ),
            f(
                "nvme.fabrics.cmd.connect.qid",
                "/nvme/connect/qid",
                &["nvme.fabrics.cmd.connect.qid"],
                Num,
            ),
            f(
                "nvme.fabrics.cmd.connect.sqsize",
                "/nvme/connect/sqsize",
                &["nvme.fabrics.cmd.connect.sqsize"],
                Num,
            ),
            f(
                "nvme.fabrics.cmd.connect.kato",
                "/nvme/connect/kato",
                &["nvme.fabrics.cmd.connect.kato"],
                Num,
            ),
            f(
                "nvme.fabrics.cmd.prop_get_set.offset",
                "/nvme/property/offset",
                &["nvme.fabrics.cmd.prop_get_set.offset"],
                Num,
            ),
        ],
    ),
    layer(
        "nvme.cqe",
        "/nvme/sq_head",
        &["nvme.cqe.sqhd"],
        &[
            f("nvme.cqe.cid", "/nvme/cid", &["nvme.cqe.cid"], Num),
            f("nvme.cqe.sqhd", "/nvme/sq_head", &["nvme.cqe.sqhd"], Num),
            f("nvme.cqe.sqid", "/nvme/sq_id", &["nvme.cqe.sqid"], Num),
            f("nvme.cqe.status", "/nvme/status", &["nvme.cqe.status"], Num),
            f(
                "nvme.cqe.status.sc",
                "/nvme/sc",
                &["nvme.cqe.status.sc"],
                Num,
            ),
            f(
                "nvme.cqe.status.sct",
                "/nvme/sct",
                &["nvme.cqe.status.sct"],
                Num,
            ),
            f(
                "nvme.cmd_pkt",
                "/nvme/command/frame",
                &["nvme.cmd_pkt", "nvme.fabrics.cmd_pkt"],
                Num,
            ),
            f(
                "nvme.cmd_latency",
                "/nvme/command/latency_ns",
                &["nvme.cmd_latency", "nvme.fabrics.cmd_latency"],
                MsAsNs,
            ),
        ],
    ),
    layer(
        "nvme-rdma.cm",
        "/nvme/cm",
        &[
            "nvme-rdma.cm.req.qid",
            "nvme-rdma.cm.rsp.crqsize",
            "nvme-rdma.cm.rej.status",
        ],
        &[f(
            "nvme-rdma.cm.rsp.crqsize",
            "/nvme/cm/crqsize",
            &["nvme-rdma.cm.rsp.crqsize"],
            Num,
        )],
    ),
    // RPC-over-RDMA (RFC 8166), and the RPC and NFS inside. tshark shows the RPC header of a
    // call and of a reply in one `rpc` protocol; rdmadump's `rpcrdma.rpc` object says which.
    layer(
        "rpcordma",
        "/rpcrdma",
        &["rpcordma.xid"],
        &[
            f("rpcordma.xid", "/rpcrdma/xid", &["rpcordma.xid"], Num),
            f(
                "rpcordma.version",
                "/rpcrdma/version",
                &["rpcordma.version"],
                Num,
            ),
            f(
                "rpcordma.flow_control",
                "/rpcrdma/credits",
                &["rpcordma.flow_control"],
                Num,
            ),
            f(
                "rpcordma.msg_type",
                "/rpcrdma/msg_type",
                &["rpcordma.msg_type"],
                Num,
            ),
            f(
                "rpcordma.reads_count",
                "/rpcrdma/reads_count",
                &["rpcordma.reads_count"],
                Num,
            ),
            f(
                "rpcordma.writes_count",
                "/rpcrdma/writes_count",
                &["rpcordma.writes_count"],
                Num,
            ),
            f(
                "rpcordma.position",
                "/rpcrdma/reads/*/position",
                &["rpcordma.position"],
                NumList,
            ),
            f(
                "rpcordma.errcode",
                "/rpcrdma/error_code",
                &["rpcordma.errcode"],
                Num,
            ),
        ],
    ),
    layer(
        "rpc.call",
        "/rpcrdma/rpc/program",
        &["rpc.version"],
        &[
            f("rpc.call.xid", "/rpcrdma/rpc/xid", &["rpc.xid"], Num),
            f(
                "rpc.call.msgtyp",
                "/rpcrdma/rpc/msg_type",
                &["rpc.msgtyp"],
                Num,
            ),
            f("rpc.program", "/rpcrdma/rpc/program", &["rpc.program"], Num),
            f(
                "rpc.programversion",
                "/rpcrdma/rpc/version",
                &["rpc.programversion"],
                Num,
            ),
            f(
                "rpc.procedure",
                "/rpcrdma/rpc/procedure",
                &["rpc.procedure"],
                Num,
            ),
        ],
    ),
    layer(
        "rpc.reply",
        "/rpcrdma/rpc/reply_stat",
        &["rpc.replystat"],
        &[
            f("rpc.reply.xid", "/rpcrdma/rpc/xid", &["rpc.xid"], Num),
            f(
                "rpc.replystat",
                "/rpcrdma/rpc/reply_stat",
                &["rpc.replystat"],
                Num,
            ),
            f(
                "rpc.state_accept",
                "/rpcrdma/rpc/accept_stat",
                &["rpc.state_accept"],
                Num,
            ),
            f(
                "rpc.time",
                "/rpcrdma/call/latency_ns",
                &["rpc.time"],
                SecAsNs,
            ),
        ],
    ),
    layer(
        "nfs.call",
        "/rpcrdma/rpc/ops",
        &["nfs.opcode"],
        &[f(
            "nfs.opcode",
            "/rpcrdma/rpc/ops/*/op",
            &["nfs.opcode"],
            NumList,
        )],
    ),
    layer(
        "nfs.reply",
        "/rpcrdma/rpc/nfs_status",
        &["nfs.status", "nfs.nfsstat4"],
        &[f(
            "nfs.status",
            "/rpcrdma/rpc/nfs_status",
            &["nfs.status", "nfs.nfsstat4"],
            Num,
        )],
    ),
    // iSER (RFC 7145) and the iSCSI PDU inside (RFC 7143). tshark 4.0 decodes iSER only on a
    // connection whose CM REQ named port 3260.
    layer(
        "iser",
        "/iser",
        &["iser.flags"],
        &[
            f("iser.flags", "/iser/flags", &["iser.flags"], Num),
            f(
                "iser.flags.opcode",
                "/iser/opcode",
                &["iser.flags.opcode"],
                Num,
            ),
            f("iser.flags.wsv", "/iser/wsv", &["iser.flags.wsv"], Num),
            f("iser.flags.rsv", "/iser/rsv", &["iser.flags.rsv"], Num),
            f(
                "iser.write_stag",
                "/iser/write_stag",
                &["iser.write_stag"],
                Num,
            ),
            f(
                "iser.write_base_offset",
                "/iser/write_va",
                &["iser.write_base_offset"],
                Num,
            ),
            f(
                "iser.read_stag",
                "/iser/read_stag",
                &["iser.read_stag"],
                Num,
            ),
            f(
                "iser.read_base_offset",
                "/iser/read_va",
                &["iser.read_base_offset"],
                Num,
            ),
        ],
    ),
    layer(
        "iscsi",
        "/iser/iscsi",
        &["iscsi.opcode"],
        &[
            f("iscsi.opcode", "/iser/iscsi/opcode", &["iscsi.opcode"], Num),
            f(
                "iscsi.initiatortasktag",
                "/iser/iscsi/itt",
                &["iscsi.initiatortasktag"],
                Num,
            ),
            f(
                "iscsi.totalahslength",
                "/iser/iscsi/total_ahs_length",
                &["iscsi.totalahslength"],
                Num,
            ),
            f(
                "iscsi.datasegmentlength",
                "/iser/iscsi/data_segment_length",
                &["iscsi.datasegmentlength"],
                Num,
            ),
            f("iscsi.cmdsn", "/iser/iscsi/cmdsn", &["iscsi.cmdsn"], Num),
            f("iscsi.statsn", "/iser/iscsi/statsn", &["iscsi.statsn"], Num),
        ],
    ),
    layer(
        "iscsi.scsicommand",
        "/iser/iscsi/cdb_opcode",
        &["iscsi.scsicommand.expecteddatatransferlength"],
        &[
            f(
                "iscsi.scsicommand.R",
                "/iser/iscsi/read",
                &["iscsi.scsicommand.R"],
                Num,
            ),
            f(
                "iscsi.scsicommand.W",
                "/iser/iscsi/write",
                &["iscsi.scsicommand.W"],
                Num,
            ),
            f(
                "iscsi.scsicommand.expecteddatatransferlength",
                "/iser/iscsi/expected_data_length",
                &["iscsi.scsicommand.expecteddatatransferlength"],
                Num,
            ),
        ],
    ),
    layer(
        "iscsi.scsiresponse",
        "/iser/iscsi/residual_count",
        &["iscsi.scsiresponse.status"],
        &[
            f(
                "iscsi.scsiresponse.status",
                "/iser/iscsi/scsi_status",
                &["iscsi.scsiresponse.status"],
                Num,
            ),
            f(
                "iscsi.scsiresponse.residualcount",
                "/iser/iscsi/residual_count",
                &["iscsi.scsiresponse.residualcount"],
                Num,
            ),
            f(
                "iscsi.request_frame",
                "/iser/call/frame",
                &["iscsi.request_frame"],
                Num,
            ),
            f(
                "iscsi.time",
                "/iser/call/latency_ns",
                &["iscsi.time"],
                SecAsNs,
            ),
        ],
    ),
    // SMB Direct (MS-SMBD) and the SMB2 message inside (MS-SMB2). tshark 4.0's smb_direct
    // heuristic decodes any SEND that looks like one, CM or not.
    layer(
        "smb_direct",
        "/smbd",
        &["smb_direct.credits.requested"],
        &[
            f(
                "smb_direct.version.min",
                "/smbd/min_version",
                &["smb_direct.version.min"],
                Num,
            ),
            f(
                "smb_direct.version.max",
                "/smbd/max_version",
                &["smb_direct.version.max"],
                Num,
            ),
            f(
                "smb_direct.version.negotiated",
                "/smbd/negotiated_version",
                &["smb_direct.version.negotiated"],
                Num,
            ),
            f(
                "smb_direct.credits.requested",
                "/smbd/credits_requested",
                &["smb_direct.credits.requested"],
                Num,
            ),
            f(
                "smb_direct.credits.granted",
                "/smbd/credits_granted",
                &["smb_direct.credits.granted"],
                Num,
            ),
            f(
                "smb_direct.status",
                "/smbd/nt_status",
                &["smb_direct.status"],
                Num,
            ),
            f(
                "smb_direct.max_read_write_size",
                "/smbd/max_read_write_size",
                &["smb_direct.max_read_write_size"],
                Num,
            ),
            f(
                "smb_direct.preferred_send_size",
                "/smbd/preferred_send_size",
                &["smb_direct.preferred_send_size"],
                Num,
            ),
            f(
                "smb_direct.max_receive_size",
                "/smbd/max_receive_size",
                &["smb_direct.max_receive_size"],
                Num,
            ),
            f(
                "smb_direct.max_fragmented_size",
                "/smbd/max_fragmented_size",
                &["smb_direct.max_fragmented_size"],
                Num,
            ),
            f(
                "smb_direct.flags",
                "/smbd/flags",
                &["smb_direct.flags"],
                Num,
            ),
            f(
                "smb_direct.remaining_length",
                "/smbd/remaining_length",
                &["smb_direct.remaining_length"],
                Num,
            ),
            f(
                "smb_direct.data_offset",
                "/smbd/data_offset",
                &["smb_direct.data_offset"],
                Num,
            ),
            f(
                "smb_direct.data_length",
                "/smbd/data_length",
                &["smb_direct.data_length"],
                Num,
            ),
        ],
    ),
    layer(
        "smb2",
        "/smbd/smb2",
        &["smb2.cmd"],
        &[
            f("smb2.cmd", "/smbd/smb2/command", &["smb2.cmd"], Num),
            f(
                "smb2.msg_id",
                "/smbd/smb2/message_id",
                &["smb2.msg_id"],
                Num,
            ),
            f(
                "smb2.header_len",
                "/smbd/smb2/header_length",
                &["smb2.header_len"],
                Num,
            ),
            f("smb2.flags", "/smbd/smb2/flags", &["smb2.flags"], Num),
            f(
                "smb2.chain_offset",
                "/smbd/smb2/next_command",
                &["smb2.chain_offset"],
                Num,
            ),
            f("smb2.sesid", "/smbd/smb2/session_id", &["smb2.sesid"], Num),
            f("smb2.tid", "/smbd/smb2/tree_id", &["smb2.tid"], Num),
            f(
                "smb2.nt_status",
                "/smbd/smb2/nt_status",
                &["smb2.nt_status"],
                Num,
            ),
            f(
                "smb2.credits.requested",
                "/smbd/smb2/credits_requested",
                &["smb2.credits.requested"],
                Num,
            ),
            f(
                "smb2.credits.granted",
                "/smbd/smb2/credits_granted",
                &["smb2.credits.granted"],
                Num,
            ),
            f(
                "smb2.read_length",
                "/smbd/smb2/read_length",
                &["smb2.read_length"],
                Num,
            ),
            f(
                "smb2.read_remaining",
                "/smbd/smb2/data_remaining",
                &["smb2.read_remaining"],
                Num,
            ),
            f(
                "smb2.write_length",
                "/smbd/smb2/write_length",
                &["smb2.write_length"],
                Num,
            ),
            f(
                "smb2.file_offset",
                "/smbd/smb2/file_offset",
                &["smb2.file_offset"],
                Num,
            ),
            f("smb2.channel", "/smbd/smb2/channel", &["smb2.channel"], Num),
            f(
                "smb2.remaining_bytes",
                "/smbd/smb2/remaining_bytes",
                &["smb2.remaining_bytes"],
                Num,
            ),
            f(
                "smb2.buffer_descriptor.offset",
                "/smbd/smb2/buffers/*/offset",
                &["smb2.buffer_descriptor.offset"],
                NumList,
            ),
            f(
                "smb2.buffer_descriptor.token",
                "/smbd/smb2/buffers/*/token",
                &["smb2.buffer_descriptor.token"],
                NumList,
            ),
            f(
                "smb2.buffer_descriptor.length",
                "/smbd/smb2/buffers/*/length",
                &["smb2.buffer_descriptor.length"],
                NumList,
            ),
        ],
    ),
    layer(
        "smb2.response_to",
        "/smbd/call/frame",
        &["smb2.response_to"],
        &[
            f(
                "smb2.response_to",
                "/smbd/call/frame",
                &["smb2.response_to"],
                Num,
            ),
            f(
                "smb2.time",
                "/smbd/call/latency_ns",
                &["smb2.time"],
                SecAsNs,
            ),
        ],
    ),
    // Never in rdmadump's output: present only so that tshark decoding TFTP shows as a difference.
    layer("tftp", "/tftp", &["tftp.opcode"], &[]),
    layer(
        "pause",
        "/pause",
        &["macc.pause_time"],
        &[f(
            "pause.quanta",
            "/pause/quanta",
            &["macc.pause_time"],
            Num,
        )],
    ),
];

/// Fields asked of tshark besides the compared ones: the row key and record-kind evidence.
const EXTRA_FIELDS: &[&str] = &["frame.number", "frame.cb_pen", "frame.protocols"];

/// Which frames a known difference is about.
enum Frames {
    /// The whole file: tshark could not read it (diff frame number 0).
    File,
    /// These frame numbers (rdmadump's, except for `record.extra`, which is tshark's); every one
    /// must still differ.
    List(&'static [u64]),
    /// Every frame rdmadump decodes like this; at least one must still differ.
    Where(&'static str, fn(&Value) -> bool),
}

struct Known {
    /// The row of docs/tshark-differences.md that explains it.
    doc_row: usize,
    /// A run label (see `runs`), or `*` for every run.
    run: &'static str,
    frames: Frames,
    /// Diff labels, or prefixes ending in `*`; each must still be seen.
    fields: &'static [&'static str],
    reason: &'static str,
}

fn is_cm_mad(frame: &Value) -> bool {
    frame.pointer("/mad/class").and_then(Value::as_u64) == Some(0x07)
}

fn is_nvme_cm_req(frame: &Value) -> bool {
    frame.pointer("/nvme/type").and_then(Value::as_str) == Some("cm_req")
}

fn is_ipoib(frame: &Value) -> bool {
    frame.pointer("/ipoib").is_some() && frame.pointer("/bth").is_some()
}

fn is_cnp(frame: &Value) -> bool {
    frame.pointer("/bth/opcode").and_then(Value::as_u64) == Some(0x81)
}

const fn known(
    doc_row: usize,
    run: &'static str,
    frames: Frames,
    fields: &'static [&'static str],
    reason: &'static str,
) -> Known {
    Known {
        doc_row,
        run,
        frames,
        fields,
        reason,
    }
}

use Frames::{File, List, Where};

/// Every difference between tshark 4.0.17 and rdmadump on our captures, with its reason and the
/// row of docs/tshark-differences.md that gives the values and the spec references.
const KNOWN: &[Known] = &[
    known(
        37,
        "tunnels.pcap",
        List(&[5, 6]),
        &["eth"],
        "IP carried directly in GRE has no inner Ethernet header: rdmadump's eth is the inner \
         frame's, so absent (the outer MACs are in tunnel[0]); tshark's only eth is the outer.",
    ),
    known(
        38,
        "tunnels.pcap",
        List(&[10, 14]),
        &["ip", "udp"],
        "The inner frame is RoCE v1 (frame 10) or ARP (frame 14), without IP: rdmadump's ip and \
         udp are the inner frame's, so absent; tshark's are the outer ones.",
    ),
    known(
        39,
        "tunnels.pcap",
        List(&[13]),
        &["ip", "udp", "bth", "icrc"],
        "Inner IPv4 total length 100 bytes past the GRE payload: tshark dissects on from the \
         bytes there; rdmadump stops with error layer ipv4, as in malformed.pcap frame 5.",
    ),
    known(
        40,
        "tunnels.pcap",
        List(&[15]),
        &["gre"],
        "GRE version 1 (PPTP): tshark decodes it; rdmadump decapsulates version 0 only and \
         leaves the frame an IP frame of kind other.",
    ),
    known(
        41,
        "tunnels.pcap",
        List(&[16]),
        &["gre.proto", "eth", "ip.*", "udp", "bth", "icrc"],
        "Five nested GRE tunnels: rdmadump decodes four (MAX_TUNNELS) and says tunnel_too_deep, \
         its ip being the fifth tunnel's outer IPv4; tshark decodes all five and the RoCE inside.",
    ),
    known(
        44,
        "tunnels.pcap",
        List(&[19]),
        &["vxlan", "bth", "icrc"],
        "Outer UDP length 100 bytes past the IPv4 datagram: tshark warns and decodes the VXLAN and \
         the RoCE inside; rdmadump stops with error layer udp before entering the tunnel.",
    ),
    known(
        43,
        "tunnels.pcap",
        List(&[17]),
        &["vlan"],
        "The only VLAN tag is the outer frame's: tshark's vlan.* shows it; rdmadump's eth.vlan is \
         the inner frame's (none) and the outer tag is tunnel[0].eth_vlan (VID 10, PCP 5).",
    ),
    known(
        47,
        "tunnel_pfc/tunnel_pfc.pcap",
        List(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
        &["ip", "udp"],
        "The inner frame is PFC or PAUSE (EtherType 0x8808), without IP: rdmadump's ip and udp \
         are the inner frame's, so absent; tshark's are the outer ones (UDP for VXLAN).",
    ),
    known(
        42,
        "tunnels.pcap",
        List(&[11]),
        &["bth.opcode_name"],
        "snaplen-truncated inner packet: tshark's \"Invalid Packet Length from LRH!\" loses the \
         opcode from Info, as in roce_v2_crc_cases.pcap frame 5.",
    ),
    known(
        1,
        "ib_native.pcap",
        File,
        &["file.error"],
        "tshark 4.0 cannot open pcap linktype 247 (DLT_INFINIBAND): wiretap maps it to no \
         encapsulation. The run \"[ERF-wrapped]\" compares these packets instead.",
    ),
    known(
        2,
        "malformed_ib.pcap",
        File,
        &["file.error"],
        "tshark 4.0 cannot open pcap linktype 247 (DLT_INFINIBAND); see the [ERF-wrapped] run.",
    ),
    known(
        3,
        "multi_if.pcapng",
        List(&[2, 7]),
        &["lrh", "grh", "bth", "deth", "icrc", "vcrc"],
        "pcapng interface 1 has linktype 247, which tshark 4.0 shows as raw data \
         (\"WTAP_ENCAP = 0\"), decoding no header; see the [ERF-wrapped] run.",
    ),
    known(
        4,
        "multi_if.pcapng",
        List(&[7]),
        &["record.extra"],
        "tshark shows the Custom Block (type 0xBAD) as a frame of its own; it holds no packet \
         (pcapng: Custom Block), rdmadump skips it. tshark frame 7; its later frames are one higher.",
    ),
    known(
        5,
        "huge_caplen.pcap",
        List(&[1]),
        &["eth.*", "ip", "udp", "bth", "icrc"],
        "record 2's caplen (0xFFFFFFF0) is impossible in the standard layout, so wiretap guesses \
         the file is the \"RedHat 6.1 tcpdump\" variant with 24-byte record headers and reads \
         frame 1 eight bytes late (eth.src = 45:02:00:3c:...). The magic 0xa1b2c3d4 means the \
         standard 16-byte record header; rdmadump reads frame 1 right and reports record 2.",
    ),
    known(
        6,
        "roce_v2_ipv6_vlan.pcap",
        List(&[3]),
        &["vlan.*"],
        "QinQ: tshark files the outer 0x88a8 S-tag under ieee8021ad.* (compared separately, \
         equal) and only the inner C-tag under vlan.*; rdmadump lists both tags, outer first.",
    ),
    known(
        7,
        "roce_v2_opcodes.pcap",
        List(&[27]),
        &["bth.opcode_name"],
        "opcode 0x44 is RD SEND Only (IBA 9.2: RD opcodes are 0x40-0x5F); tshark 4.0 calls it \
         \"DC Send Only\" (Mellanox Dynamically Connected, a vendor reuse of the RD range).",
    ),
    known(
        8,
        "roce_v2_opcodes.pcap",
        List(&[27]),
        &["rdeth.eecnxt", "deth.*"],
        "for 0x44 tshark 4.0 takes 8 more bytes as part of the BTH (its DC header) before the \
         RDETH and DETH, so both are read 8 bytes late. IBA 9.2-9.3: the RDETH follows the \
         12-byte BTH directly, then the DETH.",
    ),
    known(
        9,
        "roce_v2_opcodes.pcap",
        List(&[30]),
        &["bth.opcode_name", "icrc"],
        "opcode 0xA4 is XRC SEND Only (IBA 9.2: XRC opcodes are 0xA0-0xBF); tshark 4.0 says \
         \"Unknown OpCode\", shows the XRCETH and the rest as vendor data and no ICRC.",
    ),
    known(
        10,
        "*",
        Where("every CNP (opcode 0x81)", is_cnp),
        &["bth.opcode_name", "icrc"],
        "opcode 0x81 is the RoCE v2 CNP (IBA Annex A17.9.3); tshark 4.0 says \"Unknown OpCode\" \
         and shows the 16 reserved bytes and the ICRC as vendor data, so it has no ICRC field.",
    ),
    known(
        11,
        "infiniband-erf.pcap",
        List(&[7, 8, 9, 27, 28, 29, 34, 35, 37]),
        &["bth.opcode_name"],
        "Communication Management MADs: tshark's CM dissector replaces the Info column \
         (\"CM: ConnectRequest\"), where the opcode name is read from; the opcode number agrees.",
    ),
    known(
        12,
        "roce_v2_crc_cases.pcap",
        List(&[5]),
        &["bth.opcode_name"],
        "snaplen-truncated packet: tshark checks the header-given length against the captured \
         length instead of the wire length, reports \"Invalid Packet Length from LRH!\" (on a \
         RoCE v2 packet, which has no LRH) and loses the opcode from Info.",
    ),
    known(
        12,
        "multi_if.pcapng",
        List(&[5]),
        &["bth.opcode_name"],
        "snaplen-truncated packet: tshark's \"Invalid Packet Length from LRH!\", as in \
         roce_v2_crc_cases.pcap frame 5.",
    ),
    known(
        12,
        "ib_native.pcap [ERF-wrapped]",
        List(&[6]),
        &["bth.opcode_name"],
        "snaplen-truncated packet: tshark's \"Invalid Packet Length from LRH!\" compares \
         PktLen with the captured length; the packet's wire length matches PktLen.",
    ),
    known(
        12,
        "erf_ip.pcap",
        List(&[4]),
        &["bth.opcode_name"],
        "ERF record snapped by the card (wlen beyond the record): tshark compares PktLen with \
         the captured length; the packet's wire length (wlen) matches PktLen.",
    ),
    known(
        13,
        "malformed.pcap",
        List(&[11]),
        &["icrc"],
        "tshark hands the 2-byte payload to its RPC-over-RDMA heuristic, which reads past it and \
         throws, ending the dissection before the ICRC is added.",
    ),
    known(
        13,
        "ib_native.pcap [ERF-wrapped]",
        List(&[9]),
        &["icrc", "vcrc"],
        "tshark's RPC-over-RDMA heuristic throws on the 8-byte payload, ending the dissection \
         before the ICRC and VCRC are added.",
    ),
    known(
        13,
        "multi_if.pcapng",
        List(&[8]),
        &["icrc"],
        "tshark's RPC-over-RDMA heuristic throws on the 8-byte payload, ending the dissection \
         before the ICRC is added.",
    ),
    known(
        14,
        "malformed.pcap",
        List(&[2, 4]),
        &["ip"],
        "IPv4 header cut short (frame 2) or IHL 4 (frame 4): tshark shows the fields it could \
         read; rdmadump shows no IPv4 header it cannot take whole and reports error layer ipv4.",
    ),
    known(
        15,
        "malformed.pcap",
        List(&[5]),
        &["ip", "udp", "bth", "icrc"],
        "IPv4 total length 100 bytes past the frame: tshark warns and dissects on from the bytes \
         there; rdmadump stops (RFC 791: the datagram is not all there) with error layer ipv4.",
    ),
    known(
        16,
        "malformed.pcap",
        List(&[7]),
        &["udp.checksum"],
        "UDP length 4 (< 8, RFC 768): tshark stops adding UDP fields at the bad length; \
         rdmadump shows the whole 8-byte header and reports error layer udp.",
    ),
    known(
        17,
        "malformed.pcap",
        List(&[10]),
        &["icrc"],
        "RETH cut short: tshark's exception ends the dissection before the ICRC; rdmadump finds \
         the ICRC at the end of the packet regardless and checks it.",
    ),
    known(
        18,
        "malformed.pcap",
        List(&[13]),
        &["bth", "icrc"],
        "RoCE v1 GRH PayLen 200 bytes past the frame: tshark ignores PayLen and dissects the \
         BTH; rdmadump stops at the GRH (IBA 8.3: PayLen gives the packet's length).",
    ),
    known(
        19,
        "malformed_ib.pcap [ERF-wrapped]",
        List(&[2, 4]),
        &["bth"],
        "LRH PktLen larger than the packet (2) or too small for LRH+BTH (4): tshark reports \
         \"Invalid Packet Length from LRH!\" and dissects the BTH anyway; rdmadump stops at \
         the LRH (IBA 7.7: PktLen gives the packet's length).",
    ),
    known(
        20,
        "roce_v2_sport69.pcap",
        List(&[2]),
        &["bth", "icrc"],
        "UDP 4791 -> 5000: tshark decodes RoCE v2 when either port is 4791; a RoCE v2 packet is \
         one whose destination port is 4791 (IBA Annex A17, RoCEv2: the source port is entropy), so \
         rdmadump says kind other.",
    ),
    known(
        20,
        "roce_v2_sport69.pcap [tftp enabled]",
        List(&[2]),
        &["bth", "icrc"],
        "UDP 4791 -> 5000, as in the run with TFTP disabled.",
    ),
    known(
        21,
        "roce_v2_sport69.pcap [tftp enabled]",
        List(&[1]),
        &["tftp", "bth", "icrc"],
        "UDP 69 -> 4791: with TFTP enabled (tshark's default) tshark prefers the lower port and \
         decodes TFTP; the destination port 4791 makes it RoCE v2 (IBA Annex A17). All \
         other runs use --disable-protocol tftp.",
    ),
    known(
        22,
        "mad_cm_ib.pcap",
        File,
        &["file.error"],
        "tshark 4.0 cannot open pcap linktype 247 (DLT_INFINIBAND); see the [ERF-wrapped] run.",
    ),
    known(
        23,
        "*",
        Where("a CM MAD", is_cm_mad),
        &["bth.opcode_name"],
        "Communication Management MADs: tshark's CM dissector replaces the Info column, as in \
         row 11, on every capture with CM messages.",
    ),
    known(
        24,
        "mad_cm_ib.pcap [ERF-wrapped]",
        List(&[7]),
        &["bth.opcode_name", "icrc", "vcrc"],
        "PerfGetResp(PortCounters): tshark's Performance Management dissector writes \
         \"PERF (PortCounters)\" into Info and ends the dissection, so no ICRC or VCRC.",
    ),
    known(
        25,
        "mad_cm_ib.pcap [ERF-wrapped]",
        List(&[19]),
        &["mad"],
        "A MAD cut by the snaplen: tshark stops at \"Invalid Packet Length from LRH!\"; rdmadump \
         shows the captured MAD header and says truncated.",
    ),
    known(
        26,
        "mad_cm_ib.pcap [ERF-wrapped]",
        List(&[20]),
        &["mad", "icrc", "vcrc"],
        "A 100-byte payload to QP1: tshark does not take it for a MAD and shows no CRC fields; \
         rdmadump shows the MAD header and flags the frame malformed (a MAD is 256 bytes).",
    ),
    known(
        27,
        "rdma-cm-rxe.pcap",
        List(&[1]),
        &["cm.req.flow_label", "cm.req.packet_rate"],
        "REQ primary path word 0x3a126000: IBA 12.6.5 gives Flow Label the top 20 bits (0x3a126) and \
         Packet Rate the low 6 (0); tshark 4.0 shows 0x003a1 and 0x3a, masks misplaced by a byte.",
    ),
    known(
        48,
        "nvme-rdma-discover.pcap",
        List(&[1]),
        &["cm.req.flow_label", "cm.req.packet_rate"],
        "REQ primary path word 0x2bba0006: Flow Label 0x2bba0, Packet Rate 6 (IBA 12.6.5); tshark \
         4.0 misplaces the masks by a byte as in row 27.",
    ),
    known(
        49,
        "*",
        Where("NVMe-oF CM REQ", is_nvme_cm_req),
        &["nvme-rdma.cm"],
        "tshark attaches NVMe-oF to the CM conversation the REQ creates, so the REQ's own private \
         data (NVMe-oF 1.1 figure 49) is not decoded; rdmadump decodes it.",
    ),
    known(
        50,
        "nvme/nvme_rdma.pcap",
        List(&[24, 26, 30, 32, 34, 36, 38, 46, 48, 52]),
        &["nvme.cmd", "nvme.cqe"],
        "The I/O queue whose CM was not captured: tshark recognises NVMe-oF only from CM and \
         decodes nothing; rdmadump recognises it by traffic from the first response (frame 24, \
         answering frame 20's CID).",
    ),
    known(
        51,
        "ulp/rpcrdma.pcap",
        List(&[4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15]),
        &["bth.opcode_name"],
        "For RPC-over-RDMA the RPC, NFS or RPC-over-RDMA dissector writes the Info column, \
         where the test reads the opcode name from; the opcode number agrees.",
    ),
    known(
        52,
        "ulp/rpcrdma.pcap",
        List(&[8]),
        &["icrc"],
        "The READ reply's data went into the write chunk (RFC 8166 3.4.5); tshark's NFS \
         dissector reads it inline, runs past the SEND and stops before the ICRC.",
    ),
    known(
        53,
        "ulp/rpcrdma.pcap",
        List(&[11]),
        &["rpcordma", "rpc.call", "nfs.call"],
        "tshark's rpcordma heuristic decodes any SEND with a valid version 1 header; rdmadump \
         learns a connection without CM only from a call answered by a reply with its XID, \
         so the first call stays undecoded.",
    ),
    known(
        54,
        "ulp/rpcrdma.pcap",
        List(&[12]),
        &["rpc.time", "nfs.reply"],
        "Without CM, tshark keys the RPC conversation by the destination QP, different for \
         call and reply, so it does not pair them; rdmadump pairs them by XID.",
    ),
    known(
        55,
        "ulp/rpcrdma.pcap",
        List(&[15]),
        &["rpc.call", "nfs.call"],
        "A read chunk at XDR position 148 whose RDMA READ is not captured: tshark waits to \
         reassemble and shows no RPC; rdmadump decodes the inline RPC header and operations.",
    ),
    known(
        56,
        "ulp/iser.pcap",
        List(&[4, 5, 6, 8, 9, 11, 12, 13]),
        &["bth.opcode_name"],
        "For iSER the iSCSI dissector writes the Info column, where the test reads the \
         opcode name from; the opcode number agrees.",
    ),
    known(
        57,
        "ulp/iser.pcap",
        List(&[14]),
        &["icrc"],
        "Connection 1 has no CM, so tshark's iSER does not claim the READ(16) SEND; its \
         RPC-over-RDMA heuristic takes it and throws, which ends the dissection before the ICRC.",
    ),
    known(
        58,
        "ulp/iser.pcap",
        List(&[15, 16, 17, 18]),
        &["iser", "iscsi", "iscsi.scsicommand", "iscsi.scsiresponse"],
        "The iSER connection whose CM was not captured: tshark recognises iSER only from a CM \
         REQ for port 3260 and decodes nothing; rdmadump recognises it by traffic from the \
         first response (frame 15, answering frame 14's ITT).",
    ),
    known(
        59,
        "ulp/smbd.pcap",
        List(&[4, 5, 6, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
        &["bth.opcode_name"],
        "For SMB Direct the SMBDirect or SMB2 dissector writes the Info column, where the test \
         reads the opcode name from; the opcode number agrees.",
    ),
    known(
        60,
        "ulp/smbd.pcap",
        List(&[5]),
        &["smb2.response_to"],
        "rdmadump pairs the SMB Direct negotiate response with its request and times it \
         (smbd.call); tshark links only SMB2 messages.",
    ),
    known(
        61,
        "ulp/smbd.pcap",
        List(&[11]),
        &["smb2.response_to"],
        "The interim STATUS_PENDING response: tshark links it to the WRITE; rdmadump times \
         the WRITE to its final response (frame 12) and leaves the interim one unlinked.",
    ),
    known(
        62,
        "ulp/smbd.pcap",
        List(&[15]),
        &["smb_direct", "smb2"],
        "tshark's smb_direct heuristic decodes any SEND that looks like SMB Direct; rdmadump \
         learns a connection without CM only from a request answered by a response with its \
         message ID, so the first request stays undecoded.",
    ),
    known(
        63,
        "ulp/smbd.pcap",
        List(&[16, 18]),
        &["smb2.response_to"],
        "Without CM, tshark keys the SMB2 conversation by the QP each SEND goes to, different \
         for request and response, so it does not pair them; rdmadump pairs them by message ID.",
    ),
    known(
        28,
        "infiniband-erf.pcap",
        List(&[7, 27, 34]),
        &["cm.req.packet_rate"],
        "REQ primary path word 0x00000003: Packet Rate (low 6 bits, IBA 12.6.5) is 3 (10 Gb/s); \
         tshark 4.0 reads it from the word's first byte, as in row 27, and shows 0.",
    ),
    known(
        29,
        "roce_v2_flush_aeth.pcap",
        List(&[1, 2]),
        &["bth.opcode_name", "reth", "icrc"],
        "opcodes 0x1C (FLUSH) and 0x1D (ATOMIC WRITE) came with IBA 1.5's persistent-memory \
         extensions; tshark 4.0 calls them unknown and decodes no RETH or ICRC after the BTH.",
    ),
    known(
        30,
        "*",
        Where("every IPoIB frame inside InfiniBand", is_ipoib),
        &["bth.opcode_name"],
        "For IPoIB the IP, UDP, ICMP or ARP dissector writes the Info column, where the test \
         reads the opcode name from; the opcode number agrees.",
    ),
    known(
        31,
        "ipoib_ud.pcap [ERF-wrapped]",
        List(&[11]),
        &["ipoib", "ip", "icmp", "bth.opcode_name"],
        "An RC SEND Only with an IPoIB payload and no CM exchange in the capture: tshark \
         guesses IPoIB, rdmadump does not guess on RC.",
    ),
    known(
        32,
        "ib_native.pcap [ERF-wrapped]",
        List(&[7]),
        &["ipoib"],
        "A Raw packet (LNH 0): tshark's field for the EtherType of its raw header is the one it \
         uses for IPoIB's too (infiniband.rwh.etype), the marker of the ipoib layer here; there \
         is no IPoIB header.",
    ),
    known(
        33,
        "ipoib_ud.pcap [ERF-wrapped]",
        List(&[9, 10]),
        &["ipoib", "ip", "bth.opcode_name"],
        "UD payloads with a zeroed reserved field after EtherType 0x0800 but no IPv4 header \
         that fits (version 9; total length beyond the payload): tshark takes them as IPoIB, \
         rdmadump's guess also wants the IPv4 header to agree with itself and the payload.",
    ),
    known(
        34,
        "ipoib_ud.pcap [ERF-wrapped]",
        List(&[7]),
        &["bth.opcode_name", "icrc", "vcrc"],
        "A UD SEND to QP1 whose payload is IPoIB-shaped, not a MAD: tshark's MAD dissector \
         throws on it, ending the dissection before the Info column, ICRC and VCRC.",
    ),
    known(
        35,
        "ib_no_vcrc.pcap [ERF-wrapped]",
        List(&[1, 2]),
        &["icrc.value", "vcrc"],
        "InfiniBand records without a VCRC (LRH PktLen * 4 is the record's length): tshark \
         takes the last 2 bytes as VCRC and the 4 before as ICRC.",
    ),
    known(
        35,
        "ib_no_vcrc.pcap [ERF-wrapped]",
        List(&[4]),
        &["bth"],
        "One byte after PktLen's end: tshark ignores it and dissects the BTH; rdmadump calls \
         the frame malformed (neither a VCRC nor none).",
    ),
    known(
        36,
        "ib_no_vcrc.pcap",
        File,
        &["file.error"],
        "tshark 4.0 cannot open pcap linktype 247; see the [ERF-wrapped] run.",
    ),
    known(
        36,
        "ipoib_ud.pcap",
        File,
        &["file.error"],
        "tshark 4.0 cannot open pcap linktype 247; see the [ERF-wrapped] run.",
    ),
    known(
        45,
        "connections/cm.pcap",
        List(&[1]),
        &[
            "cm.req.local_gid",
            "cm.req.remote_gid",
            "cm.ip_cm.src_ip",
            "cm.ip_cm.dst_ip",
        ],
        "A hand-packed RoCE v2 REQ with an RDMA IP CM service ID, link-local primary-path GIDs \
         and private data of IP version 0: tshark shows the GIDs as IPv4-mapped addresses made \
         of their last 4 bytes and the private data's addresses as \"::\"; rdmadump shows the \
         16 bytes the REQ carries and no address for an IP version that is neither 4 nor 6.",
    ),
    known(
        46,
        "connections/ib_fecn_becn.pcap",
        File,
        &["file.error"],
        "tshark 4.0 cannot open pcap linktype 247; see the [ERF-wrapped] run.",
    ),
];

/// One tshark invocation and the rdmadump frames its rows are compared with.
struct Run {
    label: String,
    /// What tshark reads: the capture itself or an ERF-wrapped copy.
    tshark_input: PathBuf,
    tshark_opts: Vec<&'static str>,
    /// rdmadump's frames, and for a wrapped copy, which of them tshark's rows are.
    ours: Vec<Value>,
    rows_are: Option<Vec<u64>>,
    /// rdmadump reported a damaged file (exit status or a warning).
    ours_damaged: Option<String>,
}

/// One disagreement. `field` is a label from LAYERS, a layer name alone when only one tool has
/// the layer, or `file.error`, `record.count`, `record.extra` about the file's records.
struct Diff {
    run: String,
    frame: u64,
    field: String,
    tshark: String,
    rdmadump: String,
}

impl std::fmt::Display for Diff {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            out,
            "{} frame {}: {}: tshark {:?}, rdmadump {:?}",
            self.run, self.frame, self.field, self.tshark, self.rdmadump
        )
    }
}

/// tshark alone (see `harness::required`).
fn tshark_available() -> bool {
    required(
        tool_available("tshark"),
        "tshark",
        "apt-get install -y tshark",
    )
}

fn all_tshark_fields() -> Vec<&'static str> {
    let mut names: Vec<&str> = EXTRA_FIELDS.to_vec();
    for layer in LAYERS {
        names.extend(layer.markers);
        for field in layer.fields {
            names.extend(field.theirs);
        }
    }
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(*n));
    names
}

fn spawn_tshark(input: &Path, opts: &[&str], fields: &[&str], config_dir: &Path) -> Child {
    let mut cmd = Command::new("tshark");
    // An empty personal configuration, so that nobody's preferences or Decode As rules change
    // what tshark says.
    cmd.env("WIRESHARK_CONFIG_DIR", config_dir);
    // -n: no name resolution, addresses as numbers. occurrence=a: all of a field's occurrences,
    // for VLAN tag lists (the first is taken everywhere else).
    cmd.arg("-n").arg("-r").arg(input).args(opts).args([
        "-T",
        "fields",
        "-E",
        "separator=/t",
        "-E",
        "occurrence=a",
    ]);
    for name in fields {
        cmd.args(["-e", name]);
    }
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tshark")
}

/// tshark's output for every run. Starting tshark costs a fifth of a CPU second and 150 MB, so
/// a few run at a time, on every core.
fn tshark_all(runs: &[Run], fields: &[&'static str], config_dir: &Path) -> Vec<TsharkOut> {
    let workers = std::thread::available_parallelism().map_or(2, |n| (n.get() + 1).min(8));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<TsharkOut>>> = runs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(run) = runs.get(index) else { break };
                    let child =
                        spawn_tshark(&run.tshark_input, &run.tshark_opts, fields, config_dir);
                    *slots[index].lock().unwrap() = Some(collect(child, fields));
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().unwrap().expect("every run done"))
        .collect()
}

type Row = HashMap<&'static str, Vec<String>>;

struct TsharkOut {
    rows: Vec<Row>,
    /// tshark's own error lines (not the "running as root" warning).
    errors: Vec<String>,
}

fn collect(child: Child, fields: &[&'static str]) -> TsharkOut {
    let out = child.wait_with_output().expect("wait for tshark");
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let mut row = Row::new();
            for (name, text) in fields.iter().zip(line.split('\t')) {
                if text.is_empty() {
                    continue;
                }
                // Info is one string, commas and all; other fields list occurrences.
                let values = if *name == "_ws.col.Info" {
                    vec![text.to_string()]
                } else {
                    text.split(',').map(str::to_string).collect()
                };
                row.insert(*name, values);
            }
            row
        })
        .collect();
    let errors = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("Running as user"))
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    TsharkOut { rows, errors }
}

fn parse_num(text: &str) -> Option<u128> {
    match text.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn parse_bool(text: &str) -> Option<u128> {
    match text {
        "1" | "True" | "true" => Some(1),
        "0" | "False" | "false" => Some(0),
        _ => parse_num(text),
    }
}

fn parse_bytes(text: &str) -> Option<u128> {
    let hex: String = text.chars().filter(|c| *c != ':').collect();
    u128::from_str_radix(&hex, 16).ok()
}

fn epoch_ns(text: &str) -> Option<String> {
    let (secs, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 9 {
        return None;
    }
    let ns =
        secs.parse::<u128>().ok()? * 1_000_000_000 + format!("{frac:0<9}").parse::<u128>().ok()?;
    Some(ns.to_string())
}

/// An opcode name without the words the two tools spell differently.
fn op_key(name: &str) -> String {
    name.to_uppercase()
        .replace("_WITH_", "_")
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// tshark's value of `field`, or None when tshark does not have it. A value this test cannot
/// parse comes back as such, to show up as a difference rather than as an absence.
fn theirs_value(row: &Row, field: &Field, inner: Option<&[&'static str]>) -> Option<String> {
    let values = match inner {
        Some(markers) => innermost_values(row, field.theirs, markers)?,
        None => field.theirs.iter().find_map(|name| row.get(name))?,
    };
    let first = if inner.is_some() {
        values.last()?.as_str()
    } else {
        values.first()?.as_str()
    };
    let num = |n: Option<u128>| n.map(|n| n.to_string());
    let value = match field.conv {
        Num => num(parse_bool(first)),
        Text => Some(first.to_string()),
        Bytes => num(parse_bytes(first)),
        NumList => values
            .iter()
            .map(|v| num(parse_bool(v)))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(",")),
        Swap32 => num(parse_num(first).map(|n| u128::from((n as u32).swap_bytes()))),
        Swap16 => num(parse_num(first).map(|n| u128::from((n as u16).swap_bytes()))),
        Bit(mask) => num(parse_bytes(first).map(|b| u128::from(b as u8 & mask != 0))),
        AckClass => match parse_num(first)? {
            0 => Some("ack".into()),
            1 => Some("rnr_nak".into()),
            2 => Some("reserved".into()),
            3 => Some("nak".into()),
            other => Some(other.to_string()),
        },
        // Only the InfiniBand dissector writes "<opcode> QP=0x..." into Info; any other text
        // there means tshark has no opcode name for the frame.
        OpName => return first.split_once("QP=").map(|(name, _)| op_key(name)),
        EpochNs => epoch_ns(first),
        MtuBytes => num(parse_num(first).map(|code| 128 << code)),
        Gid => Some(match first.parse::<std::net::Ipv4Addr>() {
            Ok(v4) => v4.to_ipv6_mapped().to_string(),
            Err(_) => first.to_string(),
        }),
        MsAsNs => first
            .parse::<f64>()
            .ok()
            .map(|ms| ((ms * 1e6).round() as u64).to_string()),
        SecAsNs => epoch_ns(first),
        CmName => first
            .split_once("CM: ")
            .map(|(_, name)| name.split_whitespace().next().unwrap_or("").to_string()),
    };
    Some(value.unwrap_or_else(|| format!("unparsable {values:?}")))
}

/// The occurrences of the one of `names` that belongs to the layer's innermost protocol: of
/// the protocols the layer's `markers` name (IPv4, IPv6), the one tshark dissected last.
fn innermost_values<'r>(
    row: &'r Row,
    names: &[&'static str],
    markers: &[&'static str],
) -> Option<&'r Vec<String>> {
    let protocols = row.get("frame.protocols")?.first()?;
    let protocol_of = |name: &'static str| name.split('.').next().unwrap_or(name);
    let depth = |name: &'static str| {
        protocols
            .split(':')
            .enumerate()
            .filter(|(_, p)| *p == protocol_of(name))
            .map(|(i, _)| i)
            .last()
    };
    let innermost = markers
        .iter()
        .filter(|name| row.contains_key(*name))
        .max_by_key(|name| depth(name))?;
    names
        .iter()
        .find(|name| protocol_of(name) == protocol_of(innermost) && row.contains_key(*name))
        .and_then(|name| row.get(name))
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Bool(b) => Some(u8::from(*b).to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn ours_value(frame: &Value, field: &Field) -> Option<String> {
    let value = match field.ours.split_once("/*") {
        Some((list, rest)) => {
            let items = frame.pointer(list)?.as_array()?;
            let parts: Vec<String> = items
                .iter()
                .filter_map(|item| item.pointer(rest).and_then(scalar))
                .collect();
            if parts.is_empty() {
                return None;
            }
            parts.join(",")
        }
        None => scalar(frame.pointer(field.ours)?)?,
    };
    Some(match field.conv {
        OpName => op_key(&value),
        _ => value,
    })
}

fn has(row: &Row, names: &[&str]) -> bool {
    names.iter().any(|n| row.contains_key(n))
}

const ABSENT: &str = "<absent>";

/// How many field values were compared, in all and per field label.
#[derive(Default)]
struct Tally {
    compared: usize,
    per_field: HashMap<&'static str, usize>,
}

impl Tally {
    fn add(&mut self, label: &'static str) {
        self.compared += 1;
        *self.per_field.entry(label).or_default() += 1;
    }
}

/// Chosen a little under what the captures give (20,582 with tshark 4.0.17), so that losing a
/// capture or a layer fails the test even if no difference appears.
const MIN_COMPARED: usize = 19_000;

fn compare_frame(run: &Run, ours: &Value, row: &Row, diffs: &mut Vec<Diff>, tally: &mut Tally) {
    let frame = ours["frame"].as_u64().unwrap_or(0);
    let mut push = |field: &str, tshark: Option<String>, rdmadump: Option<String>| {
        diffs.push(Diff {
            run: run.label.clone(),
            frame,
            field: field.to_string(),
            tshark: tshark.unwrap_or_else(|| ABSENT.into()),
            rdmadump: rdmadump.unwrap_or_else(|| ABSENT.into()),
        })
    };
    for layer in LAYERS {
        if layer.direct_only && run.rows_are.is_some() {
            continue;
        }
        let ours_has = ours.pointer(layer.ours).is_some_and(|v| !v.is_null());
        let inner = (layer.inner && ours.get("tunnel").is_some()).then_some(layer.markers);
        let theirs_has = has(row, layer.markers);
        if layer.guarded && !theirs_has {
            continue;
        }
        match (ours_has, theirs_has) {
            (false, false) => continue,
            (true, false) => push(layer.name, None, Some("present".into())),
            (false, true) => push(layer.name, Some("present".into()), None),
            (true, true) => {
                for field in layer.fields {
                    let (o, t) = (ours_value(ours, field), theirs_value(row, field, inner));
                    match (&o, &t) {
                        (None, None) => {}
                        (Some(a), Some(b)) if a == b => tally.add(field.label),
                        (Some(_), Some(_)) => {
                            tally.add(field.label);
                            push(field.label, t, o);
                        }
                        _ => push(field.label, t, o),
                    }
                }
            }
        }
    }
}

fn compare_run(run: &Run, out: &TsharkOut, diffs: &mut Vec<Diff>, tally: &mut Tally) {
    let mut diff = |frame: u64, field: &str, tshark: String, rdmadump: String| {
        diffs.push(Diff {
            run: run.label.clone(),
            frame,
            field: field.into(),
            tshark,
            rdmadump,
        })
    };
    if out.rows.is_empty() && !out.errors.is_empty() {
        diff(
            0,
            "file.error",
            out.errors.join(" "),
            format!("read {} frames", run.ours.len()),
        );
        return;
    }
    let theirs_damaged = (!out.errors.is_empty()).then(|| out.errors.join(" "));
    if theirs_damaged.is_some() != run.ours_damaged.is_some() {
        diff(
            0,
            "file.error",
            theirs_damaged.unwrap_or_else(|| ABSENT.into()),
            run.ours_damaged.clone().unwrap_or_else(|| ABSENT.into()),
        );
    }
    // A pcapng Custom Block is not a packet, but tshark 4.0 shows it as a frame of its own.
    let mut rows = Vec::new();
    for row in &out.rows {
        if let Some(pen) = row.get("frame.cb_pen") {
            let number = row["frame.number"][0].parse().unwrap_or(0);
            diff(
                number,
                "record.extra",
                format!("custom block record, PEN {}", pen[0]),
                "no record".into(),
            );
        } else {
            rows.push(row);
        }
    }
    let ours: Vec<&Value> = match &run.rows_are {
        None => run.ours.iter().collect(),
        Some(numbers) => numbers
            .iter()
            .map(|n| &run.ours[usize::try_from(*n).unwrap() - 1])
            .collect(),
    };
    if ours.len() != rows.len() {
        diff(
            0,
            "record.count",
            rows.len().to_string(),
            ours.len().to_string(),
        );
    }
    for (frame, row) in ours.iter().zip(rows) {
        compare_frame(run, frame, row, diffs, tally);
    }
}

/// Where docs/tshark-differences.md and KNOWN do not say the same: a KNOWN entry whose row is
/// missing or names another capture, or a row no entry refers to.
fn doc_mismatches() -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/tshark-differences.md"))
        .expect("docs/tshark-differences.md");
    let rows: HashMap<usize, &str> = doc
        .lines()
        .filter_map(|line| {
            let (number, _) = line.strip_prefix("| ")?.split_once(" |")?;
            Some((number.parse().ok()?, line))
        })
        .collect();
    let mut problems = Vec::new();
    for known in KNOWN {
        let capture = known.run.split(" [").next().unwrap();
        match rows.get(&known.doc_row) {
            None => problems.push(format!(
                "docs/tshark-differences.md has no row {} ({})",
                known.doc_row, known.reason
            )),
            Some(row) if known.run != "*" && !row.contains(capture) => problems.push(format!(
                "docs/tshark-differences.md row {} does not mention {capture}",
                known.doc_row
            )),
            Some(_) => {}
        }
    }
    for number in rows.keys() {
        if !KNOWN.iter().any(|k| k.doc_row == *number) {
            problems.push(format!(
                "docs/tshark-differences.md row {number} is not in KNOWN"
            ));
        }
    }
    problems
}

/// KNOWN entries some of whose frames or fields no longer differ, among those whose run was
/// made (`labels`): an entry about a real capture that is not there cannot be checked.
fn stale_known<'a>(
    diffs: &[Diff],
    labels: &[&str],
    frame_of: impl Fn(&Diff) -> Option<&'a Value>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for known in KNOWN {
        if !labels.iter().any(|label| run_matches(known.run, label)) {
            continue;
        }
        let hits: Vec<&Diff> = diffs
            .iter()
            .filter(|d| covers(known, d, frame_of(d)))
            .collect();
        let mut unseen: Vec<String> = known
            .fields
            .iter()
            .filter(|p| !hits.iter().any(|d| field_matches(p, &d.field)))
            .map(|p| p.to_string())
            .collect();
        if let Frames::List(list) = &known.frames {
            unseen.extend(
                list.iter()
                    .filter(|n| !hits.iter().any(|d| d.frame == **n))
                    .map(|n| format!("frame {n}")),
            );
        }
        if !unseen.is_empty() {
            problems.push(format!(
                "known difference no longer reproduces, update KNOWN and \
                 docs/tshark-differences.md row {}: {} {} {:?}, not seen: {} ({})",
                known.doc_row,
                known.run,
                describe(&known.frames),
                known.fields,
                unseen.join(", "),
                known.reason
            ));
        }
    }
    problems
}

/// The label of a known entry's frames, for messages.
fn describe(frames: &Frames) -> String {
    match frames {
        Frames::File => "file".into(),
        Frames::List(list) => format!("frames {list:?}"),
        Frames::Where(what, _) => what.to_string(),
    }
}

fn field_matches(pattern: &str, field: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => field.starts_with(prefix),
        None => pattern == field,
    }
}

fn run_matches(pattern: &str, run: &str) -> bool {
    pattern == "*" || pattern == run
}

/// Whether `known` covers `diff`.
fn covers(known: &Known, diff: &Diff, frame: Option<&Value>) -> bool {
    run_matches(known.run, &diff.run)
        && known.fields.iter().any(|p| field_matches(p, &diff.field))
        && match &known.frames {
            Frames::File => diff.frame == 0,
            Frames::List(list) => list.contains(&diff.frame),
            Frames::Where(_, pred) => frame.is_some_and(pred),
        }
}

/// A capture record of a link type tshark 4.0 cannot read, kept to wrap it in ERF.
struct IbRecord {
    /// rdmadump's frame number for it.
    frame: u64,
    data: Vec<u8>,
    wire_len: u32,
}

const LINKTYPE_INFINIBAND: u32 = 247;

/// The records of a pcap or pcapng file whose link type is 247, numbered as rdmadump numbers
/// frames (pcapng: EPB, SPB and obsolete PB, in file order). Written for our fixtures' few
/// layouts; a record it cannot parse ends the walk.
fn infiniband_records(bytes: &[u8]) -> Vec<IbRecord> {
    let mut found = Vec::new();
    if bytes.len() < 24 {
        return found;
    }
    let magic = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let u32_at = |big: bool, at: usize| -> Option<u32> {
        let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let u16_at = |big: bool, at: usize| -> Option<u16> {
        let b: [u8; 2] = bytes.get(at..at + 2)?.try_into().ok()?;
        Some(if big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        })
    };
    match magic {
        0xa1b2_c3d4 | 0xa1b2_3c4d | 0xd4c3_b2a1 | 0x4d3c_b2a1 => {
            let big = matches!(magic, 0xd4c3_b2a1 | 0x4d3c_b2a1);
            if u32_at(big, 20) != Some(LINKTYPE_INFINIBAND) {
                return found;
            }
            let (mut at, mut frame) = (24, 0);
            while let (Some(caplen), Some(wire_len)) = (u32_at(big, at + 8), u32_at(big, at + 12)) {
                let start = at + 16;
                let Some(data) = bytes.get(start..start + caplen as usize) else {
                    break;
                };
                frame += 1;
                found.push(IbRecord {
                    frame,
                    data: data.to_vec(),
                    wire_len,
                });
                at = start + caplen as usize;
            }
        }
        0x0a0d_0d0a => {
            let (mut at, mut frame, mut big) = (0, 0, false);
            let mut linktypes: Vec<u32> = Vec::new();
            while at + 12 <= bytes.len() {
                if u32_at(false, at) == Some(0x0a0d_0d0a) {
                    big = u32_at(false, at + 8) == Some(0x4d3c_2b1a);
                    linktypes.clear();
                }
                let (Some(kind), Some(len)) = (u32_at(big, at), u32_at(big, at + 4)) else {
                    break;
                };
                let len = len as usize;
                if len < 12 || at + len > bytes.len() {
                    break;
                }
                let body = at + 8;
                let packet = match kind {
                    1 => {
                        linktypes.push(u32::from(u16_at(big, body).unwrap_or(0)));
                        None
                    }
                    6 => u32_at(big, body + 12)
                        .zip(u32_at(big, body + 16))
                        .map(|(cap, orig)| (u32_at(big, body).unwrap_or(0), body + 20, cap, orig)),
                    3 => {
                        u32_at(big, body).map(|orig| (0, body + 4, orig.min(len as u32 - 16), orig))
                    }
                    2 => u32_at(big, body + 12)
                        .zip(u32_at(big, body + 16))
                        .map(|(cap, orig)| {
                            (
                                u32::from(u16_at(big, body).unwrap_or(0)),
                                body + 20,
                                cap,
                                orig,
                            )
                        }),
                    _ => None,
                };
                if let Some((iface, start, caplen, wire_len)) = packet {
                    frame += 1;
                    let data = bytes.get(start..start + caplen as usize);
                    if let (Some(data), Some(&LINKTYPE_INFINIBAND)) =
                        (data, linktypes.get(iface as usize))
                    {
                        found.push(IbRecord {
                            frame,
                            data: data.to_vec(),
                            wire_len,
                        });
                    }
                }
                at += len;
            }
        }
        _ => {}
    }
    found
}

/// A pcap of ERF type-21 (InfiniBand) records, which tshark 4.0 does read, holding `records`.
/// The ERF timestamps are all zero: frame-level fields of a wrapped copy are not compared.
fn erf_wrap(records: &[IbRecord]) -> Vec<u8> {
    const LINKTYPE_ERF: u32 = 197;
    const ERF_TYPE_INFINIBAND: u8 = 21;
    // Varying-length record, as DAG cards and ibdump write them.
    const ERF_FLAG_VLEN: u8 = 0x04;
    let mut out = Vec::new();
    out.extend(0xa1b2_c3d4_u32.to_le_bytes());
    out.extend(2_u16.to_le_bytes());
    out.extend(4_u16.to_le_bytes());
    out.extend([0; 8]);
    out.extend(0xffff_u32.to_le_bytes());
    out.extend(LINKTYPE_ERF.to_le_bytes());
    for record in records {
        let rlen = u16::try_from(16 + record.data.len()).expect("record fits ERF");
        let wlen = u16::try_from(record.wire_len).expect("record fits ERF");
        out.extend([0; 8]);
        out.extend(u32::from(rlen).to_le_bytes());
        out.extend(u32::from(rlen).to_le_bytes());
        out.extend(0_u64.to_le_bytes());
        out.extend([ERF_TYPE_INFINIBAND, ERF_FLAG_VLEN]);
        out.extend(rlen.to_be_bytes());
        out.extend(0_u16.to_be_bytes());
        out.extend(wlen.to_be_bytes());
        out.extend(&record.data);
    }
    out
}

fn captures() -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for dir in ["", "scenarios", "connections", "tunnel_pfc", "nvme", "ulp"] {
        let path = fixture(dir);
        let mut names: Vec<String> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".pcap") || n.ends_with(".pcapng"))
            .collect();
        names.sort();
        for name in names {
            let label = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            files.push((label, path.join(name)));
        }
    }
    for name in [
        "infiniband-erf.pcap",
        "rdma-cm-rxe.pcap",
        "ipoib.pcap",
        "nvme-rdma-discover.pcap",
    ] {
        files.extend(real_capture(name).map(|path| (name.to_string(), path)));
    }
    files
}

fn rdmadump_frames(path: &Path) -> (Vec<Value>, Option<String>) {
    let out = rdmadump(&["read", "--json", path.to_str().unwrap()]);
    let frames = stdout(&out).lines().map(parse_line).collect();
    let warning = stderr(&out);
    let damaged =
        (!out.status.success() || !warning.trim().is_empty()).then(|| warning.trim().to_string());
    (frames, damaged)
}

/// Every run: each capture as is, an ERF-wrapped copy of its linktype-247 records if it has
/// any, and the TFTP demonstration.
fn runs(scratch: &Path) -> Vec<Run> {
    let mut runs = Vec::new();
    for (label, path) in captures() {
        let (ours, ours_damaged) = rdmadump_frames(&path);
        let records = infiniband_records(&std::fs::read(&path).unwrap());
        if !records.is_empty() {
            let wrapped = scratch.join(format!("{}.erf.pcap", label.replace('/', "_")));
            std::fs::write(&wrapped, erf_wrap(&records)).unwrap();
            runs.push(Run {
                label: format!("{label} [ERF-wrapped]"),
                tshark_input: wrapped,
                tshark_opts: TSHARK_OPTS.to_vec(),
                ours: ours.clone(),
                rows_are: Some(records.iter().map(|r| r.frame).collect()),
                ours_damaged: None,
            });
        }
        if label == "roce_v2_sport69.pcap" {
            runs.push(Run {
                label: format!("{label} [tftp enabled]"),
                tshark_input: path.clone(),
                tshark_opts: Vec::new(),
                ours: ours.clone(),
                rows_are: None,
                ours_damaged: ours_damaged.clone(),
            });
        }
        runs.push(Run {
            label,
            tshark_input: path,
            tshark_opts: TSHARK_OPTS.to_vec(),
            ours,
            rows_are: None,
            ours_damaged,
        });
    }
    runs
}

#[test]
fn rdmadump_agrees_with_tshark_on_every_capture() {
    if !tshark_available() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("wireshark-config");
    std::fs::create_dir(&config).unwrap();
    let fields = all_tshark_fields();
    let runs = runs(scratch.path());
    let outputs = tshark_all(&runs, &fields, &config);
    let mut diffs = Vec::new();
    let mut report = String::new();
    let mut tally = Tally::default();
    for (run, out) in runs.iter().zip(outputs) {
        let (diffs_before, compared_before) = (diffs.len(), tally.compared);
        compare_run(run, &out, &mut diffs, &mut tally);
        writeln!(
            report,
            "  {:<45} {:>4} frames {:>6} fields compared {:>3} differences",
            run.label,
            run.rows_are.as_ref().map_or(run.ours.len(), Vec::len),
            tally.compared - compared_before,
            diffs.len() - diffs_before
        )
        .unwrap();
    }
    let mut per_field: Vec<_> = tally.per_field.iter().collect();
    per_field.sort();
    let per_field: Vec<String> = per_field.iter().map(|(f, n)| format!("{f} {n}")).collect();
    eprintln!(
        "tshark differential test:\n{report}  total: {} field values compared, {} differences\n  \
         per field: {}",
        tally.compared,
        diffs.len(),
        per_field.join(", ")
    );

    let frame_of = |diff: &Diff| {
        let run = runs.iter().find(|r| r.label == diff.run)?;
        run.ours
            .iter()
            .find(|f| f["frame"].as_u64() == Some(diff.frame))
    };
    let mut problems = Vec::new();
    let mut explained = String::new();
    for diff in &diffs {
        match KNOWN.iter().position(|k| covers(k, diff, frame_of(diff))) {
            Some(k) => writeln!(explained, "  doc row {:>2}: {diff}", KNOWN[k].doc_row).unwrap(),
            None => problems.push(format!("unexplained difference: {diff}")),
        }
    }
    eprintln!("known differences seen:\n{explained}");
    let labels: Vec<&str> = runs.iter().map(|run| run.label.as_str()).collect();
    problems.extend(stale_known(&diffs, &labels, frame_of));
    problems.extend(doc_mismatches());
    // Every field in LAYERS must have been compared somewhere: a wrong JSON pointer, or a tshark
    // field that is never filled in, would otherwise make a comparison that never happens.
    let never: Vec<&str> = LAYERS
        .iter()
        .flat_map(|l| l.fields)
        .map(|f| f.label)
        .filter(|label| !tally.per_field.contains_key(label))
        .collect();
    if !never.is_empty() {
        problems.push(format!("fields never compared: {never:?}"));
    }
    if tally.compared < MIN_COMPARED {
        problems.push(format!(
            "only {} field values compared, expected at least {MIN_COMPARED}",
            tally.compared
        ));
    }
    if !problems.is_empty() {
        // The version matters: the KNOWN table describes tshark 4.0.17.
        let version = Command::new("tshark").arg("--version").output().ok();
        let version = version.map_or(String::new(), |v| stdout(&v));
        panic!(
            "{} problems with {}:\n{}",
            problems.len(),
            version.lines().next().unwrap_or("tshark"),
            problems.join("\n")
        );
    }
}

/// rdmadump's CRC verdicts (`icrc.status`, `vcrc.status`) and why none is compared with
/// tshark's: tshark 4.0 gives none. Its InfiniBand dissector adds the stored CRC as a plain
/// number (`-G fields` has no status field beside it, `-G defaultprefs` no option to check
/// it) and shows a corrupted CRC exactly as a good one. The test below checks that this is
/// still so, on frames whose generator truth is `bad` and `ok`: a tshark that starts giving a
/// verdict fails it, and the verdict must then be compared like every other field.
struct NoVerdict {
    /// rdmadump's verdict, as in docs/tshark-differences.md.
    ours: &'static str,
    /// The truth key in fixtures/expected/ that says which frames are bad.
    truth: &'static str,
    /// tshark's field for the stored value, and how `-V` names it.
    stored: &'static str,
    shown: &'static str,
    /// A capture with frames the truth calls bad and ok; `[ERF-wrapped]` for linktype 247.
    capture: &'static str,
    wrapped: bool,
    reason: &'static str,
}

const NO_VERDICT: &[NoVerdict] = &[
    NoVerdict {
        ours: "icrc.status",
        truth: "icrc",
        stored: "infiniband.invariant.crc",
        shown: "Invariant CRC",
        capture: "roce_v2_crc_cases.pcap",
        wrapped: false,
        reason: "tshark 4.0 shows the ICRC as stored and never computes it",
    },
    NoVerdict {
        ours: "vcrc.status",
        truth: "vcrc",
        stored: "infiniband.variant.crc",
        shown: "Variant CRC",
        capture: "ib_native.pcap",
        wrapped: true,
        reason: "tshark 4.0 shows the VCRC as stored and never computes it",
    },
];

fn tshark_text(args: &[&str], config_dir: &Path) -> String {
    let out = Command::new("tshark")
        .env("WIRESHARK_CONFIG_DIR", config_dir)
        .args(args)
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "tshark {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// tshark's `-V` text of every frame of a capture, by frame number.
fn verbose_frames(path: &Path, config_dir: &Path) -> HashMap<u64, String> {
    let mut args = vec!["-n", "-V", "-r", path.to_str().unwrap()];
    args.extend_from_slice(TSHARK_OPTS);
    let text = tshark_text(&args, config_dir);
    let mut frames = HashMap::new();
    let mut current: Option<(u64, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Frame ")
            && let Some(number) = rest.split(':').next().and_then(|n| n.parse().ok())
        {
            frames.extend(current.take());
            current = Some((number, String::new()));
        }
        if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    frames.extend(current);
    frames
}

#[test]
fn tshark_still_gives_no_crc_verdict_to_compare_with() {
    if !tshark_available() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("wireshark-config");
    std::fs::create_dir(&config).unwrap();
    let fields = tshark_text(&["-G", "fields"], &config);
    let prefs = tshark_text(&["-G", "defaultprefs"], &config);
    let mut problems = Vec::new();
    for nv in NO_VERDICT {
        let what = format!("{} ({})", nv.ours, nv.reason);
        // Any field registered under the stored one (a ".status", ".bad", ...) is a verdict.
        let related: Vec<&str> = fields
            .lines()
            .filter_map(|l| l.split('\t').nth(2))
            .filter(|name| name.starts_with(nv.stored) && *name != nv.stored)
            .collect();
        if !related.is_empty() {
            problems.push(format!(
                "{what}: tshark now has {related:?}: compare the verdict"
            ));
        }
        if !fields
            .lines()
            .any(|l| l.split('\t').nth(2) == Some(nv.stored))
        {
            problems.push(format!("{what}: tshark no longer has {}", nv.stored));
        }
        let checking: Vec<&str> = prefs
            .lines()
            .filter(|l| l.starts_with("#infiniband."))
            .filter(|l| ["crc", "check", "verif"].iter().any(|w| l.contains(w)))
            .collect();
        if !checking.is_empty() {
            problems.push(format!(
                "{what}: tshark now has {checking:?}: compare the verdict"
            ));
        }

        let truth: Value = serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("expected/{}.json", nv.capture))).unwrap(),
        )
        .unwrap();
        let path = fixture(nv.capture);
        let (input, numbers) = if nv.wrapped {
            let records = infiniband_records(&std::fs::read(&path).unwrap());
            let input = scratch.path().join(format!("{}.erf.pcap", nv.capture));
            std::fs::write(&input, erf_wrap(&records)).unwrap();
            let numbers: HashMap<u64, u64> = records
                .iter()
                .enumerate()
                .map(|(i, r)| (r.frame, i as u64 + 1))
                .collect();
            (input, numbers)
        } else {
            let numbers = truth["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["frame"].as_u64().unwrap(), f["frame"].as_u64().unwrap()))
                .collect();
            (path, numbers)
        };
        let shown = verbose_frames(&input, &config);
        let mut seen = HashMap::new();
        for frame in truth["frames"].as_array().unwrap() {
            let verdict = frame[nv.truth].as_str().unwrap_or("");
            if verdict != "ok" && verdict != "bad" {
                continue;
            }
            let number = frame["frame"].as_u64().unwrap();
            let text = numbers.get(&number).and_then(|n| shown.get(n));
            let Some(text) = text else {
                problems.push(format!("{what}: tshark shows no frame for frame {number}"));
                continue;
            };
            // The stored value alone, "Invariant CRC: 0x4382279e", on a good CRC and a bad
            // one alike, and no expert message about it. (tshark repeats the VCRC line of an
            // LNH=0 raw packet; both copies are bare.)
            let lines: Vec<&str> = text.lines().filter(|l| l.contains(nv.shown)).collect();
            // Frames where tshark stops before the CRC (docs row 13) show nothing to judge.
            if lines.is_empty() {
                continue;
            }
            let bare = lines.iter().all(|l| {
                l.trim()
                    .strip_prefix(&format!("{}: 0x", nv.shown))
                    .is_some_and(|hex| hex.chars().all(|c| c.is_ascii_hexdigit()))
            });
            let expert = text
                .lines()
                .any(|l| l.contains("Expert Info") && l.to_lowercase().contains("crc"));
            if !bare || expert {
                problems.push(format!(
                    "{what}: on frame {number} (truth {verdict}) tshark shows {lines:?}{}: \
                     compare the verdict",
                    if expert {
                        " with an expert message"
                    } else {
                        ""
                    }
                ));
            }
            *seen.entry(verdict).or_insert(0) += 1;
        }
        // Without a bad CRC and a good one looking alike, the absence of a verdict is not shown.
        if !seen.contains_key("bad") || !seen.contains_key("ok") {
            problems.push(format!(
                "{what}: {} frames bad and ok: {seen:?}",
                nv.capture
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
