//! NVMe-oF commands per queue, timed from command capsule to response capsule: what the
//! decoder linked (`crate::dissect::Ulp`), counted. A frame that is not NVMe-oF costs the
//! caller one test of `Packet::ulp`.
//!
//! A slow command must say why when the capture shows it: each queue remembers the request
//! flows of its connection, so the report can find the retransmissions and stalls on them
//! within a command's lifetime, and the caller measures the PFC pauses of the queue's
//! priority over that lifetime when the response arrives (the pauses are kept only as long
//! as a silence needs them, see `super::pause_overlap`).

use std::collections::BTreeMap;

use super::command_table::{self, CommandBudget, Opened, Table};
use super::key::FlowKey;
use super::pause_overlap::Overlap;
use crate::dissect::{CommandLink, Nvme, NvmeMsg, RecognisedBy};
use crate::wire::nvme::names::{self, io};

pub use command_table::{SLOWEST, percentile};

/// A command answered in the capture.
#[derive(Debug, Clone)]
pub struct Timed {
    pub name: &'static str,
    pub cid: u16,
    pub opcode: u8,
    /// The response's status: type, code, and Do Not Retry.
    pub sct: u8,
    pub sc: u8,
    pub dnr: bool,
    pub frame: u64,
    pub response_frame: u64,
    pub start_ns: Option<u64>,
    pub end_ns: Option<u64>,
    pub latency_ns: Option<u64>,
    pub status: &'static str,
    /// What its RDMA READ responses and WRITEs moved; without any in the capture (its queue
    /// was not known yet, or its data rode in the capsule), the length its SGL named when it
    /// succeeded.
    pub bytes: u64,
    /// The queue's priority and how long PFC paused it within the command's lifetime.
    pub priority: Option<u8>,
    pub paused: Overlap,
}

/// A command waiting for its response; those still waiting at the end were unanswered.
#[derive(Debug, Clone)]
pub struct Open {
    pub name: &'static str,
    pub cid: u16,
    pub opcode: u8,
    pub ts_ns: Option<u64>,
    /// Bytes its data transfers moved so far, once one was seen.
    pub moved: Option<u64>,
}

/// One queue's commands.
#[derive(Debug, Clone)]
pub struct QueueStats {
    pub file: usize,
    pub queue: u32,
    pub qid: Option<u16>,
    pub recognised_by: RecognisedBy,
    pub commands: BTreeMap<&'static str, u64>,
    /// The answered commands (those the budget kept), the open ones, and their statistics.
    pub table: Table<Timed, Open>,
    /// Commands still open at the end: never answered in the capture.
    pub unanswered: u64,
    pub max_outstanding: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub errors: BTreeMap<&'static str, u64>,
    /// The request flows of the queue's connection, as the analysis keys them: the host's
    /// (commands) and the controller's (responses, data transfers).
    pub to_controller: Option<FlowKey>,
    pub to_host: Option<FlowKey>,
}

/// Every NVMe-oF queue the capture showed, by input and queue number.
#[derive(Debug, Default)]
pub struct NvmeQueues {
    pub queues: BTreeMap<(usize, u32), QueueStats>,
}

impl NvmeQueues {
    /// Counts one NVMe-oF frame, whose request flow is `flow` and which moved `moved` bytes
    /// of a command's data; a command a response just timed goes to `measure` first, for
    /// the caller to measure what happened in its lifetime.
    #[allow(clippy::too_many_arguments)]
    pub fn observe(
        &mut self,
        file: usize,
        frame: u64,
        ts_ns: Option<u64>,
        flow: Option<FlowKey>,
        moved: u64,
        nvme: &Nvme<'_>,
        budget: &mut CommandBudget,
        measure: impl FnOnce(&mut Timed),
    ) {
        let q = self
            .queues
            .entry((file, nvme.queue.index))
            .or_insert_with(|| QueueStats {
                file,
                queue: nvme.queue.index,
                qid: nvme.queue.qid,
                recognised_by: nvme.queue.recognised_by,
                commands: BTreeMap::new(),
                table: Table::default(),
                unanswered: 0,
                max_outstanding: 0,
                bytes_read: 0,
                bytes_written: 0,
                errors: BTreeMap::new(),
                to_controller: None,
                to_host: None,
            });
        q.qid = q.qid.or(nvme.queue.qid);
        match &nvme.msg {
            NvmeMsg::Command { sqe, .. } => {
                let name = crate::dissect::command_name(sqe, nvme.queue.qid);
                *q.commands.entry(name).or_default() += 1;
                let open = Open {
                    name,
                    cid: sqe.cid(),
                    opcode: sqe.opcode(),
                    ts_ns,
                    moved: None,
                };
                q.table.open(frame, open, budget);
                q.max_outstanding = q.max_outstanding.max(q.table.outstanding());
                q.to_controller = q.to_controller.or(flow);
            }
            NvmeMsg::Response { cqe, command } => {
                q.to_host = q.to_host.or(flow);
                let Some(link) = command.as_ref() else {
                    return;
                };
                let opened = match q.table.close(link.frame, budget) {
                    Opened::Open(open) => Some(open),
                    // Counted as evicted, not known answered: it stays so.
                    Opened::Evicted => return,
                    // A command the traffic taught the queue by is answered before it was
                    // seen.
                    Opened::Unseen => {
                        *q.commands.entry(link.name).or_default() += 1;
                        None
                    }
                };
                let moved = opened.as_ref().and_then(|o| o.moved);
                let start_ns = opened
                    .and_then(|o| o.ts_ns)
                    .or_else(|| ts_ns.zip(link.latency_ns).map(|(t, l)| t.saturating_sub(l)));
                let status = names::status_name(cqe.sct(), cqe.sc());
                if !cqe.is_success() {
                    *q.errors.entry(status).or_default() += 1;
                }
                let bytes = match moved {
                    Some(moved) => moved,
                    None if cqe.is_success() => u64::from(link.data_len),
                    None => 0,
                };
                q.count_bytes(link, bytes);
                let mut timed = Timed {
                    name: link.name,
                    cid: link.cid,
                    opcode: link.opcode,
                    sct: cqe.sct(),
                    sc: cqe.sc(),
                    dnr: cqe.dnr(),
                    frame: link.frame,
                    response_frame: frame,
                    start_ns,
                    end_ns: ts_ns,
                    latency_ns: link.latency_ns,
                    status,
                    bytes,
                    priority: None,
                    paused: Overlap::default(),
                };
                measure(&mut timed);
                q.table.answer(timed, budget);
            }
            NvmeMsg::Data { command, .. } => {
                if let Some(open) = q.table.open_get_mut(command.frame) {
                    *open.moved.get_or_insert(0) += moved;
                }
            }
            _ => {}
        }
    }

    pub fn finish(&mut self) {
        for q in self.queues.values_mut() {
            q.unanswered = q.table.open_len() as u64;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }
}

impl QueueStats {
    fn count_bytes(&mut self, link: &CommandLink, bytes: u64) {
        if link.fctype.is_some() || self.qid == Some(0) {
            return;
        }
        match link.opcode {
            io::READ => self.bytes_read += bytes,
            io::WRITE => self.bytes_written += bytes,
            _ => {}
        }
    }

    /// The commands never answered, by command frame.
    pub fn unanswered_commands(&self) -> Vec<(u64, &Open)> {
        self.table.open_by_frame()
    }

    /// The slowest answered commands, slowest first (ties by frame).
    pub fn slowest(&self) -> Vec<&Timed> {
        self.table.slowest.iter().collect()
    }
}

impl command_table::Command for Timed {
    fn frame(&self) -> u64 {
        self.frame
    }
    fn latency_ns(&self) -> Option<u64> {
        self.latency_ns
    }
}

impl command_table::OpenCommand for Open {
    fn ts_ns(&self) -> Option<u64> {
        self.ts_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v = [75_000, 250_000, 400_000];
        assert_eq!(percentile(&v, 50), Some(250_000));
        assert_eq!(percentile(&v, 99), Some(400_000));
        assert_eq!(percentile(&[], 50), None);
    }
}
