//! The NVMe-oF section of `analyze`'s text report: one table of queues, then each queue's
//! slowest commands, with what the transport did during each.

use std::fmt::Write;

use comfy_table::Cell;

use super::analyze_text::{Style, ms, number, table};
use crate::report::Report;
use crate::report::nvme::{During, Kept};

/// What `--memory` did not keep of a queue's or session's commands, when it did not keep
/// them all: the percentiles then come from a sketch, and evicted commands are neither
/// answered nor unanswered.
pub(super) fn note_kept(out: &mut String, which: &str, many: &str, answered: u64, kept: &Kept) {
    if let Some(timed) = kept.timed_kept {
        let _ = writeln!(
            out,
            "  {which}: p50/p99 estimated by a latency sketch (within a few %): {timed} of \
             {answered} answered {many} kept in full (--memory)",
        );
    }
    if kept.unanswered_evicted > 0 {
        let _ = writeln!(
            out,
            "  {which}: {} {many} evicted while open (--memory): not known answered, not \
             counted as unanswered",
            kept.unanswered_evicted,
        );
    }
}

pub fn render(out: &mut String, a: &Report<'_>, style: Style) {
    if a.nvme.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nNVMe-oF queues");
    let mut t = table(
        style,
        &[
            "queue",
            "qid",
            "by",
            "commands",
            "answered",
            "unanswered",
            "p50 ms",
            "p99 ms",
            "max ms",
            "max out",
            "read",
            "written",
            "errors",
        ],
    );
    for q in &a.nvme {
        let commands: Vec<String> = q.commands.iter().map(|(n, c)| format!("{n} {c}")).collect();
        let errors: Vec<String> = q.errors.iter().map(|(n, c)| format!("{n} {c}")).collect();
        t.add_row(vec![
            Cell::new(q.queue),
            Cell::new(q.qid.map_or("-".to_string(), |q| q.to_string())),
            Cell::new(q.recognised_by),
            Cell::new(commands.join(", ")),
            number(q.answered),
            number(q.unanswered),
            Cell::new(ms(q.latency.p50_ns)),
            Cell::new(ms(q.latency.p99_ns)),
            Cell::new(ms(q.latency.max_ns)),
            number(q.max_outstanding),
            number(q.bytes_read),
            number(q.bytes_written),
            Cell::new(if errors.is_empty() {
                "-".to_string()
            } else {
                errors.join(", ")
            }),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
    for q in &a.nvme {
        let kept = Kept {
            latency_exact: q.latency_exact,
            timed_kept: q.timed_kept,
            unanswered_evicted: q.unanswered_evicted,
        };
        note_kept(
            out,
            &format!("queue {}", q.queue),
            "commands",
            q.answered,
            &kept,
        );
    }
    for q in a.nvme.iter().filter(|q| !q.slowest.is_empty()) {
        let _ = writeln!(out, "\nSlowest NVMe-oF commands, queue {}", q.queue);
        let mut t = table(
            style,
            &[
                "command", "cid", "frame", "response", "ms", "status", "during",
            ],
        );
        for s in &q.slowest {
            t.add_row(vec![
                Cell::new(s.name),
                Cell::new(s.cid),
                Cell::new(s.frame),
                Cell::new(s.response_frame),
                Cell::new(ms(s.latency_ns)),
                Cell::new(s.status),
                Cell::new(during(&s.during)),
            ]);
        }
        let _ = writeln!(out, "{}", t.trim_fmt());
    }
}

/// The transport events of a command's lifetime, in a few words:
/// `retransmission psn 1541 (timeout) frame 43; stall 590 us; prio 0 paused 200 us`.
fn during(d: &During) -> String {
    if d.is_empty() {
        return "-".to_string();
    }
    let mut parts: Vec<String> = Vec::new();
    for r in &d.retransmissions {
        parts.push(format!(
            "{} psn {} ({}) frame {}",
            r.kind.replace('_', "-"),
            r.psn,
            r.cause,
            r.frame
        ));
    }
    for s in &d.stalls {
        parts.push(format!("{} stalled {} us", s.sender, s.duration_ns / 1000));
    }
    if d.pause.paused_ns > 0 {
        let prio = d
            .pause
            .priority
            .map_or(String::new(), |p| format!("prio {p} "));
        parts.push(format!("{prio}paused {} us", d.pause.paused_ns / 1000));
    }
    parts.join("; ")
}
