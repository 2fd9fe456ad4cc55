//! The summary's lines on how CNPs were answered (DCQCN): for the senders that got the
//! most CNPs, how long after the CE mark each came, how many marks each answered, how far
//! apart they came, and what they did to the sender's rate.

use std::fmt::Write;

use crate::report::Report;
use crate::report::connections::{CnpSender, Connection, cnp_senders};

/// Senders named; the JSON has every direction.
const SHOWN: usize = 2;

pub fn render(out: &mut String, report: &Report<'_>) {
    let senders = cnp_senders(Connection::all(report.connections.table));
    for CnpSender {
        sender,
        direction: d,
    } in senders.iter().take(SHOWN)
    {
        let mut parts = Vec::new();
        let delay = d.ce_to_cnp();
        if let (Some(p50), Some(max)) = (delay.get("p50"), delay.get("max")) {
            parts.push(format!(
                "CE mark to CNP p50 {} us, max {} us",
                micros(p50),
                micros(max)
            ));
        }
        if let Some(p50) = d.ce_per_cnp().get("p50") {
            parts.push(format!("CE marks per CNP p50 {p50}"));
        }
        if let Some(min) = d.cnp_interval().get("min") {
            parts.push(format!("interval min {} us", micros(min)));
        }
        if let Some(cut) = d.rate_cut_after_cnp() {
            parts.push(format!("rate after/before p50 {cut:.2}"));
        }
        if parts.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "  CNPs to {sender}: {}; {}",
            d.rsp.cnps,
            parts.join("; ")
        );
    }
}

fn micros(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1000.0)
}
