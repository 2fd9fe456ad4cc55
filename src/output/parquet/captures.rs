//! The `captures` dataset: one row per capture exported, failed ones included, saying
//! whether the capture was read whole and what the analysis did not keep, so that a query
//! can tell a complete capture from one cut short, and a count from one that lost rows.

use crate::analyze::capture_loss::Counts as CaptureLoss;
use crate::capture::Damage;
use crate::report::Report;

use super::columns::ColumnType;
use super::rows::{RowColumn, RowSchema, column, int, text, timestamp};

/// How reading the capture ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureStatus {
    /// Read to its end.
    Complete,
    /// It ended in the middle of a record: every record before was read.
    Truncated,
    /// Damage stopped the reading: every record before it was read.
    Damaged,
    /// Not a record could be read; nothing else of it was exported.
    Failed,
}

impl CaptureStatus {
    pub fn name(self) -> &'static str {
        match self {
            CaptureStatus::Complete => "complete",
            CaptureStatus::Truncated => "truncated",
            CaptureStatus::Damaged => "damaged",
            CaptureStatus::Failed => "failed",
        }
    }
}

/// What the analysis's budget dropped, as the report counts it: these are not in the
/// `connections` and `events` rows. A new budget adds its counter here.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// Connection ends evicted from the full connection table (`--max-flows`).
    pub connection_ends: u64,
    /// Flows evicted from the full flow table (`--max-flows`).
    pub flows: u64,
    /// PFC senders evicted from the full sender table (`--max-pfc-senders`).
    pub pfc_senders: u64,
    /// Senders of pause cascades beyond those each cascade lists (`more_senders`).
    pub cascade_senders: u64,
    /// Anomalies counted but without an `events` row.
    pub anomalies: u64,
}

impl Dropped {
    /// The report's counters; `anomalies` is what the caller could not export.
    pub fn of(report: &Report<'_>, anomalies: u64) -> Self {
        Dropped {
            connection_ends: report.connection_table.evicted_ends,
            flows: report.flow_table.evicted,
            pfc_senders: report.pfc.evicted,
            cascade_senders: report.pfc.cascades.iter().map(|c| c.more_senders).sum(),
            anomalies,
        }
    }

    /// Each count that is not zero, with what it counts, for a warning.
    pub fn described(&self) -> Vec<String> {
        [
            (
                self.connection_ends,
                "connection ends evicted by --max-flows",
            ),
            (self.flows, "flows evicted by --max-flows"),
            (self.pfc_senders, "PFC senders evicted by --max-pfc-senders"),
            (self.cascade_senders, "pause-cascade senders not listed"),
            (self.anomalies, "anomalies without an events row"),
        ]
        .into_iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, what)| format!("{count} {what}"))
        .collect()
    }
}

/// One row: a capture, as it was read and exported.
pub struct CaptureRecord<'a> {
    /// The `capture` column of the other datasets.
    pub capture: &'a str,
    /// The path as given (`<stdin>` for standard input).
    pub path: &'a str,
    /// The file's size; none for a stream.
    pub size_bytes: Option<u64>,
    /// Records read, before any selection.
    pub packets: u64,
    pub first_ts_ns: Option<u64>,
    pub last_ts_ns: Option<u64>,
    pub status: CaptureStatus,
    /// Where the file broke, when it was cut short or damaged.
    pub broke_at: Option<u64>,
    /// Why it was cut short, damaged or could not be read.
    pub error: Option<&'a str>,
    /// What the reader skipped to read on past damage (a pcapng resync).
    pub damage: Damage,
    /// The sequenced packets the capture missed: acknowledged, so not network loss.
    pub capture_loss: CaptureLoss,
    pub dropped: Dropped,
}

type Column<'a> = RowColumn<CaptureRecord<'a>>;

fn count<'a>(name: &str, about: &str, get: fn(&Dropped) -> u64) -> Column<'a> {
    int(name, about, move |r: &CaptureRecord<'_>| get(&r.dropped))
}

/// The `captures` dataset's columns.
pub fn capture_schema<'a>() -> RowSchema<CaptureRecord<'a>> {
    let c: Vec<Column<'a>> = vec![
        text(
            "capture",
            "the capture's name, as the other datasets' capture column gives it",
            |r: &CaptureRecord<'_>| r.capture.to_string(),
        ),
        text(
            "path",
            "the path as given on the command line (<stdin> for standard input)",
            |r: &CaptureRecord<'_>| r.path.to_string(),
        ),
        int(
            "size_bytes",
            "the file's size in bytes (null for a stream)",
            |r: &CaptureRecord<'_>| r.size_bytes,
        ),
        int(
            "packets",
            "records read, before any selection",
            |r: &CaptureRecord<'_>| r.packets,
        ),
        timestamp(
            "first_ts",
            "the first frame's time",
            |r: &CaptureRecord<'_>| r.first_ts_ns,
        ),
        int(
            "first_ts_ns",
            "the first frame's time, nanoseconds since the epoch",
            |r: &CaptureRecord<'_>| r.first_ts_ns,
        ),
        timestamp(
            "last_ts",
            "the last frame's time",
            |r: &CaptureRecord<'_>| r.last_ts_ns,
        ),
        int(
            "last_ts_ns",
            "the last frame's time, nanoseconds since the epoch",
            |r: &CaptureRecord<'_>| r.last_ts_ns,
        ),
        text(
            "status",
            "complete, truncated (cut short in a record), damaged (read up to the damage) or failed (nothing could be read, nothing else exported)",
            |r: &CaptureRecord<'_>| r.status.name(),
        ),
        column(
            "complete",
            ColumnType::Bool,
            "true when the capture was read to its end with nothing skipped",
            |r: &CaptureRecord<'_>| r.status == CaptureStatus::Complete && r.damage.is_none(),
        ),
        int(
            "broke_at",
            "truncated, damaged: the byte offset in the file (decompressed) where it broke; events has a row there",
            |r: &CaptureRecord<'_>| r.broke_at,
        ),
        text(
            "error",
            "truncated, damaged, failed: what was wrong",
            |r: &CaptureRecord<'_>| r.error.map(str::to_string),
        ),
        int(
            "skipped_blocks",
            "damaged blocks or records skipped whole while reading on past damage: their packets are not in packets",
            |r: &CaptureRecord<'_>| r.damage.skipped_blocks,
        ),
        int(
            "skipped_bytes",
            "bytes scanned past to find the next valid block after damage",
            |r: &CaptureRecord<'_>| r.damage.skipped_bytes,
        ),
        int(
            "capture_missed",
            "requests and READ responses the capture missed though the responder acknowledged them: the sniffer's loss, not the network's",
            |r: &CaptureRecord<'_>| r.capture_loss.missed,
        ),
        int(
            "capture_expected",
            "requests and READ responses that passed the capture point: those seen plus capture_missed",
            |r: &CaptureRecord<'_>| r.capture_loss.expected(),
        ),
        int(
            "capture_unconfirmed",
            "skipped PSNs with neither evidence of delivery nor of repair in the capture",
            |r: &CaptureRecord<'_>| r.capture_loss.unconfirmed,
        ),
        count(
            "dropped_connection_ends",
            "connection ends evicted from the full connection table (--max-flows): not in connections",
            |d| d.connection_ends,
        ),
        count(
            "dropped_flows",
            "flows evicted from the full flow table (--max-flows)",
            |d| d.flows,
        ),
        count(
            "dropped_pfc_senders",
            "PFC senders evicted from the full sender table (--max-pfc-senders)",
            |d| d.pfc_senders,
        ),
        count(
            "dropped_cascade_senders",
            "pause-cascade senders beyond those the cascades' events rows list (more_senders)",
            |d| d.cascade_senders,
        ),
        count(
            "dropped_anomalies",
            "anomalies counted but without an events row",
            |d| d.anomalies,
        ),
    ];
    RowSchema::new(c)
}
