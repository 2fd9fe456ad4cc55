//! The `connections` and `events` datasets: report rows, as `analyze --json` writes them,
//! flattened into declared columns. The row's JSON is the one source of its values, so a
//! column and the JSON key it comes from cannot disagree; a key that no column takes is
//! returned, and the tests fail on it, so the schema cannot fall behind the JSON.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::columns::{Cell, ColumnSpec, ColumnType, Table};

/// A column filled from one flattened JSON key.
pub struct RowColumn {
    pub spec: ColumnSpec,
    key: String,
}

/// A dataset's columns and where each finds its value.
pub struct RowSchema {
    pub columns: Vec<RowColumn>,
    /// The columns each key fills: `ts_ns` fills both `ts_ns` and the timestamp `ts`.
    by_key: HashMap<String, Vec<usize>>,
    /// Flattened keys that are known and deliberately not columns.
    ignored: &'static [&'static str],
}

impl RowSchema {
    fn new(columns: Vec<RowColumn>, ignored: &'static [&'static str]) -> Self {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, column) in columns.iter().enumerate() {
            by_key.entry(column.key.clone()).or_default().push(i);
        }
        RowSchema {
            columns,
            by_key,
            ignored,
        }
    }

    /// True when `key` is the prefix of some columns' keys: a JSON object's name.
    fn is_group(&self, key: &str) -> bool {
        self.columns.iter().any(|c| {
            c.key
                .strip_prefix(key)
                .is_some_and(|rest| rest.starts_with('_'))
        })
    }

    pub fn specs(&self) -> Vec<ColumnSpec> {
        self.columns.iter().map(|c| c.spec.clone()).collect()
    }

    /// Appends one row from its flattened JSON; returns the keys no column took.
    pub fn push(&self, table: &mut Table, row: &[(String, Leaf<'_>)]) -> Vec<String> {
        let mut cells: Vec<Option<&Leaf<'_>>> = vec![None; self.columns.len()];
        let mut unknown = Vec::new();
        for (key, leaf) in row {
            match self.by_key.get(key.as_str()) {
                Some(targets) => {
                    for &i in targets {
                        cells[i] = Some(leaf);
                    }
                }
                None if self.ignored.contains(&key.as_str()) => {}
                // A null distribution or object: its columns stay null.
                None if matches!(leaf, Leaf::Scalar(Value::Null)) && self.is_group(key) => {}
                None => unknown.push(key.clone()),
            }
        }
        for (i, (column, leaf)) in self.columns.iter().zip(cells).enumerate() {
            match leaf {
                Some(Leaf::List(items)) => {
                    table.push_list(i, Some(items.iter().map(|v| cell(*v))));
                }
                Some(Leaf::Scalar(v)) if column.spec.ty == ColumnType::Timestamp => {
                    table.push(i, v.as_u64().map_or(Cell::Null, Cell::TimeNs));
                }
                Some(Leaf::Scalar(v)) => table.push(i, cell(Some(v))),
                None => {}
            }
        }
        table.end_row();
        unknown
    }
}

fn cell(value: Option<&Value>) -> Cell<'_> {
    match value {
        Some(Value::Bool(b)) => Cell::Bool(*b),
        Some(Value::String(s)) => Cell::Str(s),
        Some(Value::Number(n)) => match (n.as_i64(), n.as_u64()) {
            (Some(v), _) => Cell::Int(v),
            (None, Some(v)) => Cell::UInt(v),
            _ => Cell::Null,
        },
        _ => Cell::Null,
    }
}

/// A flattened JSON leaf: a value, or the values of one key across a list.
#[derive(Debug)]
pub enum Leaf<'v> {
    Scalar(&'v Value),
    List(Vec<Option<&'v Value>>),
}

/// Flattens an object into `prefix_key` leaves. A time in seconds with an `_ns` twin is
/// left to its twin; a list of objects becomes one list per key, aligned.
pub fn flatten<'v>(
    object: &'v Map<String, Value>,
    prefix: &str,
    out: &mut Vec<(String, Leaf<'v>)>,
) {
    for (key, value) in object {
        if value.is_f64() && object.contains_key(&format!("{key}_ns")) {
            continue;
        }
        let name = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}_{key}")
        };
        match value {
            Value::Object(inner) => flatten(inner, &name, out),
            Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
                flatten_objects(items, &name, out);
            }
            Value::Array(items) => out.push((name, Leaf::List(items.iter().map(Some).collect()))),
            _ => out.push((name, Leaf::Scalar(value))),
        }
    }
}

fn flatten_objects<'v>(items: &'v [Value], prefix: &str, out: &mut Vec<(String, Leaf<'v>)>) {
    let mut lists: Vec<(String, Vec<Option<&'v Value>>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut leaves = Vec::new();
        if let Value::Object(object) = item {
            flatten(object, prefix, &mut leaves);
        }
        for (key, leaf) in leaves {
            let Leaf::Scalar(value) = leaf else { continue };
            let slot = match lists.iter().position(|(k, _)| *k == key) {
                Some(p) => p,
                None => {
                    lists.push((key, vec![None; items.len()]));
                    lists.len() - 1
                }
            };
            lists[slot].1[i] = Some(value);
        }
    }
    out.extend(lists.into_iter().map(|(k, v)| (k, Leaf::List(v))));
}

fn col(name: &str, ty: ColumnType, about: &str) -> RowColumn {
    RowColumn {
        spec: ColumnSpec::new(name, ty, about),
        key: name.to_string(),
    }
}

/// `ts` as a timestamp, from the integer `ts_ns` key.
fn timestamp(name: &str, key: &str, about: &str) -> RowColumn {
    RowColumn {
        spec: ColumnSpec::new(name, ColumnType::Timestamp, about),
        key: key.to_string(),
    }
}

fn int(name: &str, about: &str) -> RowColumn {
    col(name, ColumnType::Int, about)
}

fn text(name: &str, about: &str) -> RowColumn {
    col(name, ColumnType::Str, about)
}

/// The five columns of a latency or size distribution.
fn stats(columns: &mut Vec<RowColumn>, name: &str, about: &str, with_p99: bool) {
    columns.push(int(
        &format!("{name}_samples"),
        &format!("{about}: samples"),
    ));
    for q in ["min", "p50", "p99", "max"] {
        if q != "p99" || with_p99 {
            columns.push(int(&format!("{name}_{q}"), &format!("{about}: {q}")));
        }
    }
}

/// A ratio is missed / expected, both columns: Parquet rows keep integers.
const CONNECTION_IGNORED: &[&str] = &["capture_loss_ratio"];

/// The `connections` dataset: one row per connection and direction, and one per UD or RD
/// flow, which has no connection.
pub fn connection_schema() -> RowSchema {
    use crate::analyze::connections::{NAK_CODES, OPS};
    let mut c = vec![
        text("capture", "the capture file's name, without its directory"),
        text(
            "record",
            "connection (one direction of a QP pair) or flow (UD or RD traffic)",
        ),
        int(
            "frame",
            "the row's first frame (first_frame), to find it in Wireshark",
        ),
        text("transport", "rc, uc, xrc (connections); ud, rd (flows)"),
        text(
            "direction",
            "a_to_b or b_to_a: whose requests the row counts (connections)",
        ),
        text("src", "the requester's address: A's for a_to_b (GID or IP)"),
        text("dst", "the responder's address"),
        int("src_qpn", "the requester's QPN, when known"),
        int(
            "dest_qp",
            "the responder's QPN: the requests' BTH destination QP",
        ),
        text("a_addr", "end A's address"),
        int("a_qpn", "end A's QPN, when known"),
        text("b_addr", "end B's address"),
        int("b_qpn", "end B's QPN"),
        text(
            "paired_by",
            "cm, traffic or unpaired: how the two ends were matched",
        ),
        int(
            "pairing_candidates",
            "ends that could have been B's peer, when paired by traffic",
        ),
        int("path_mtu", "path MTU in bytes"),
        text("path_mtu_source", "cm, option, packets or inferred"),
        text(
            "state",
            "the connection's CM state at the end of the capture",
        ),
        int("first_frame", "first frame of the connection (or flow)"),
        int("last_frame", "last frame of the connection (or flow)"),
        text(
            "history",
            "what happened, one letter per event, as `analyze` shows it",
        ),
        int("packets", "packets in this direction"),
        int("payload_bytes", "request and response payload bytes"),
    ];
    for op in OPS {
        c.push(int(&format!("messages_{op}"), &format!("{op} messages")));
    }
    stats(&mut c, "message_bytes", "message size in bytes", true);
    c.extend([
        int("first_ts_ns", "first packet, nanoseconds since the epoch"),
        int("last_ts_ns", "last packet, nanoseconds since the epoch"),
        int("active_ns", "last minus first packet"),
        int("goodput_bps", "payload bits per second over active_ns"),
    ]);
    stats(&mut c, "rtt_ns", "request to acknowledgement", true);
    stats(
        &mut c,
        "read_latency_ns_first",
        "READ request to first response",
        true,
    );
    stats(
        &mut c,
        "read_latency_ns_last",
        "READ request to last response",
        true,
    );
    stats(
        &mut c,
        "atomic_latency_ns",
        "atomic request to its acknowledgement",
        true,
    );
    c.extend([
        int("psn_gaps", "PSN gaps in the requests"),
        int("missing_psns", "PSNs skipped by the gaps"),
        int("retransmitted", "retransmitted request packets"),
        int("go_back_n", "go-back-N episodes"),
        int(
            "go_back_0",
            "retransmissions from the first unacknowledged PSN",
        ),
    ]);
    for code in NAK_CODES {
        c.push(int(&format!("naks_{code}"), &format!("NAKs: {code}")));
    }
    c.push(int("rnr_naks", "RNR NAKs"));
    stats(
        &mut c,
        "nak_to_retx_ns",
        "NAK to the retransmission it asked for",
        true,
    );
    c.extend([
        int(
            "max_outstanding_psns",
            "most request PSNs outstanding at once",
        ),
        int("ecn_ce", "CE-marked packets"),
        int("fecn", "packets with the BTH FECN bit"),
        int("becn", "packets with the BTH BECN bit"),
        int("cnps", "CNPs sent back to the requester"),
    ]);
    stats(&mut c, "cnp_interval_ns", "time between CNPs", false);
    stats(&mut c, "ce_to_cnp_ns", "CE-marked packet to its CNP", false);
    c.extend([
        int(
            "capture_loss_missed",
            "requests and READ responses the capture missed although the responder acknowledged them",
        ),
        int(
            "capture_loss_expected",
            "requests and READ responses captured, plus capture_loss_missed",
        ),
        int(
            "capture_loss_unconfirmed",
            "skipped PSNs neither acknowledged nor repaired",
        ),
    ]);
    // Flow rows: the keys of `analyze --json` `flows[]` that a connection row lacks.
    c.extend([
        text("role", "request, response or cnp (flows)"),
        int("bytes", "frame bytes (flows)"),
        int("first_psn", "first PSN (flows)"),
        int("last_psn", "last PSN (flows)"),
        int("duplicates", "duplicate packets (flows)"),
        int("naks", "NAKs (flows)"),
        int("nak_seq_err", "PSN sequence error NAKs (flows)"),
        int("pmtu", "path MTU used for PSN accounting (flows)"),
        text("pmtu_source", "where pmtu came from (flows)"),
        col(
            "opcodes_name",
            ColumnType::StrList,
            "opcode names, in order of first appearance (flows)",
        ),
        col(
            "opcodes_packets",
            ColumnType::IntList,
            "packets of each opcode in opcodes_name (flows)",
        ),
    ]);
    RowSchema::new(c, CONNECTION_IGNORED)
}

/// The `events` dataset: one row per anomaly, as `analyze --json` `anomalies[]`.
pub fn event_schema() -> RowSchema {
    let c = vec![
        text("capture", "the capture file's name, without its directory"),
        text(
            "kind",
            "psn_gap, go_back_n, nak, rnr_nak, icrc_bad, vcrc_bad, pfc_storm, pause_storm, pause_cascade, lost_between, malformed, capture_missed",
        ),
        int(
            "frame",
            "the frame that shows it (for storms and cascades, the last)",
        ),
        timestamp("ts", "ts_ns", "that frame's time"),
        int("ts_ns", "that frame's time, nanoseconds since the epoch"),
        text("src", "source address (or PFC sender MAC)"),
        text("dst", "destination address"),
        int("dest_qp", "BTH destination QP"),
        text("role", "request, response or cnp"),
        int(
            "psn",
            "the PSN concerned (capture_missed: the first missed)",
        ),
        int("expected_psn", "psn_gap: the PSN expected"),
        int(
            "missing",
            "psn_gap: PSNs skipped; capture_missed: PSNs missed",
        ),
        text(
            "missed",
            "capture_missed: requests, read_responses or retransmissions",
        ),
        text("code", "nak: the NAK code"),
        int("from_psn", "go_back_n: PSN before the step back"),
        int("to_psn", "go_back_n: PSN retransmitted from"),
        int("depth", "go_back_n: PSNs stepped back"),
        int("nak_frame", "go_back_n: the NAK that asked for it"),
        int("nak_ts_ns", "go_back_n: that NAK's time"),
        int(
            "delay_ns",
            "go_back_n: NAK (or previous packet) to retransmission",
        ),
        text("delay_from", "go_back_n: nak or previous_packet"),
        int("timer", "rnr_nak: the RNR timer code"),
        int("stored", "icrc_bad/vcrc_bad: the CRC in the frame"),
        int("computed", "icrc_bad/vcrc_bad: the CRC computed"),
        text("src_mac", "icrc_bad: source MAC"),
        text("dst_mac", "icrc_bad: destination MAC"),
        int("vlan", "icrc_bad: outermost VLAN ID"),
        text("layer", "malformed: the layer where decoding stopped"),
        int("offset", "malformed: its byte offset in the frame"),
        text("message", "malformed: what was wrong"),
        int(
            "priority",
            "pfc_storm, pause_cascade: PFC priority (null for 802.3x PAUSE)",
        ),
        int("frames", "storms: pause frames"),
        int("start_frame", "storms, cascades: first frame"),
        int("start_ts_ns", "storms, cascades: first frame's time"),
        int("start_ns", "storms, cascades: start of the pause"),
        int("duration_ns", "storms, cascades: how long"),
        int(
            "overlap_ns",
            "cascades: time all members were paused together",
        ),
        col(
            "senders",
            ColumnType::StrList,
            "cascades: the paused senders",
        ),
        col(
            "members_src",
            ColumnType::StrList,
            "cascades: each member's sender",
        ),
        col(
            "members_frame",
            ColumnType::IntList,
            "cascades: each member's first frame",
        ),
        col(
            "members_ts_ns",
            ColumnType::IntList,
            "cascades: each member's first time",
        ),
        col(
            "members_joined_ns",
            ColumnType::IntList,
            "cascades: when each member joined",
        ),
        col(
            "members_joined_after_ns",
            ColumnType::IntList,
            "cascades: each member's delay after the first",
        ),
        text("seen_at", "lost_between: capture point that saw it"),
        text("missing_at", "lost_between: capture point that missed it"),
    ];
    RowSchema::new(c, EVENT_IGNORED)
}

/// Files named in a multi-point analysis; an export analyses one capture at a time.
const EVENT_IGNORED: &[&str] = &["file", "nak_file", "start_file"];
