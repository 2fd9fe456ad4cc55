//! The `priorities` dataset: one row per PFC priority that carried RDMA or was paused, as
//! `analyze --json` `priorities[]` gives it. Its DSCPs are parallel lists, so that a row
//! stays a priority and its totals add up across captures.

use crate::report::priorities::{DscpRow, PriorityRow};

use super::columns::ColumnType;
use super::rows::{RowColumn, RowSchema, int, list, shown, text};

/// One row of the dataset: a priority of the capture named `capture`.
pub struct PriorityRecord<'a> {
    pub capture: &'a str,
    pub row: &'a PriorityRow,
}

impl PriorityRecord<'_> {
    /// One value per DSCP the priority carried; none when it carried nothing.
    fn per_dscp<T>(&self, get: impl Fn(&DscpRow) -> T) -> Option<Vec<T>> {
        let dscps = &self.row.dscp;
        (!dscps.is_empty()).then(|| dscps.iter().map(get).collect())
    }
}

type Column<'a> = RowColumn<PriorityRecord<'a>>;

/// One count of a DSCP row.
type DscpCount = fn(&DscpRow) -> u64;

/// The `priorities` dataset's columns.
pub fn priority_schema<'a>() -> RowSchema<PriorityRecord<'a>> {
    let mut c: Vec<Column<'a>> = vec![
        text(
            "capture",
            "the capture file's name, without its directory",
            |r: &PriorityRecord<'_>| r.capture.to_string(),
        ),
        int(
            "priority",
            "PFC priority, 0 to 7",
            |r: &PriorityRecord<'_>| r.row.priority,
        ),
        list(
            "sources",
            ColumnType::StrList,
            "how its packets were given this priority: pcp (the VLAN tag), dscp (through --dscp-map), or both",
            |r: &PriorityRecord<'_>| Some(r.row.sources.clone()),
        ),
        int(
            "packets",
            "RDMA packets on this priority",
            |r: &PriorityRecord<'_>| r.row.packets,
        ),
        int(
            "bytes",
            "their frame lengths on the wire",
            |r: &PriorityRecord<'_>| r.row.bytes,
        ),
        int("ce", "of them ECN CE-marked", |r: &PriorityRecord<'_>| {
            r.row.ce
        }),
        int("cnps", "of them CNPs", |r: &PriorityRecord<'_>| r.row.cnps),
        list(
            "dscp",
            ColumnType::IntList,
            "the DSCPs it carried, in order; a null item for tagged frames without an IP header or GRH",
            |r: &PriorityRecord<'_>| r.per_dscp(|d| d.dscp),
        ),
    ];
    // The DSCPs' counts, each a list aligned with `dscp`.
    let counts: [(&str, &str, DscpCount); 4] = [
        ("packets", "packets", |d| d.packets),
        ("bytes", "bytes", |d| d.bytes),
        ("ce", "CE marks", |d| d.ce),
        ("cnps", "CNPs", |d| d.cnps),
    ];
    for (count, what, get) in counts {
        c.push(list(
            &format!("dscp_{count}"),
            ColumnType::IntList,
            &format!("{what} of each DSCP in dscp"),
            move |r: &PriorityRecord<'_>| r.per_dscp(get),
        ));
    }
    c.extend([
        int(
            "paused_ns",
            "the longest any one sender paused it (802.3x PAUSE included): what a PFC watchdog on that port measures",
            |r: &PriorityRecord<'_>| r.row.paused_ns,
        ),
        shown(
            "paused_by",
            "that sender's MAC",
            |r: &PriorityRecord<'_>| r.row.paused_by,
        ),
        int(
            "pausing_senders",
            "senders that paused it at all",
            |r: &PriorityRecord<'_>| r.row.pausing_senders,
        ),
        // The datasets have no floating-point column: the fraction is in millionths.
        int(
            "pause_fraction_ppm",
            "paused_ns over the capture's span, in millionths",
            |r: &PriorityRecord<'_>| {
                r.row
                    .pause_fraction
                    .map(|fraction| (fraction * 1e6).round() as u64)
            },
        ),
    ]);
    RowSchema::new(c)
}
