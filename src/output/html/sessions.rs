//! The RPC-over-RDMA, iSER and SMB Direct sections: per connection, a histogram of its
//! calls' latencies and their latency over time, as the NVMe-oF section draws its queues
//! (both through `calls`). Each is absent when the capture has none of its protocol.

use maud::{Markup, html};

use super::calls::{self, Charted, Timed, Words};
use crate::analyze::Analyzer;
use crate::analyze::sessions::{SessionStats, Sessions};
use crate::dissect::CallLink;

/// One of the request/response protocols, as its section names it.
pub struct Protocol {
    /// The section's id and the marks' prefix, as `read --json` names the layer.
    pub id: &'static str,
    pub title: &'static str,
    pub words: Words,
}

const PROTOCOLS: [Protocol; 3] = [
    Protocol {
        id: "rpcrdma",
        title: "RPC-over-RDMA",
        words: Words {
            one: "call",
            many: "calls",
            span: "call to reply",
            answer: "reply",
        },
    },
    Protocol {
        id: "iser",
        title: "iSER",
        words: Words {
            one: "command",
            many: "commands",
            span: "iSCSI command to response",
            answer: "response",
        },
    },
    Protocol {
        id: "smbd",
        title: "SMB Direct",
        words: Words {
            one: "request",
            many: "requests",
            span: "request to response",
            answer: "response",
        },
    },
];

/// The protocols the capture carried, each with its sessions in order.
pub fn present(analyzer: &Analyzer) -> Vec<(&'static Protocol, Vec<&SessionStats>)> {
    let all: [&Sessions; 3] = [&analyzer.rpcrdma, &analyzer.iser, &analyzer.smbd];
    PROTOCOLS
        .iter()
        .zip(all)
        .filter(|(_, s)| !s.is_empty())
        .map(|(p, s)| (p, s.sessions.values().collect()))
        .collect()
}

pub fn render(protocol: &Protocol, sessions: &[&SessionStats], origin_ns: u64) -> Markup {
    html! {
        @for s in sessions {
            div.session data-protocol=(protocol.id) data-session=(s.session) {
                h3 { "Connection " (s.session) " (recognised by " (s.recognised_by.name()) ")" }
                (calls::render(&charted(protocol, s), origin_ns))
            }
        }
    }
}

fn charted<'a>(protocol: &'a Protocol, s: &'a SessionStats) -> Charted<'a> {
    let timed = s
        .table
        .rows
        .iter()
        .map(|a| Timed {
            end_ns: a.end_ns,
            latency_ns: a.latency_ns,
            cid: None,
            key: (a.key != CallLink::NO_KEY).then_some(a.key),
            name: a.name,
            command_frame: a.frame,
            response_frame: a.reply_frame,
            status: a.status,
            succeeded: !a.failed,
        })
        .collect();
    Charted {
        protocol: protocol.id,
        queue: None,
        session: Some(s.session),
        answered: s.table.answered,
        words: &protocol.words,
        timed,
    }
}
