//! The report's summary: what was read, the counts by kind, and the tables' sizes.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::values::Seconds;
use crate::analyze::{AnomalyKind, AnomalySink, KindCounts};
use crate::capture::merge::InputReport;
use crate::dissect::Kind;

#[derive(Serialize)]
pub struct CaptureSummary<'a> {
    pub files: &'a [String],
    /// Records read, before filtering.
    pub packets: u64,
    /// Records that passed the filter and were analyzed.
    pub analyzed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts: Option<Seconds>,
    /// Every time in seconds has its twin in integer nanoseconds, which a reader that
    /// parses numbers as doubles cannot round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts: Option<Seconds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts_ns: Option<u64>,
    pub truncated: bool,
    /// Capture points the files are: 1 for one capture, whole or in pieces.
    pub points: usize,
    /// Frames seen again at another point, counted once (at the first).
    pub seen_twice: u64,
    /// Of those, the ones whose ICRC or VCRC failed again.
    pub seen_twice_crc_bad: u64,
}

/// How reading one input ended.
#[derive(Serialize)]
pub struct InputRow<'a> {
    pub path: &'a str,
    /// `ok`, `truncated` (cut short in a record) or `failed`.
    pub status: &'static str,
    /// What made it fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    /// Damage read past: blocks skipped whole, bytes scanned past, warnings not listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Skipped>,
}

#[derive(Serialize)]
pub struct Skipped {
    pub blocks: u64,
    pub bytes: u64,
    pub warnings_not_listed: u64,
}

impl<'a> InputRow<'a> {
    pub fn all(input: &'a InputReport) -> Vec<InputRow<'a>> {
        input
            .files
            .iter()
            .zip(&input.inputs)
            .map(|(path, outcome)| InputRow {
                path,
                status: outcome.status.name(),
                error: outcome.error.as_deref(),
                skipped: (!outcome.damage.is_none()).then_some(Skipped {
                    blocks: outcome.damage.skipped_blocks,
                    bytes: outcome.damage.skipped_bytes,
                    warnings_not_listed: outcome.damage.warnings_dropped,
                }),
            })
            .collect()
    }
}

#[derive(Serialize)]
pub struct ConnectionTableSummary {
    pub evicted_ends: u64,
    pub bytes_per_connection: u64,
}

#[derive(Serialize)]
pub struct FlowTableSummary {
    pub flows: u64,
    pub max_flows: u64,
    pub evicted: u64,
    pub bytes_per_flow: u64,
}

pub(super) fn kind_counts<S: Serializer>(
    counts: &&KindCounts,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(Kind::ALL.len() + 1))?;
    for kind in Kind::ALL {
        map.serialize_entry(kind.name(), &counts.get(kind))?;
    }
    map.serialize_entry("cnp", &counts.cnp)?;
    map.end()
}

pub(super) fn anomaly_counts<S: Serializer>(
    sink: &&AnomalySink,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(AnomalyKind::ALL.len()))?;
    for kind in AnomalyKind::ALL {
        map.serialize_entry(kind.name(), &sink.count(kind))?;
    }
    map.end()
}
