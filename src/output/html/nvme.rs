//! The NVMe-oF section: per queue, a histogram of its commands' latencies and their latency
//! over time, one mark per command at its response (drawn by `calls`). Absent when the
//! capture has no NVMe-oF.

use maud::{Markup, html};

use super::calls::{self, Charted, Timed, Words};
use crate::analyze::nvme::QueueStats;

const WORDS: Words = Words {
    one: "command",
    many: "commands",
    span: "command capsule to response capsule",
    answer: "response",
};

pub fn render(queues: &[&QueueStats], origin_ns: u64) -> Markup {
    html! {
        @for q in queues {
            @let name = match q.qid {
                Some(qid) => format!("Queue {} (QID {qid}, recognised by {})", q.queue, q.recognised_by.name()),
                None => format!("Queue {} (recognised by {})", q.queue, q.recognised_by.name()),
            };
            div.nvme-queue data-queue=(q.queue) {
                h3 { (name) }
                (calls::render(&charted(q), origin_ns))
            }
        }
    }
}

fn charted(q: &QueueStats) -> Charted<'_> {
    let timed = q
        .table
        .rows
        .iter()
        .map(|t| Timed {
            end_ns: t.end_ns,
            latency_ns: t.latency_ns,
            cid: Some(t.cid),
            key: None,
            name: t.name,
            command_frame: t.frame,
            response_frame: t.response_frame,
            status: t.status,
            succeeded: t.sct == 0 && t.sc == 0,
        })
        .collect();
    Charted {
        protocol: "nvme",
        queue: Some(q.queue),
        session: None,
        answered: q.table.answered,
        words: &WORDS,
        timed,
    }
}
