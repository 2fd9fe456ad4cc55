//! The RPC-over-RDMA, iSER and SMB Direct sections of `analyze`'s text report: one table of connections, then each
//! connection's slowest calls.

use std::fmt::Write;

use comfy_table::Cell;

use super::analyze_nvme::note_kept;
use super::analyze_text::{Style, ms, number, table};
use crate::report::Report;
use crate::report::nvme::Kept;
use crate::report::sessions::SessionRow;

fn listed(counts: &std::collections::BTreeMap<&'static str, u64>) -> String {
    if counts.is_empty() {
        return "-".to_string();
    }
    let parts: Vec<String> = counts.iter().map(|(n, c)| format!("{n} {c}")).collect();
    parts.join(", ")
}

fn render_rows(out: &mut String, title: &str, key: &str, rows: &[SessionRow], style: Style) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title} connections");
    let mut t = table(
        style,
        &[
            "connection",
            "by",
            "calls",
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
    for s in rows {
        t.add_row(vec![
            Cell::new(s.session),
            Cell::new(s.recognised_by),
            Cell::new(listed(&s.calls)),
            number(s.answered),
            number(s.unanswered),
            Cell::new(ms(s.latency.p50_ns)),
            Cell::new(ms(s.latency.p99_ns)),
            Cell::new(ms(s.latency.max_ns)),
            number(s.max_outstanding),
            number(s.bytes_read),
            number(s.bytes_written),
            Cell::new(listed(&s.errors)),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
    for s in rows {
        let kept = Kept {
            latency_exact: s.latency_exact,
            timed_kept: s.timed_kept,
            unanswered_evicted: s.unanswered_evicted,
        };
        note_kept(
            out,
            &format!("connection {}", s.session),
            "calls",
            s.answered,
            &kept,
        );
    }
    for s in rows.iter().filter(|s| !s.slowest.is_empty()) {
        let _ = writeln!(out, "\nSlowest {title} calls, connection {}", s.session);
        let mut t = table(style, &["call", key, "frame", "reply", "ms", "status"]);
        for c in &s.slowest {
            t.add_row(vec![
                Cell::new(c.name),
                Cell::new(format!("{:#x}", c.key)),
                Cell::new(c.frame),
                Cell::new(c.reply_frame),
                Cell::new(ms(c.latency_ns)),
                Cell::new(c.status),
            ]);
        }
        let _ = writeln!(out, "{}", t.trim_fmt());
    }
}

pub fn render(out: &mut String, a: &Report<'_>, style: Style) {
    render_rows(out, "RPC-over-RDMA", "xid", &a.rpcrdma, style);
    render_rows(out, "iSER", "itt", &a.iser, style);
    render_rows(out, "SMB Direct", "message id", &a.smbd, style);
}
