//! The congestion table: for each direction whose sender got CNPs, how the notification
//! point answered the CE marks (delay, marks per CNP, interval) and how the sender's rate
//! answered the CNPs, as the JSON gives them per direction.

use maud::{Markup, html};

use crate::report::connections::{CnpSender, Connection, Summary, cnp_senders};

/// Directions listed at most, the most CNPs first; the JSON has them all.
const ROWS: usize = 200;

fn micros(ns: Option<u64>) -> String {
    ns.map_or("-".to_string(), |ns| format!("{:.1}", ns as f64 / 1e3))
}

fn gbps(bps: Option<u64>) -> String {
    bps.map_or("-".to_string(), |b| format!("{:.3}", b as f64 / 1e9))
}

fn count(n: Option<u64>) -> String {
    n.map_or("-".to_string(), |n| n.to_string())
}

pub fn render(connections: &[Connection<'_>]) -> Markup {
    let rows = cnp_senders(connections.iter().copied());
    if rows.is_empty() {
        return html! {};
    }
    let p50 = |s: Summary<'_>| s.get("p50");
    html! {
        h3 { "CNPs and the rate they cut" }
        table.congestion {
            thead { tr {
                th { "sender" } th { "CNPs" } th { "CE→CNP p50 (µs)" } th { "CE→CNP max (µs)" }
                th { "CE marks per CNP p50" } th { "CNP interval min (µs)" }
                th { "rate before p50 (Gb/s)" } th { "rate after p50 (Gb/s)" }
                th { "after/before p50" }
            } }
            tbody {
                @for CnpSender { sender, direction: d } in rows.iter().take(ROWS) {
                    tr data-cnp-sender=(sender) {
                        td { (sender) }
                        td.num { (d.rsp.cnps) }
                        td.num { (micros(p50(d.ce_to_cnp()))) }
                        td.num { (micros(d.ce_to_cnp().get("max"))) }
                        td.num { (count(p50(d.ce_per_cnp()))) }
                        td.num { (micros(d.cnp_interval().get("min"))) }
                        td.num { (gbps(p50(d.rate_before_cnp()))) }
                        td.num { (gbps(p50(d.rate_after_cnp()))) }
                        td.num { (d.rate_cut_after_cnp().map_or("-".to_string(), |c| format!("{c:.2}"))) }
                    }
                }
            }
        }
        @if rows.len() > ROWS {
            p.note { (rows.len() - ROWS) " more senders got CNPs, in the JSON report." }
        }
    }
}
