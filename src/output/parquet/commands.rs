//! The `commands` dataset: one row per command of an upper-layer protocol, answered or not,
//! as `analyze` times it: NVMe-oF commands, RPC-over-RDMA calls, iSER tasks and SMB2
//! requests over SMB Direct. Each row says its protocol, its queue or session, its key (CID,
//! XID, ITT or message ID), name, start and end, latency, status, the bytes it moved, and the
//! frames of its request and response, so that one query spans the protocols; the NVMe-oF
//! status codes and opcode are null for the others.

use crate::analyze::Analyzer;
use crate::analyze::command_table::CommandBudget;
use crate::analyze::nvme::{Open, QueueStats, Timed};
use crate::analyze::sessions::{Answered, OpenCall, SessionStats, Sessions};
use crate::dissect::CallLink;
use crate::wire::nvme::names;

use super::columns::ColumnType;
use super::rows::{RowColumn, RowSchema, column, int, text, timestamp};

/// A command, answered or still open at the end of the capture.
pub enum Command<'a> {
    /// An NVMe-oF command of a queue.
    Answered(&'a Timed),
    /// Open at the end, or `evicted` while open at `--memory`'s share: not known answered.
    Unanswered {
        frame: u64,
        open: &'a Open,
        evicted: bool,
    },
    /// A call of an RPC-over-RDMA, iSER or SMB Direct session.
    Replied(&'a Answered),
    Unreplied {
        frame: u64,
        open: &'a OpenCall,
        evicted: bool,
    },
}

/// What `export` takes out of the command tables while the capture is read, whenever
/// their rows' share is full: each queue's and session's answered rows so far and the open
/// commands evicted, so that every command gets its row and the analysis stays within
/// `--memory`.
#[derive(Default)]
pub struct Taken {
    nvme: Vec<TakenFrom<Timed, Open>>,
    sessions: [Vec<TakenFrom<Answered, OpenCall>>; 3],
}

/// A table's key (input, queue or session), with its answered rows and its open commands
/// evicted, taken.
type TakenFrom<Row, Open> = ((usize, u32), Vec<Row>, Vec<(u64, Open)>);

/// The session protocols, as the `protocol` column names them, in the dataset's order.
const SESSION_PROTOCOLS: [&str; 3] = ["rpcrdma", "iser", "smbd"];

fn sessions_of(analyzer: &Analyzer) -> [&Sessions; 3] {
    [&analyzer.rpcrdma, &analyzer.iser, &analyzer.smbd]
}

impl Taken {
    /// Takes every table's rows and evicted open commands out of the analysis.
    pub fn take(analyzer: &mut Analyzer) -> Taken {
        let budget: &mut CommandBudget = &mut analyzer.command_budget;
        let nvme = analyzer
            .nvme
            .queues
            .iter_mut()
            .map(|(key, q)| {
                let (rows, evicted) = q.table.take(budget);
                (*key, rows, evicted)
            })
            .collect();
        let mut sessions: [Vec<_>; 3] = Default::default();
        let all = [
            &mut analyzer.rpcrdma,
            &mut analyzer.iser,
            &mut analyzer.smbd,
        ];
        for (taken, protocol) in sessions.iter_mut().zip(all) {
            *taken = protocol
                .sessions
                .iter_mut()
                .map(|(key, s)| {
                    let (rows, evicted) = s.table.take(budget);
                    (*key, rows, evicted)
                })
                .collect();
        }
        Taken { nvme, sessions }
    }

    /// The rows of what was taken, each table's in order of command frame.
    pub fn records<'a>(
        &'a self,
        capture: &'a str,
        analyzer: &'a Analyzer,
    ) -> Vec<CommandRecord<'a>> {
        let mut rows = Vec::new();
        for (key, answered, evicted) in &self.nvme {
            let Some(queue) = analyzer.nvme.queues.get(key) else {
                continue;
            };
            rows.extend(CommandRecord::of_queue(
                capture,
                queue,
                answered,
                Vec::new(),
                evicted,
            ));
        }
        let all = sessions_of(analyzer);
        for ((protocol, sessions), taken) in SESSION_PROTOCOLS.iter().zip(all).zip(&self.sessions) {
            for (key, answered, evicted) in taken {
                let Some(stats) = sessions.sessions.get(key) else {
                    continue;
                };
                rows.extend(CommandRecord::of_session(
                    capture,
                    protocol,
                    stats,
                    answered,
                    Vec::new(),
                    evicted,
                ));
            }
        }
        rows
    }
}

/// Where a command was sent: an NVMe-oF queue, or a session of one of the request/response
/// protocols, named as the `protocol` column names it.
pub enum Carrier<'a> {
    Queue(&'a QueueStats),
    Session {
        protocol: &'static str,
        stats: &'a SessionStats,
    },
}

/// One row of the dataset: a command in the capture named `capture`.
pub struct CommandRecord<'a> {
    pub capture: &'a str,
    pub carrier: Carrier<'a>,
    pub command: Command<'a>,
}

impl<'a> CommandRecord<'a> {
    /// Every command of the capture `analyzer` read (that `export` did not take before):
    /// NVMe-oF queues, then RPC-over-RDMA, iSER and SMB Direct sessions, each queue's or
    /// session's in order of command frame.
    pub fn all(capture: &'a str, analyzer: &'a Analyzer) -> Vec<Self> {
        let mut rows = Vec::new();
        for queue in analyzer.nvme.queues.values() {
            let table = &queue.table;
            let open = queue.unanswered_commands();
            let evicted = &table.evicted_open;
            rows.extend(Self::of_queue(capture, queue, &table.rows, open, evicted));
        }
        for (protocol, sessions) in SESSION_PROTOCOLS.iter().zip(sessions_of(analyzer)) {
            for stats in sessions.sessions.values() {
                let table = &stats.table;
                let open = stats.unanswered_calls();
                let evicted = &table.evicted_open;
                rows.extend(Self::of_session(
                    capture,
                    protocol,
                    stats,
                    &table.rows,
                    open,
                    evicted,
                ));
            }
        }
        rows
    }

    /// One queue's commands: answered, open, and evicted while open; by command frame.
    fn of_queue(
        capture: &'a str,
        queue: &'a QueueStats,
        answered: &'a [Timed],
        open: Vec<(u64, &'a Open)>,
        evicted: &'a [(u64, Open)],
    ) -> Vec<Self> {
        let row = |command| CommandRecord {
            capture,
            carrier: Carrier::Queue(queue),
            command,
        };
        let mut rows: Vec<Self> = answered.iter().map(|t| row(Command::Answered(t))).collect();
        let open = open.into_iter().map(|(frame, open)| (frame, open, false));
        let evicted = evicted.iter().map(|(frame, open)| (*frame, open, true));
        rows.extend(open.chain(evicted).map(|(frame, open, evicted)| {
            row(Command::Unanswered {
                frame,
                open,
                evicted,
            })
        }));
        rows.sort_by_key(|r| r.frame());
        rows
    }

    /// One session's calls: answered, open, and evicted while open; by call frame.
    fn of_session(
        capture: &'a str,
        protocol: &'static str,
        stats: &'a SessionStats,
        answered: &'a [Answered],
        open: Vec<(u64, &'a OpenCall)>,
        evicted: &'a [(u64, OpenCall)],
    ) -> Vec<Self> {
        let row = |command| CommandRecord {
            capture,
            carrier: Carrier::Session { protocol, stats },
            command,
        };
        let mut rows: Vec<Self> = answered.iter().map(|a| row(Command::Replied(a))).collect();
        let open = open.into_iter().map(|(frame, open)| (frame, open, false));
        let evicted = evicted.iter().map(|(frame, open)| (*frame, open, true));
        rows.extend(open.chain(evicted).map(|(frame, open, evicted)| {
            row(Command::Unreplied {
                frame,
                open,
                evicted,
            })
        }));
        rows.sort_by_key(|r| r.frame());
        rows
    }

    fn protocol(&self) -> &'static str {
        match self.carrier {
            Carrier::Queue(_) => "nvme",
            Carrier::Session { protocol, .. } => protocol,
        }
    }

    fn session(&self) -> u32 {
        match self.carrier {
            Carrier::Queue(q) => q.queue,
            Carrier::Session { stats, .. } => stats.session,
        }
    }

    fn queue(&self) -> Option<&'a QueueStats> {
        match self.carrier {
            Carrier::Queue(q) => Some(q),
            Carrier::Session { .. } => None,
        }
    }

    fn frame(&self) -> u64 {
        match self.command {
            Command::Answered(t) => t.frame,
            Command::Replied(a) => a.frame,
            Command::Unanswered { frame, .. } | Command::Unreplied { frame, .. } => frame,
        }
    }

    fn key(&self) -> Option<u64> {
        let key = match self.command {
            Command::Answered(t) => u64::from(t.cid),
            Command::Unanswered { open, .. } => u64::from(open.cid),
            Command::Replied(a) => a.key,
            Command::Unreplied { open, .. } => open.key,
        };
        (key != CallLink::NO_KEY).then_some(key)
    }

    fn name(&self) -> &'static str {
        match self.command {
            Command::Answered(t) => t.name,
            Command::Unanswered { open, .. } => open.name,
            Command::Replied(a) => a.name,
            Command::Unreplied { open, .. } => open.name,
        }
    }

    /// The NVMe-oF command answered, when this row is one.
    fn timed(&self) -> Option<&'a Timed> {
        match self.command {
            Command::Answered(t) => Some(t),
            _ => None,
        }
    }

    /// The NVMe-oF command, answered or not, when this row is one.
    fn nvme(&self) -> Option<(u16, u8)> {
        match self.command {
            Command::Answered(t) => Some((t.cid, t.opcode)),
            Command::Unanswered { open, .. } => Some((open.cid, open.opcode)),
            _ => None,
        }
    }

    fn start_ns(&self) -> Option<u64> {
        match self.command {
            Command::Answered(t) => t.start_ns,
            Command::Unanswered { open, .. } => open.ts_ns,
            Command::Replied(a) => a.start_ns,
            Command::Unreplied { open, .. } => open.ts_ns,
        }
    }

    fn end_ns(&self) -> Option<u64> {
        match self.command {
            Command::Answered(t) => t.end_ns,
            Command::Replied(a) => a.end_ns,
            _ => None,
        }
    }

    fn latency_ns(&self) -> Option<u64> {
        match self.command {
            Command::Answered(t) => t.latency_ns,
            Command::Replied(a) => a.latency_ns,
            _ => None,
        }
    }

    fn status(&self) -> Option<&'static str> {
        match self.command {
            Command::Answered(t) => Some(names::status_name(t.sct, t.sc)),
            Command::Replied(a) => Some(a.status),
            _ => None,
        }
    }

    fn bytes(&self) -> Option<u64> {
        match self.command {
            Command::Answered(t) => Some(t.bytes),
            Command::Unanswered { open, .. } => open.moved,
            Command::Replied(a) => Some(a.bytes),
            Command::Unreplied { .. } => None,
        }
    }

    fn response_frame(&self) -> Option<u64> {
        match self.command {
            Command::Answered(t) => Some(t.response_frame),
            Command::Replied(a) => Some(a.reply_frame),
            _ => None,
        }
    }

    /// Whether no response came; unknown (null) for a command evicted while open.
    fn unanswered(&self) -> Option<bool> {
        match self.command {
            Command::Unanswered { evicted, .. } | Command::Unreplied { evicted, .. } => {
                (!evicted).then_some(true)
            }
            _ => Some(false),
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
        text(
            "protocol",
            "nvme (NVMe-oF), rpcrdma (RPC-over-RDMA), iser or smbd (SMB Direct)",
            |r: &CommandRecord<'_>| r.protocol(),
        ),
        int(
            "session",
            "the NVMe-oF queue (as queue) or the RPC-over-RDMA, iSER or SMB Direct session, numbered as analyze numbers them",
            |r: &CommandRecord<'_>| r.session(),
        ),
        int(
            "queue",
            "NVMe-oF queue, numbered as the capture makes them known (nvme_queue in packets); null for the other protocols",
            |r: &CommandRecord<'_>| r.queue().map(|q| q.queue),
        ),
        int(
            "qid",
            "NVMe queue ID (0 admin), when the CM REQ or the Connect command said it",
            |r: &CommandRecord<'_>| r.queue().and_then(|q| q.qid),
        ),
        int(
            "key",
            "what pairs the response with its command: the NVMe-oF CID, RPC XID, iSCSI ITT or SMB2 message ID; null for SMB Direct's negotiate, which has none",
            |r: &CommandRecord<'_>| r.key(),
        ),
        int(
            "cid",
            "command identifier (NVMe-oF)",
            |r: &CommandRecord<'_>| r.nvme().map(|(cid, _)| cid),
        ),
        text(
            "name",
            "command name, e.g. Read, Connect; the NFS procedure or COMPOUND's main operation, the SCSI command or iSCSI opcode, the SMB2 command",
            |r: &CommandRecord<'_>| r.name(),
        ),
        int(
            "opcode",
            "NVMe command opcode (0x7f Fabrics)",
            |r: &CommandRecord<'_>| r.nvme().map(|(_, opcode)| opcode),
        ),
        timestamp(
            "start_ts",
            "the command capsule's (or call's, request's) time, to the microsecond",
            |r: &CommandRecord<'_>| r.start_ns(),
        ),
        int(
            "start_ts_ns",
            "the command capsule's (or call's, request's) time, nanoseconds since the epoch",
            |r: &CommandRecord<'_>| r.start_ns(),
        ),
        timestamp(
            "end_ts",
            "the response capsule's (or reply's, response's) time, to the microsecond; null when unanswered",
            |r: &CommandRecord<'_>| r.end_ns(),
        ),
        int(
            "end_ts_ns",
            "the response capsule's (or reply's, response's) time, nanoseconds since the epoch",
            |r: &CommandRecord<'_>| r.end_ns(),
        ),
        int(
            "latency_ns",
            "command capsule to response capsule (tshark's nvme.cmd_latency), call to reply",
            |r: &CommandRecord<'_>| r.latency_ns(),
        ),
        text(
            "status",
            "the response's status name, e.g. Successful Completion, NFS3ERR_NOENT, CHECK CONDITION, STATUS_SUCCESS",
            |r: &CommandRecord<'_>| r.status(),
        ),
        int(
            "sct",
            "status code type (NVMe-oF)",
            |r: &CommandRecord<'_>| r.timed().map(|t| t.sct),
        ),
        int("sc", "status code (NVMe-oF)", |r: &CommandRecord<'_>| {
            r.timed().map(|t| t.sc)
        }),
        column(
            "dnr",
            ColumnType::Bool,
            "Do Not Retry (NVMe-oF)",
            |r: &CommandRecord<'_>| r.timed().map(|t| t.dnr),
        ),
        int(
            "bytes",
            "NVMe-oF: what its RDMA READ responses and WRITEs moved; without any in the capture, its SGL length when it succeeded. The others: what the call asked to read and write (chunks, expected data length, RDMA channel), when it succeeded; 0 when it failed, null when unanswered",
            |r: &CommandRecord<'_>| r.bytes(),
        ),
        int(
            "command_frame",
            "the command capsule's (or call's, request's) frame",
            |r: &CommandRecord<'_>| r.frame(),
        ),
        int(
            "response_frame",
            "the response capsule's (or reply's, response's) frame; null when unanswered",
            |r: &CommandRecord<'_>| r.response_frame(),
        ),
        column(
            "unanswered",
            ColumnType::Bool,
            "no response in the capture: counted, not timed; null for a command --memory evicted while still open (not known answered; a response after that is not timed)",
            |r: &CommandRecord<'_>| r.unanswered(),
        ),
    ];
    RowSchema::new(c)
}
