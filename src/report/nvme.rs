//! The `nvme` section of `analyze`: per NVMe-oF queue, its commands by name, their latency
//! (command capsule to response capsule), outstanding commands, bytes moved, errors, and the
//! slowest commands, each with the transport events inside its lifetime. Absent when the
//! capture has no NVMe-oF.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analyze::command_table::{self, Command, Table};
use crate::analyze::connections::ConnectionTable;
use crate::analyze::connections::stall::Silence;
use crate::analyze::key::FlowKey;
use crate::analyze::nvme::{QueueStats, Timed};
use crate::analyze::{Analyzer, Anomaly, AnomalyDetail};

#[derive(Debug, Serialize)]
pub struct Latency {
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub max_ns: Option<u64>,
}

/// What a queue or session kept of its commands within `--memory`: its report keys say it
/// only when it did not keep them all, so a report that fit is as it always was.
#[derive(Debug, Clone, Copy)]
pub struct Kept {
    /// The percentiles are exact: every answered command's row was kept.
    pub latency_exact: bool,
    /// Answered commands whose row was kept (for the charts), when not all were.
    pub timed_kept: Option<u64>,
    /// Open commands evicted at the budget before any response: not known answered, and
    /// counted in neither `answered` nor `unanswered`.
    pub unanswered_evicted: u64,
}

impl Kept {
    pub fn of<Row: Command + Clone, Open>(table: &Table<Row, Open>) -> Self {
        let exact = table.rows_complete();
        Kept {
            latency_exact: exact,
            timed_kept: (!exact).then_some(table.rows.len() as u64),
            unanswered_evicted: table.evicted,
        }
    }
}

pub fn is_true(b: &bool) -> bool {
    *b
}

pub fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Latency {
    /// The table's p50, p99 and max, and the latencies of its rows, sorted.
    pub fn of<Row: Command + Clone, Open>(table: &Table<Row, Open>) -> (Latency, Vec<u64>) {
        let (p50_ns, p99_ns, max_ns, latencies) = command_table::latency_summary(table);
        (
            Latency {
                p50_ns,
                p99_ns,
                max_ns,
            },
            latencies,
        )
    }
}

#[derive(Debug, Serialize)]
pub struct Slow {
    pub name: &'static str,
    pub cid: u16,
    pub frame: u64,
    pub response_frame: u64,
    pub latency_ns: Option<u64>,
    pub status: &'static str,
    pub start_ns: Option<u64>,
    pub end_ns: Option<u64>,
    /// What the transport shows between the command capsule and the response capsule.
    pub during: During,
}

/// The transport events on a command's connection within its lifetime: why it was slow,
/// when the capture shows it.
#[derive(Debug, Default, Serialize)]
pub struct During {
    pub retransmissions: Vec<Resent>,
    pub stalls: Vec<Stalled>,
    pub pause: Pause,
}

impl During {
    pub fn is_empty(&self) -> bool {
        self.retransmissions.is_empty() && self.stalls.is_empty() && self.pause.paused_ns == 0
    }
}

/// Which side of the queue sent the requests an event happened to.
fn sender(flow: &FlowKey, q: &QueueStats) -> &'static str {
    if q.to_controller.as_ref() == Some(flow) {
        "host"
    } else {
        "controller"
    }
}

/// A request sent again: alone, or the first of a go-back.
#[derive(Debug, Serialize)]
pub struct Resent {
    pub frame: u64,
    pub kind: &'static str,
    pub sender: &'static str,
    pub psn: u32,
    pub cause: &'static str,
    pub waited_ns: Option<u64>,
}

/// A silence with requests outstanding, longer than the stall threshold, overlapping the
/// command's lifetime.
#[derive(Debug, Serialize)]
pub struct Stalled {
    pub sender: &'static str,
    pub start_ns: u64,
    pub duration_ns: u64,
    pub end_frame: u64,
    pub ended_by: &'static str,
}

/// How long PFC paused the queue's priority within the command's lifetime.
#[derive(Debug, Default, Serialize)]
pub struct Pause {
    pub priority: Option<u8>,
    pub paused_ns: u64,
    pub paused_by: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct QueueRow {
    pub file: usize,
    pub queue: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qid: Option<u16>,
    pub recognised_by: &'static str,
    pub commands: BTreeMap<&'static str, u64>,
    pub answered: u64,
    /// Commands with no response in the capture: counted, not timed.
    pub unanswered: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub unanswered_evicted: u64,
    pub latency: Latency,
    /// False when the percentiles come from the latency sketch (within the error
    /// `crate::analyze::sketch` documents): some answered rows were not kept.
    #[serde(skip_serializing_if = "is_true")]
    pub latency_exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_kept: Option<u64>,
    pub max_outstanding: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub errors: BTreeMap<&'static str, u64>,
    pub slowest: Vec<Slow>,
    /// Every answered latency, for the histogram.
    #[serde(skip)]
    pub latencies: Vec<u64>,
}

impl QueueRow {
    fn new(q: &QueueStats, analyzer: &Analyzer) -> Self {
        let (latency, latencies) = Latency::of(&q.table);
        let kept = Kept::of(&q.table);
        QueueRow {
            file: q.file,
            queue: q.queue,
            qid: q.qid,
            recognised_by: q.recognised_by.name(),
            commands: q.commands.clone(),
            answered: q.table.answered,
            unanswered: q.unanswered,
            unanswered_evicted: kept.unanswered_evicted,
            latency,
            latency_exact: kept.latency_exact,
            timed_kept: kept.timed_kept,
            max_outstanding: q.max_outstanding,
            bytes_read: q.bytes_read,
            bytes_written: q.bytes_written,
            errors: q.errors.clone(),
            slowest: q
                .slowest()
                .into_iter()
                .map(|t| Slow {
                    name: t.name,
                    cid: t.cid,
                    frame: t.frame,
                    response_frame: t.response_frame,
                    latency_ns: t.latency_ns,
                    status: t.status,
                    start_ns: t.start_ns,
                    end_ns: t.end_ns,
                    during: during(q, t, analyzer),
                })
                .collect(),
            latencies,
        }
    }
}

pub fn rows(analyzer: &Analyzer) -> Vec<QueueRow> {
    analyzer
        .nvme
        .queues
        .values()
        .map(|q| QueueRow::new(q, analyzer))
        .collect()
}

/// The retransmissions and stalls on the queue's request flows, and the pauses of its
/// priority, between `t`'s command and response. Retransmissions come from the anomalies
/// the report keeps in full, stalls from the longest each direction keeps: a capture with
/// more of them may not list them all.
fn during(q: &QueueStats, t: &Timed, analyzer: &Analyzer) -> During {
    let (Some(start), Some(end)) = (t.start_ns, t.end_ns) else {
        return During::default();
    };
    let flows: Vec<FlowKey> = q.to_controller.into_iter().chain(q.to_host).collect();
    // Times are on the analysis' one clock, whichever input a frame came from.
    let within = |a: &Anomaly| a.at.ts_ns.is_some_and(|ts| (start..=end).contains(&ts));
    let retransmissions = analyzer
        .anomalies
        .kept
        .iter()
        .filter(|a| within(a))
        .filter_map(|a| {
            let (flow, psn, episode) = match &a.detail {
                AnomalyDetail::Retransmission { flow, psn, episode } => (flow, *psn, episode),
                AnomalyDetail::GoBackN {
                    flow,
                    from_psn,
                    episode,
                    ..
                } => (flow, *from_psn, episode),
                _ => return None,
            };
            flows.contains(flow).then(|| Resent {
                frame: a.at.frame,
                kind: a.detail.kind().name(),
                sender: sender(flow, q),
                psn,
                cause: episode.cause.name(),
                waited_ns: episode.waited_ns,
            })
        })
        .collect();
    let stalls = flows
        .iter()
        .flat_map(|flow| {
            stalls_of(&analyzer.connections, flow)
                .iter()
                .filter(|s| s.start_ns < end && s.end_ns() > start)
                .map(|s| Stalled {
                    sender: sender(flow, q),
                    start_ns: s.start_ns,
                    duration_ns: s.duration_ns,
                    end_frame: s.frame,
                    ended_by: s.ended_by.name(),
                })
        })
        .collect();
    During {
        retransmissions,
        stalls,
        pause: Pause {
            priority: t.priority,
            paused_ns: t.paused.paused_ns,
            paused_by: t
                .paused
                .by
                .filter(|_| t.paused.paused_ns > 0)
                .map(|m| m.to_string()),
        },
    }
}

/// The stalls of the requests `flow` carries, kept by the end that received them.
fn stalls_of<'a>(table: &'a ConnectionTable, flow: &FlowKey) -> &'a [Silence] {
    table
        .ends()
        .iter()
        .find(|e| {
            e.key
                .is_some_and(|k| k.addr == flow.dst && k.qpn == flow.dest_qp && k.peer == flow.src)
        })
        .map_or(&[], |e| e.req.stalls.longest())
}
