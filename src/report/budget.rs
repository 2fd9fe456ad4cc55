//! `budget`: what the memory budget (`--memory`) evicted, present only when it evicted
//! something, so that a report of a capture that fit is the same with or without it.

use serde::Serialize;

use crate::analyze::Analyzer;
use crate::analyze::budget;

/// The budget, what the analysis held at most by its estimate, and what it evicted to
/// stay within it. `export` reads the counts for its `captures` table.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct BudgetSummary {
    /// `--memory`, in bytes.
    pub limit: u64,
    /// The most the tables and series held at once, by the estimates they are charged
    /// (each table's own peak, added up: an upper bound).
    pub peak_estimate: u64,
    /// Connection ends evicted (a connection has two, one if never paired).
    pub evicted_ends: u64,
    pub evicted_flows: u64,
    /// Time sequences and `--interval` timelines dropped from directions kept.
    pub evicted_series: u64,
    /// The packets and bytes (on the wire) of the flows evicted: the traffic the report's
    /// tables no longer show, though every total still counts it.
    pub evicted_packets: u64,
    pub evicted_bytes: u64,
    /// Answered upper-layer commands whose row was not kept (counted and timed by their
    /// queue's or session's statistics all the same), and open ones evicted before any
    /// response.
    #[serde(skip_serializing_if = "is_zero")]
    pub command_rows_dropped: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub commands_evicted_open: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Rows dropped and open commands evicted, over every queue and session.
fn commands_not_kept(analyzer: &Analyzer) -> (u64, u64) {
    let queues = analyzer.nvme.queues.values().map(|q| &q.table);
    let mut dropped = queues.clone().map(|t| t.rows_dropped).sum::<u64>();
    let mut evicted = queues.map(|t| t.evicted).sum::<u64>();
    for protocol in [&analyzer.rpcrdma, &analyzer.iser, &analyzer.smbd] {
        for s in protocol.sessions.values() {
            dropped += s.table.rows_dropped;
            evicted += s.table.evicted;
        }
    }
    (dropped, evicted)
}

impl BudgetSummary {
    /// What the budget did, when it evicted anything.
    pub fn of(analyzer: &Analyzer) -> Option<BudgetSummary> {
        let ends = &analyzer.connections;
        let flows = &analyzer.flows;
        let series = &ends.series_budget;
        let (command_rows_dropped, commands_evicted_open) = commands_not_kept(analyzer);
        let summary = BudgetSummary {
            limit: analyzer.config.memory,
            peak_estimate: budget::peak_estimate(
                budget::Peaks {
                    ends: ends.peak,
                    flows: flows.peak,
                    series_bytes: series.peak,
                    commands_bytes: analyzer.command_budget.peak,
                },
                analyzer.config.max_anomalies,
            ),
            evicted_ends: ends.dropped.entries,
            evicted_flows: flows.dropped.entries,
            evicted_series: series.dropped,
            evicted_packets: flows.dropped.packets,
            evicted_bytes: flows.dropped.bytes,
            command_rows_dropped,
            commands_evicted_open,
        };
        let evicted = summary.evicted_ends
            + summary.evicted_flows
            + summary.evicted_series
            + command_rows_dropped
            + commands_evicted_open;
        (evicted > 0).then_some(summary)
    }

    /// One sentence for the text report and the HTML page.
    pub fn sentence(&self) -> String {
        let mib = |b: u64| b as f64 / f64::from(1u32 << 20);
        let mut commands = String::new();
        if self.command_rows_dropped + self.commands_evicted_open > 0 {
            commands = format!(
                "; of the upper-layer commands, {} answered were counted and timed but not \
                 kept in full (charts draw the others) and {} were evicted while open (not \
                 known answered)",
                self.command_rows_dropped, self.commands_evicted_open
            );
        }
        format!(
            "memory budget reached ({:.0} MiB, peak estimate {:.0} MiB): evicted {} \
             connection ends, {} flows and {} time series, the least useful first; the \
             flows evicted carried {} packets, {} bytes (totals still count them; raise \
             --memory to keep them){commands}",
            mib(self.limit),
            mib(self.peak_estimate),
            self.evicted_ends,
            self.evicted_flows,
            self.evicted_series,
            self.evicted_packets,
            self.evicted_bytes,
        )
    }
}
