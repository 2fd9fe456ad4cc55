//! The `nvme` section of `analyze`: per NVMe-oF queue, its commands by name, their latency
//! (command capsule to response capsule), outstanding commands, bytes moved, errors, and the
//! slowest commands. Absent when the capture has no NVMe-oF.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analyze::Analyzer;
use crate::analyze::nvme::{QueueStats, percentile};

#[derive(Debug, Serialize)]
pub struct Latency {
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub max_ns: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct Slow {
    pub name: &'static str,
    pub cid: u16,
    pub frame: u64,
    pub response_frame: u64,
    pub latency_ns: Option<u64>,
    pub status: &'static str,
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
    pub latency: Latency,
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
    fn new(q: &QueueStats) -> Self {
        let latencies = q.latencies();
        QueueRow {
            file: q.file,
            queue: q.queue,
            qid: q.qid,
            recognised_by: q.recognised_by.name(),
            commands: q.commands.clone(),
            answered: q.answered.len() as u64,
            unanswered: q.unanswered,
            latency: Latency {
                p50_ns: percentile(&latencies, 50),
                p99_ns: percentile(&latencies, 99),
                max_ns: latencies.last().copied(),
            },
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
                })
                .collect(),
            latencies,
        }
    }
}

pub fn rows(analyzer: &Analyzer) -> Vec<QueueRow> {
    analyzer.nvme.queues.values().map(QueueRow::new).collect()
}
