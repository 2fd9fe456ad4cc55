//! The `rpcrdma`, `iser` and `smbd` sections of `analyze`: per connection, its calls by name, their latency
//! (call to reply), bytes moved by chunks, errors by status, and the slowest calls. Absent
//! when the capture has none.

use std::collections::BTreeMap;

use serde::Serialize;

use super::nvme::Latency;
use crate::analyze::Analyzer;
use crate::analyze::sessions::{Answered, SessionStats, Sessions, percentile};

#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub file: usize,
    pub session: u32,
    pub recognised_by: &'static str,
    pub calls: BTreeMap<&'static str, u64>,
    pub answered: u64,
    /// Calls with no reply in the capture: counted, not timed.
    pub unanswered: u64,
    pub latency: Latency,
    pub max_outstanding: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub errors: BTreeMap<&'static str, u64>,
    pub slowest: Vec<Answered>,
}

impl SessionRow {
    fn new(s: &SessionStats) -> Self {
        let latencies = s.latencies();
        SessionRow {
            file: s.file,
            session: s.session,
            recognised_by: s.recognised_by.name(),
            calls: s.calls.clone(),
            answered: s.answered.len() as u64,
            unanswered: s.unanswered,
            latency: Latency {
                p50_ns: percentile(&latencies, 50),
                p99_ns: percentile(&latencies, 99),
                max_ns: latencies.last().copied(),
            },
            max_outstanding: s.max_outstanding,
            bytes_read: s.bytes_read,
            bytes_written: s.bytes_written,
            errors: s.errors.clone(),
            slowest: s.slowest().into_iter().cloned().collect(),
        }
    }
}

fn rows_of(sessions: &Sessions) -> Vec<SessionRow> {
    sessions.sessions.values().map(SessionRow::new).collect()
}

pub fn rpcrdma_rows(analyzer: &Analyzer) -> Vec<SessionRow> {
    rows_of(&analyzer.rpcrdma)
}

pub fn iser_rows(analyzer: &Analyzer) -> Vec<SessionRow> {
    rows_of(&analyzer.iser)
}

pub fn smbd_rows(analyzer: &Analyzer) -> Vec<SessionRow> {
    rows_of(&analyzer.smbd)
}
