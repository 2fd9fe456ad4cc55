//! The `rpcrdma`, `iser` and `smbd` sections of `analyze`: per connection, its calls by name, their latency
//! (call to reply), bytes moved by chunks, errors by status, and the slowest calls. Absent
//! when the capture has none.

use std::collections::BTreeMap;

use serde::Serialize;

use super::nvme::{Kept, Latency, is_true, is_zero};
use crate::analyze::Analyzer;
use crate::analyze::sessions::{Answered, SessionStats, Sessions};

#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub file: usize,
    pub session: u32,
    pub recognised_by: &'static str,
    pub calls: BTreeMap<&'static str, u64>,
    pub answered: u64,
    /// Calls with no reply in the capture: counted, not timed.
    pub unanswered: u64,
    /// Open calls evicted at the budget before any reply: not known answered.
    #[serde(skip_serializing_if = "is_zero")]
    pub unanswered_evicted: u64,
    pub latency: Latency,
    /// False when the percentiles come from the latency sketch: some rows were not kept.
    #[serde(skip_serializing_if = "is_true")]
    pub latency_exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_kept: Option<u64>,
    pub max_outstanding: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub errors: BTreeMap<&'static str, u64>,
    pub slowest: Vec<Answered>,
}

impl SessionRow {
    fn new(s: &SessionStats) -> Self {
        let (latency, _) = Latency::of(&s.table);
        let kept = Kept::of(&s.table);
        SessionRow {
            file: s.file,
            session: s.session,
            recognised_by: s.recognised_by.name(),
            calls: s.calls.clone(),
            answered: s.table.answered,
            unanswered: s.unanswered,
            unanswered_evicted: kept.unanswered_evicted,
            latency,
            latency_exact: kept.latency_exact,
            timed_kept: kept.timed_kept,
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
