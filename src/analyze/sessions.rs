//! Calls per upper-layer session, timed from call to reply: what the decoder paired
//! (`crate::dissect::CallLink`) for RPC-over-RDMA, iSER and SMB Direct,
//! counted. The request/response cousin of
//! `nvme`'s per-queue tally, on a key-agnostic link: the reply carries its call, so a session
//! only keeps calls still open (to count `unanswered`) and the answered ones. A frame that is
//! not of these protocols costs the caller one test of `Packet::ulp`.

use std::collections::{BTreeMap, HashMap};

use crate::dissect::{CallLink, RecognisedBy, SessionMessage, SessionRef};

pub use super::nvme::{SLOWEST, percentile};

/// A call answered in the capture; the report lists the slowest as they are.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Answered {
    pub name: &'static str,
    /// XID, ITT or message ID.
    pub key: u64,
    pub frame: u64,
    pub reply_frame: u64,
    pub latency_ns: Option<u64>,
    pub status: &'static str,
}

/// One session's calls.
#[derive(Debug, Clone)]
pub struct SessionStats {
    pub file: usize,
    pub session: u32,
    pub recognised_by: RecognisedBy,
    pub calls: BTreeMap<&'static str, u64>,
    pub answered: Vec<Answered>,
    /// Open calls by frame.
    open: HashMap<u64, ()>,
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
                answered: Vec::new(),
                open: HashMap::new(),
                unanswered: 0,
                max_outstanding: 0,
                bytes_read: 0,
                bytes_written: 0,
                errors: BTreeMap::new(),
            })
    }

    /// A call seen in `frame`.
    pub fn call(&mut self, file: usize, at: SessionRef, frame: u64, name: &'static str) {
        let s = self.session(file, at);
        *s.calls.entry(name).or_default() += 1;
        s.open.insert(frame, ());
        s.max_outstanding = s.max_outstanding.max(s.open.len() as u64);
    }

    /// A reply in `frame` to the call `link`, with how it went.
    pub fn reply(
        &mut self,
        file: usize,
        at: SessionRef,
        frame: u64,
        link: &CallLink,
        status: &'static str,
        failed: bool,
    ) {
        let s = self.session(file, at);
        // A call the traffic taught the session by is answered before it was counted.
        if s.open.remove(&link.frame).is_none() {
            *s.calls.entry(link.name).or_default() += 1;
        }
        if failed {
            *s.errors.entry(status).or_default() += 1;
        } else {
            s.bytes_read += link.read_len;
            s.bytes_written += link.write_len;
        }
        s.answered.push(Answered {
            name: link.name,
            key: link.key,
            frame: link.frame,
            reply_frame: frame,
            latency_ns: link.latency_ns,
            status,
        });
    }

    pub fn finish(&mut self) {
        for s in self.sessions.values_mut() {
            s.unanswered = s.open.len() as u64;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

impl SessionStats {
    /// Latencies of the answered calls, sorted.
    pub fn latencies(&self) -> Vec<u64> {
        let mut all: Vec<u64> = self.answered.iter().filter_map(|a| a.latency_ns).collect();
        all.sort_unstable();
        all
    }

    /// The slowest answered calls, slowest first (ties by frame).
    pub fn slowest(&self) -> Vec<&Answered> {
        let mut all: Vec<&Answered> = self
            .answered
            .iter()
            .filter(|a| a.latency_ns.is_some())
            .collect();
        all.sort_by(|a, b| b.latency_ns.cmp(&a.latency_ns).then(a.frame.cmp(&b.frame)));
        all.truncate(SLOWEST);
        all
    }
}

impl Sessions {
    /// A frame of a request/response protocol: a request is counted by name, a response
    /// closes its request with the outcome it gives.
    pub fn observe(&mut self, file: usize, frame: u64, msg: &impl SessionMessage) {
        if let Some(name) = msg.request_name() {
            self.call(file, msg.session(), frame, name);
        } else if let Some(link) = msg.answered() {
            let status = msg.outcome().unwrap_or("unknown");
            self.reply(file, msg.session(), frame, link, status, msg.failed());
        }
    }
}
