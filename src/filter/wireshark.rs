//! Wireshark's display-filter names that name no field: the things rdmadump does not decode,
//! so that a filter copied from Wireshark fails with the field meant. Wireshark's names for
//! fields are attributes of the fields (`crate::fields`). Each was checked against tshark
//! 4.0.17.

/// Names Wireshark has for things rdmadump does not decode, with the nearest field rdmadump
/// has; any other unresolved name of a protocol Wireshark and rdmadump share gets the
/// nearest name by spelling.
pub static NOT_DECODED: &[(&str, &str)] = &[
    ("infiniband.payload", "payload_len"),
    ("infiniband.bth.reserved7", "bth.ack_req"),
    ("infiniband.lrh.reserved2", "lrh.lnh"),
    ("infiniband.lrh.reserved5", "lrh.pktlen"),
    ("frame.time_delta_displayed", "ts"),
    ("frame.protocols", "kind"),
    ("ip.id", "ip"),
    ("ip.flags", "ip"),
    ("ip.frag_offset", "ip"),
    ("ip.checksum", "ip"),
    ("ip.hdr_len", "ip.total_len"),
    ("tcp.seq", "tcp.sport"),
    ("tcp.flags", "tcp"),
    ("data", "payload_len"),
];

/// Wireshark's upper-layer protocols over RDMA, which rdmadump does not decode yet: their
/// names (and their fields') say so rather than "unknown field". Once one is decoded, its
/// protocol field in the catalogue (`Field::protocol`) takes the name, and it leaves here.
pub const NOT_DECODED_YET: &[&str] = &[];

/// The Wireshark protocol prefixes rdmadump shares, for "not decoded" rather than
/// "unknown field".
pub const PROTOCOLS: &[&str] = &[
    "frame",
    "eth",
    "vlan",
    "ip",
    "ipv6",
    "udp",
    "tcp",
    "icmp",
    "icmpv6",
    "arp",
    "macc",
    "infiniband",
    "erf",
    "sll",
    "gre",
    "erspan",
    "vxlan",
];
