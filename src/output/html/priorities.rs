//! The per-priority table of the PFC section: what each priority carried, and how long a
//! sender paused it, as a PFC watchdog reads it ("paused more than X% of the interval").

use maud::{Markup, html};

use crate::report::priorities::PriorityRow;

pub fn render(rows: &[PriorityRow]) -> Markup {
    let ms = |ns: u64| format!("{:.3}", ns as f64 / 1e6);
    html! {
        table.sortable.priorities {
            thead { tr {
                th data-type="num" { "priority" } th { "from" } th { "DSCP" }
                th data-type="num" { "packets" } th data-type="num" { "bytes" }
                th data-type="num" { "CE" } th data-type="num" { "CNPs" }
                th data-type="num" title="the longest any one sender paused it (802.3x PAUSE included)" { "paused (ms)" }
                th { "paused by" } th data-type="num" { "senders pausing" }
                th data-type="num" title="paused time over the capture's span" { "paused (% of span)" }
            } }
            tbody {
                @for row in rows {
                    tr data-priority=(row.priority) data-paused-ns=(row.paused_ns) {
                        td.num data-sort=(row.priority) { (row.priority) }
                        td { (row.sources.join("+")) }
                        td { (dscps(row)) }
                        td.num data-sort=(row.packets) { (row.packets) }
                        td.num data-sort=(row.bytes) { (row.bytes) }
                        td.num data-sort=(row.ce) { (row.ce) }
                        td.num data-sort=(row.cnps) { (row.cnps) }
                        td.num data-sort=(row.paused_ns) { (ms(row.paused_ns)) }
                        td { (row.paused_by.map_or("-".to_string(), |m| m.to_string())) }
                        td.num data-sort=(row.pausing_senders) { (row.pausing_senders) }
                        td.num data-sort=[row.pause_fraction] { (row.pause_fraction.map_or("-".to_string(), |f| format!("{:.2}", f * 100.0))) }
                    }
                }
            }
        }
    }
}

/// `26 (1,200 pkts), 46 (8 pkts)`: each DSCP the priority carried, and how much.
fn dscps(row: &PriorityRow) -> String {
    let named: Vec<String> = row
        .dscp
        .iter()
        .map(|d| match d.dscp {
            Some(dscp) => format!("{dscp} ({} pkts)", d.packets),
            None => format!("none ({} pkts)", d.packets),
        })
        .collect();
    if named.is_empty() {
        "-".to_string()
    } else {
        named.join(", ")
    }
}
