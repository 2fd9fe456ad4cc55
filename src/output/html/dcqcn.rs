//! The congestion table: for each direction whose sender got CNPs, how the notification
//! point answered the CE marks (delay, marks per CNP, interval) and how the sender's rate
//! answered the CNPs, as the JSON gives them per direction.

use maud::{Markup, html};

use crate::report::connections::{Connection, Direction, Summary};

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
    let mut rows: Vec<(String, Direction<'_>)> = connections
        .iter()
        .flat_map(|c| {
            let qpn = |q: Option<u32>| q.map_or("?".to_string(), |q| format!("{q:#x}"));
            [
                (format!("{} qp {}", c.a_addr, qpn(c.a_qpn)), c.a_to_b()),
                (format!("{} qp {}", c.b_addr, qpn(c.b_qpn)), c.b_to_a()),
            ]
        })
        .filter(|(_, d)| d.rsp.cnps > 0)
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    rows.sort_by_key(|(_, d)| std::cmp::Reverse(d.rsp.cnps));
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
                @for (sender, d) in rows.iter().take(ROWS) {
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
