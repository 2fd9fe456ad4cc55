//! The `commands` dataset: one row per NVMe-oF command, answered or not, as `analyze`
//! times it: its queue, CID, name, start and end, latency, status, the bytes its data
//! transfers moved, and the frames of its command and response capsules.

use crate::analyze::nvme::{Open, QueueStats, Timed};
use crate::wire::nvme::names;

use super::columns::ColumnType;
use super::rows::{RowColumn, RowSchema, column, int, text, timestamp};

/// A command of a queue, answered or still open at the end of the capture.
pub enum Command<'a> {
    Answered(&'a Timed),
    Unanswered { frame: u64, open: &'a Open },
}

/// One row of the dataset: a command of queue `queue` in the capture named `capture`.
pub struct CommandRecord<'a> {
    pub capture: &'a str,
    pub queue: &'a QueueStats,
    pub command: Command<'a>,
}

impl<'a> CommandRecord<'a> {
    /// Every command of every queue, each queue's in order of command frame.
    pub fn all(capture: &'a str, queues: impl Iterator<Item = &'a QueueStats>) -> Vec<Self> {
        let mut rows = Vec::new();
        for queue in queues {
            let start = rows.len();
            rows.extend(queue.answered.iter().map(|t| CommandRecord {
                capture,
                queue,
                command: Command::Answered(t),
            }));
            rows.extend(
                queue
                    .unanswered_commands()
                    .into_iter()
                    .map(|(frame, open)| CommandRecord {
                        capture,
                        queue,
                        command: Command::Unanswered { frame, open },
                    }),
            );
            rows[start..].sort_by_key(|r| r.frame());
        }
        rows
    }

    fn frame(&self) -> u64 {
        match self.command {
            Command::Answered(t) => t.frame,
            Command::Unanswered { frame, .. } => frame,
        }
    }

    fn answered(&self) -> Option<&'a Timed> {
        match self.command {
            Command::Answered(t) => Some(t),
            Command::Unanswered { .. } => None,
        }
    }

    fn start_ns(&self) -> Option<u64> {
        match self.command {
            Command::Answered(t) => t.start_ns,
            Command::Unanswered { open, .. } => open.ts_ns,
        }
    }
}

type Column<'a> = RowColumn<CommandRecord<'a>>;

/// The `commands` dataset's columns.
pub fn command_schema<'a>() -> RowSchema<CommandRecord<'a>> {
    let c: Vec<Column<'a>> = vec![
        text(
            "capture",
            "the capture file's name, without its directory",
            |r: &CommandRecord<'_>| r.capture.to_string(),
        ),
        int(
            "queue",
            "NVMe-oF queue, numbered as the capture makes them known (nvme_queue in packets)",
            |r: &CommandRecord<'_>| r.queue.queue,
        ),
        int(
            "qid",
            "NVMe queue ID (0 admin), when the CM REQ or the Connect command said it",
            |r: &CommandRecord<'_>| r.queue.qid,
        ),
        int(
            "cid",
            "command identifier",
            |r: &CommandRecord<'_>| match r.command {
                Command::Answered(t) => t.cid,
                Command::Unanswered { open, .. } => open.cid,
            },
        ),
        text(
            "name",
            "command name, e.g. Read, Connect",
            |r: &CommandRecord<'_>| match r.command {
                Command::Answered(t) => t.name,
                Command::Unanswered { open, .. } => open.name,
            },
        ),
        int(
            "opcode",
            "NVMe command opcode (0x7f Fabrics)",
            |r: &CommandRecord<'_>| match r.command {
                Command::Answered(t) => t.opcode,
                Command::Unanswered { open, .. } => open.opcode,
            },
        ),
        timestamp(
            "start_ts",
            "the command capsule's time, to the microsecond",
            |r: &CommandRecord<'_>| r.start_ns(),
        ),
        int(
            "start_ts_ns",
            "the command capsule's time, nanoseconds since the epoch",
            |r: &CommandRecord<'_>| r.start_ns(),
        ),
        timestamp(
            "end_ts",
            "the response capsule's time, to the microsecond; null when unanswered",
            |r: &CommandRecord<'_>| r.answered().and_then(|t| t.end_ns),
        ),
        int(
            "end_ts_ns",
            "the response capsule's time, nanoseconds since the epoch",
            |r: &CommandRecord<'_>| r.answered().and_then(|t| t.end_ns),
        ),
        int(
            "latency_ns",
            "command capsule to response capsule (tshark's nvme.cmd_latency)",
            |r: &CommandRecord<'_>| r.answered().and_then(|t| t.latency_ns),
        ),
        text(
            "status",
            "the response's status name, e.g. Successful Completion",
            |r: &CommandRecord<'_>| r.answered().map(|t| names::status_name(t.sct, t.sc)),
        ),
        int("sct", "status code type", |r: &CommandRecord<'_>| {
            r.answered().map(|t| t.sct)
        }),
        int("sc", "status code", |r: &CommandRecord<'_>| {
            r.answered().map(|t| t.sc)
        }),
        column(
            "dnr",
            ColumnType::Bool,
            "Do Not Retry",
            |r: &CommandRecord<'_>| r.answered().map(|t| t.dnr),
        ),
        int(
            "bytes",
            "what its RDMA READ responses and WRITEs moved; without any in the capture, its SGL length when it succeeded",
            |r: &CommandRecord<'_>| match r.command {
                Command::Answered(t) => Some(t.bytes),
                Command::Unanswered { open, .. } => open.moved,
            },
        ),
        int(
            "command_frame",
            "the command capsule's frame",
            |r: &CommandRecord<'_>| r.frame(),
        ),
        int(
            "response_frame",
            "the response capsule's frame; null when unanswered",
            |r: &CommandRecord<'_>| r.answered().map(|t| t.response_frame),
        ),
        column(
            "unanswered",
            ColumnType::Bool,
            "no response in the capture: counted, not timed",
            |r: &CommandRecord<'_>| r.answered().is_none(),
        ),
    ];
    RowSchema::new(c)
}
