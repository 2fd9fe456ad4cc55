//! What the capture and the decoding say of a frame as a whole: its number, lengths, times
//! and kind, the capture's own headers (ERF, Linux cooked capture), the ICRC and VCRC checks,
//! and where a malformed frame failed or the snaplen cut it.

use super::{Field, Parquet, Type, Value};

/// What the capture says of a record: its number, lengths, times and kind.
pub(super) const RECORD: &[Field] = &[
    int!(
        "frame",
        "frame number, 1-based per file (frame.number)",
        |p| Some(p.frame)
    )
    .wireshark("frame.number"),
    int!(
        "frame_len",
        "frame length on the wire in bytes (JSON `len`)",
        |p| Some(p.len)
    )
    .wireshark("frame.len")
    .parquet(Parquet::NoColumn),
    int!("len", "the same as frame_len; kept for old filters", |p| {
        Some(p.len)
    }),
    int!(
        "caplen",
        "bytes captured; less than frame_len when the snaplen cut the frame",
        |p| Some(p.caplen)
    )
    .wireshark("frame.cap_len"),
    Field::new(
        "ts",
        Type::Time,
        "capture time, seconds since the epoch (compare with 1700000000.5)",
        |p| p.ts_ns.map(Value::Time),
    )
    .wireshark("frame.time_epoch"),
    Field::new(
        "time_relative",
        Type::Time,
        "seconds since the first frame of the inputs, in the order they are read",
        // A frame before the first one in time (an unordered capture) reads 0.
        |p| {
            p.ts_ns
                .map(|_| Value::Time(u64::try_from(p.clock.relative_ns).unwrap_or(0)))
        },
    )
    .wireshark("frame.time_relative")
    .parquet(Parquet::NoColumn),
    Field::new(
        "time_delta",
        Type::Time,
        "seconds since the frame read before (0 when the capture goes back in time)",
        |p| {
            p.ts_ns
                .map(|_| Value::Time(u64::try_from(p.clock.delta_ns).unwrap_or(0)))
        },
    )
    .wireshark("frame.time_delta")
    .parquet(Parquet::NoColumn),
    int!(
        "ts_ns",
        "capture time, integer nanoseconds since the epoch",
        |p| p.ts_ns
    ),
    int!("linktype", "pcap link type of the record", |p| Some(
        p.linktype
    )),
    int!("iface", "pcapng interface id", |p| Some(p.iface)),
    string!(
        "kind",
        "roce_v1, roce_v2, ib, pfc, pause, other, malformed; also cnp (BTH opcode 0x81)",
        |p| Some(p.kind.name())
    ),
];

/// The capture's own headers before the frame: ERF's record header and Linux cooked capture's.
pub(super) const CAPTURE_HEADERS: &[Field] = &[
    int!("erf.type", "ERF record type", |p| p
        .erf
        .map(|e| e.record_type)),
    int!("erf.wlen", "ERF wire length", |p| p.erf.map(|e| e.wlen)),
    int!(
        "sll.version",
        "Linux cooked capture version (1 or 2)",
        |p| p.sll.map(|s| s.version)
    ),
    int!("sll.pkttype", "Linux cooked capture packet type", |p| p
        .sll
        .map(|s| s.packet_type)),
    int!("sll.hatype", "Linux cooked capture ARPHRD type", |p| p
        .sll
        .map(|s| s.hatype)),
    int!("sll.protocol", "Linux cooked capture protocol", |p| p
        .sll
        .map(|s| s.protocol)),
];

/// What decoding found of the frame's integrity: the CRCs, and where a malformed frame failed
/// or the snaplen cut.
pub(super) const CHECKS: &[Field] = &[
    string!("icrc.status", "ok, bad or unverifiable", |p| p
        .icrc
        .map(|c| c.status.name())),
    int!(
        "icrc.value",
        "ICRC as stored, read least-significant byte first",
        |p| p.icrc.and_then(|c| c.stored)
    ),
    int!("icrc.computed", "ICRC computed over the packet", |p| p
        .icrc
        .and_then(|c| c.computed)),
    string!("vcrc.status", "ok, bad or unverifiable", |p| p
        .vcrc
        .map(|c| c.status.name())),
    int!(
        "vcrc.value",
        "VCRC as stored, read least-significant byte first",
        |p| p.vcrc.and_then(|c| c.stored)
    ),
    int!("vcrc.computed", "VCRC computed over the packet", |p| p
        .vcrc
        .and_then(|c| c.computed)),
    string!(
        "error.layer",
        "the layer a malformed frame failed at",
        |p| p.error.map(|e| e.layer.name())
    ),
    int!(
        "error.offset",
        "where a malformed frame failed, bytes from the frame start",
        |p| p.error.map(|e| e.offset as u64)
    ),
    string!("truncated.layer", "the layer the snaplen cut", |p| p
        .truncated
        .map(|e| e.layer.name())),
    int!(
        "truncated.offset",
        "where the snaplen cut, bytes from the frame start",
        |p| p.truncated.map(|e| e.offset as u64)
    ),
];

pub(super) const CHECKS_PRESENT: &[Field] = &[
    header!("icrc", "has an ICRC", |p| p.icrc.is_some()),
    header!("vcrc", "has a VCRC", |p| p.vcrc.is_some()),
    header!("error", "is malformed", |p| p.error.is_some()),
    header!("truncated", "was cut by the snaplen", |p| p
        .truncated
        .is_some()),
];

pub(super) const CAPTURE_HEADERS_PRESENT: &[Field] = &[
    header!("sll", "has a Linux cooked capture header", |p| p
        .sll
        .is_some()),
    header!("erf", "has an ERF record header", |p| p.erf.is_some()),
];

/// The CRCs as Wireshark shows them, and the capture time as Wireshark's absolute time.
pub(super) const WIRESHARK: &[Field] = &[
    Field::new(
        "frame.time",
        Type::Time,
        "capture time (compare with \"2024-05-01 10:00:00.5\", UTC)",
        |p| p.ts_ns.map(Value::Time),
    )
    .wireshark_only(),
    int!(
        "infiniband.invariant.crc",
        "ICRC as Wireshark shows it: the stored bytes read most-significant first",
        |p| p.icrc.and_then(|c| c.stored).map(u32::swap_bytes)
    )
    .wireshark_only(),
    int!(
        "infiniband.variant.crc",
        "VCRC as Wireshark shows it: the stored bytes read most-significant first",
        |p| p
            .vcrc
            .and_then(|c| c.stored)
            .map(|v| (v as u16).swap_bytes())
    )
    .wireshark_only(),
];
