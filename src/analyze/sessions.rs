//! Calls per upper-layer session, timed from call to reply: what the decoder paired
//! (`crate::dissect::CallLink`) for RPC-over-RDMA, iSER and SMB Direct,
//! counted. The request/response cousin of
//! `nvme`'s per-queue tally, on a key-agnostic link: the reply carries its call, so a session
//! only keeps calls still open (to count `unanswered`) and the answered ones. A frame that is
//! not of these protocols costs the caller one test of `Packet::ulp`.

use std::collections::BTreeMap;

use super::command_table::{self, CommandBudget, Opened, Table};
use crate::dissect::{CallLink, RecognisedBy, SessionMessage, SessionRef};

pub use command_table::{SLOWEST, percentile};

/// A call answered in the capture; the report lists the slowest as they are, and the
/// `commands` dataset and the HTML report every one with its times.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Answered {
    pub name: &'static str,
    /// XID, ITT or message ID.
    pub key: u64,
    pub frame: u64,
    pub reply_frame: u64,
    pub latency_ns: Option<u64>,
    pub status: &'static str,
    /// The call's time: when it was seen, or its reply's less its latency when traffic
    /// taught the session by the reply. Not in the JSON report, which predates them.
    #[serde(skip)]
    pub start_ns: Option<u64>,
    /// The reply's time.
    #[serde(skip)]
    pub end_ns: Option<u64>,
    #[serde(skip)]
    pub failed: bool,
    /// What the call asked to read and write, when it succeeded; 0 when it failed, as the
    /// session's totals count it.
    #[serde(skip)]
    pub bytes: u64,
}

/// A call waiting for its reply; those still waiting at the end were never answered.
#[derive(Debug, Clone)]
pub struct OpenCall {
    pub name: &'static str,
    /// XID, ITT or message ID.
    pub key: u64,
    pub ts_ns: Option<u64>,
}

/// One session's calls.
#[derive(Debug, Clone)]
pub struct SessionStats {
    pub file: usize,
    pub session: u32,
    pub recognised_by: RecognisedBy,
    pub calls: BTreeMap<&'static str, u64>,
    /// The answered calls (those the budget kept), the open ones, and their statistics.
    pub table: Table<Answered, OpenCall>,
    /// Calls still open at the end: never answered in the capture.
    pub unanswered: u64,
    pub max_outstanding: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub errors: BTreeMap<&'static str, u64>,
}

/// Every session of one protocol the capture showed, by input and session number.
#[derive(Debug, Default)]
pub struct Sessions {
    pub sessions: BTreeMap<(usize, u32), SessionStats>,
}

impl Sessions {
    fn session(&mut self, file: usize, at: SessionRef) -> &mut SessionStats {
        self.sessions
            .entry((file, at.index))
            .or_insert_with(|| SessionStats {
                file,
                session: at.index,
                recognised_by: at.recognised_by,
                calls: BTreeMap::new(),
                table: Table::default(),
                unanswered: 0,
                max_outstanding: 0,
                bytes_read: 0,
                bytes_written: 0,
                errors: BTreeMap::new(),
            })
    }

    /// A call seen in `frame`, at `ts_ns`.
    pub fn call(
        &mut self,
        file: usize,
        at: SessionRef,
        frame: u64,
        ts_ns: Option<u64>,
        call: &CallLink,
        budget: &mut CommandBudget,
    ) {
        let s = self.session(file, at);
        *s.calls.entry(call.name).or_default() += 1;
        let open = OpenCall {
            name: call.name,
            key: call.key,
            ts_ns,
        };
        s.table.open(frame, open, budget);
        s.max_outstanding = s.max_outstanding.max(s.table.outstanding());
    }

    /// A reply in `frame`, at `ts_ns`, to the call `link`, with how it went.
    #[allow(clippy::too_many_arguments)]
    pub fn reply(
        &mut self,
        file: usize,
        at: SessionRef,
        frame: u64,
        ts_ns: Option<u64>,
        link: &CallLink,
        status: &'static str,
        failed: bool,
        budget: &mut CommandBudget,
    ) {
        let s = self.session(file, at);
        let opened = match s.table.close(link.frame, budget) {
            Opened::Open(open) => Some(open),
            // Counted as evicted, not known answered: it stays so.
            Opened::Evicted => return,
            // A call the traffic taught the session by is answered before it was counted.
            Opened::Unseen => {
                *s.calls.entry(link.name).or_default() += 1;
                None
            }
        };
        let bytes = if failed {
            *s.errors.entry(status).or_default() += 1;
            0
        } else {
            s.bytes_read += link.read_len;
            s.bytes_written += link.write_len;
            link.read_len + link.write_len
        };
        let start_ns = opened
            .and_then(|o| o.ts_ns)
            .or_else(|| ts_ns.zip(link.latency_ns).map(|(t, l)| t.saturating_sub(l)));
        let answered = Answered {
            name: link.name,
            key: link.key,
            frame: link.frame,
            reply_frame: frame,
            latency_ns: link.latency_ns,
            status,
            start_ns,
            end_ns: ts_ns,
            failed,
            bytes,
        };
        s.table.answer(answered, budget);
    }

    pub fn finish(&mut self) {
        for s in self.sessions.values_mut() {
            s.unanswered = s.table.open_len() as u64;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

impl SessionStats {
    /// The calls never answered, by call frame.
    pub fn unanswered_calls(&self) -> Vec<(u64, &OpenCall)> {
        self.table.open_by_frame()
    }

    /// The slowest answered calls, slowest first (ties by frame).
    pub fn slowest(&self) -> Vec<&Answered> {
        self.table.slowest.iter().collect()
    }
}

impl command_table::Command for Answered {
    fn frame(&self) -> u64 {
        self.frame
    }
    fn latency_ns(&self) -> Option<u64> {
        self.latency_ns
    }
}

impl command_table::OpenCommand for OpenCall {
    fn ts_ns(&self) -> Option<u64> {
        self.ts_ns
    }
}

impl Sessions {
    /// A frame of a request/response protocol: a request is counted by name, a response
    /// closes its request with the outcome it gives.
    pub fn observe(
        &mut self,
        file: usize,
        frame: u64,
        ts_ns: Option<u64>,
        msg: &impl SessionMessage,
        budget: &mut CommandBudget,
    ) {
        if let Some(call) = msg.request() {
            self.call(file, msg.session(), frame, ts_ns, &call, budget);
        } else if let Some(link) = msg.answered() {
            let status = msg.outcome().unwrap_or("unknown");
            let failed = msg.failed();
            self.reply(
                file,
                msg.session(),
                frame,
                ts_ns,
                link,
                status,
                failed,
                budget,
            );
        }
    }
}
