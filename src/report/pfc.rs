//! PFC and 802.3x PAUSE: the senders, the storms and the pause cascades.

use serde::{Serialize, Serializer};

use super::values::{At, Files, Priority, Seconds, Start, display, is_zero, macs, serialize_rows};
use crate::analyze::pfc::{ALL_PRIORITIES, Cascade, Join, SenderStats, Storm};
use crate::analyze::{Analyzer, AnomalyKind};
use crate::wire::ethernet::Mac;

#[derive(Serialize)]
pub struct SenderRow<'a> {
    #[serde(serialize_with = "display")]
    pub src: &'a Mac,
    pub priority: Priority,
    pub frames: u64,
    pub pause_frames: u64,
    pub xon_frames: u64,
    pub paused_ns: u64,
}

#[derive(Serialize)]
pub struct StormRow<'a> {
    /// `pfc_storm`, or `pause_storm` for 802.3x PAUSE (priority `all`). Left out of an
    /// anomaly, whose own `kind` says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(serialize_with = "display")]
    pub src: &'a Mac,
    pub priority: Priority,
    pub start: Seconds,
    pub start_ns: u64,
    pub duration: Seconds,
    pub duration_ns: u64,
    pub frames: u64,
    #[serde(flatten)]
    pub at: Start<'a>,
}

impl<'a> StormRow<'a> {
    pub fn new(storm: &'a Storm, files: Files<'a>) -> Self {
        StormRow {
            kind: Some(if storm.priority == ALL_PRIORITIES {
                AnomalyKind::PauseStorm.name()
            } else {
                AnomalyKind::PfcStorm.name()
            }),
            src: &storm.src,
            priority: Priority(storm.priority),
            start: Seconds(storm.start_ns),
            start_ns: storm.start_ns,
            duration: Seconds(storm.duration_ns),
            duration_ns: storm.duration_ns,
            frames: storm.frames,
            at: Start::new(storm.start, files),
        }
    }
}

#[derive(Serialize)]
pub struct CascadeRow<'a> {
    pub priority: Priority,
    #[serde(serialize_with = "macs")]
    pub senders: &'a [Mac],
    #[serde(skip_serializing_if = "is_zero")]
    pub more_senders: u64,
    pub start: Seconds,
    pub start_ns: u64,
    /// From the first sender's pause to the end of the last overlapping one.
    pub duration: Seconds,
    pub duration_ns: u64,
    /// How long at least two senders were paused at once.
    pub overlap_ns: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlap_partial: bool,
    pub members: Members<'a>,
    #[serde(flatten)]
    pub at: Start<'a>,
}

/// Each sender of a cascade with the time it joined.
pub struct Members<'a> {
    joins: &'a [Join],
    start_ns: u64,
    files: Files<'a>,
}

#[derive(Serialize)]
pub struct MemberRow<'a> {
    #[serde(serialize_with = "display")]
    pub src: &'a Mac,
    pub joined_ns: u64,
    /// After the cascade's first pause.
    pub joined_after_ns: u64,
    #[serde(flatten)]
    pub at: At<'a>,
}

impl<'a> Members<'a> {
    pub fn iter(&self) -> impl Iterator<Item = MemberRow<'a>> + '_ {
        self.joins.iter().map(|join| MemberRow {
            src: &join.src,
            joined_ns: join.ns,
            joined_after_ns: join.ns.saturating_sub(self.start_ns),
            at: At::new(join.at, self.files),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.joins.is_empty()
    }
}

impl Serialize for Members<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_rows(serializer, Some(self.joins.len()), self.iter())
    }
}

impl<'a> CascadeRow<'a> {
    pub fn new(cascade: &'a Cascade, files: Files<'a>) -> Self {
        CascadeRow {
            priority: Priority(cascade.priority),
            senders: &cascade.senders,
            more_senders: cascade.more_senders,
            start: Seconds(cascade.start_ns),
            start_ns: cascade.start_ns,
            duration: Seconds(cascade.duration_ns),
            duration_ns: cascade.duration_ns,
            overlap_ns: cascade.overlap_ns,
            overlap_partial: cascade.overlap_partial,
            members: Members {
                joins: &cascade.joins,
                start_ns: cascade.start_ns,
                files,
            },
            at: Start::new(cascade.start, files),
        }
    }
}

#[derive(Serialize)]
pub struct PfcSummary<'a> {
    pub frames: u64,
    pub pause_8023x: u64,
    pub link_speed_bps: u64,
    pub storm_threshold_ns: u64,
    pub evicted: u64,
    pub storm_count: u64,
    pub cascade_count: u64,
    pub senders: Vec<SenderRow<'a>>,
    pub storms: Vec<StormRow<'a>>,
    pub cascades: Vec<CascadeRow<'a>>,
}

impl<'a> PfcSummary<'a> {
    pub(super) fn new(analyzer: &'a Analyzer, files: Files<'a>) -> Self {
        let tracker = &analyzer.pfc;
        let senders = tracker
            .sorted_senders()
            .into_iter()
            .map(
                |((mac, priority), stats): (&'a (Mac, u8), &'a SenderStats)| SenderRow {
                    src: mac,
                    priority: Priority(*priority),
                    frames: stats.frames,
                    pause_frames: stats.pause_frames,
                    xon_frames: stats.xon_frames,
                    paused_ns: stats.paused_ns,
                },
            )
            .collect();
        let mut storms: Vec<&Storm> = tracker.storms.iter().collect();
        storms.sort_by_key(|s| (s.start_ns, s.priority));
        PfcSummary {
            frames: tracker.pfc_frames,
            pause_8023x: tracker.pause_frames,
            link_speed_bps: analyzer.config.link_speed_bps,
            storm_threshold_ns: analyzer.config.storm_threshold_ns,
            evicted: tracker.evicted,
            storm_count: tracker.storm_count,
            cascade_count: tracker.cascade_count,
            senders,
            storms: storms
                .into_iter()
                .map(|s| StormRow::new(s, files))
                .collect(),
            cascades: tracker
                .cascades
                .iter()
                .map(|c| CascadeRow::new(c, files))
                .collect(),
        }
    }
}
