//! Per PFC priority: what it carried (by DSCP), and how long it was paused.

use serde::Serialize;

use super::values::display;
use crate::analyze::Analyzer;
use crate::analyze::pfc::ALL_PRIORITIES;
use crate::analyze::priorities::{Carried, PRIORITIES};
use crate::wire::ethernet::Mac;

#[derive(Serialize)]
pub struct DscpRow {
    /// None for tagged frames without an IP header or GRH.
    pub dscp: Option<u8>,
    pub packets: u64,
    pub bytes: u64,
    pub ce: u64,
    pub cnps: u64,
}

#[derive(Serialize)]
pub struct PriorityRow {
    pub priority: u8,
    /// How its packets were given this priority: `pcp`, `dscp`, or both.
    pub sources: Vec<&'static str>,
    pub packets: u64,
    pub bytes: u64,
    pub ce: u64,
    pub cnps: u64,
    pub dscp: Vec<DscpRow>,
    /// The longest any one sender paused the priority (802.3x PAUSE, which stops every
    /// priority, included): what a PFC watchdog watching that port would measure.
    pub paused_ns: u64,
    #[serde(serialize_with = "optional_mac")]
    pub paused_by: Option<Mac>,
    /// Senders that paused it at all.
    pub pausing_senders: u64,
    /// `paused_ns` over the capture's span; none for a capture of one instant.
    pub pause_fraction: Option<f64>,
}

fn optional_mac<S: serde::Serializer>(mac: &Option<Mac>, s: S) -> Result<S::Ok, S::Error> {
    match mac {
        Some(mac) => display(mac, s),
        None => s.serialize_none(),
    }
}

/// The priorities that carried RDMA or were paused, in order.
pub fn rows(analyzer: &Analyzer) -> Vec<PriorityRow> {
    let span = match (analyzer.first_ts, analyzer.last_ts) {
        (Some(first), Some(last)) if last > first => Some(last - first),
        _ => None,
    };
    let counts = &analyzer.priorities;
    let mut rows = Vec::new();
    for priority in 0..PRIORITIES as u8 {
        let total: Carried = counts.total(priority);
        let mut paused: Option<(u64, Mac)> = None;
        let mut senders = 0u64;
        for ((mac, p), stats) in &analyzer.pfc.senders {
            if (*p == priority || *p == ALL_PRIORITIES) && stats.pause_frames > 0 {
                senders += 1;
                // The longest, and of equal ones the lowest address, whatever the map's order.
                let better = paused.is_none_or(|(ns, by)| {
                    stats.paused_ns > ns || (stats.paused_ns == ns && *mac < by)
                });
                if better {
                    paused = Some((stats.paused_ns, *mac));
                }
            }
        }
        if total.packets == 0 && senders == 0 {
            continue;
        }
        let paused_ns = paused.map_or(0, |p| p.0);
        rows.push(PriorityRow {
            priority,
            sources: counts.sources(priority).map(|s| s.name()).collect(),
            packets: total.packets,
            bytes: total.bytes,
            ce: total.ce,
            cnps: total.cnps,
            dscp: counts
                .dscps(priority)
                .map(|(dscp, c)| DscpRow {
                    dscp,
                    packets: c.packets,
                    bytes: c.bytes,
                    ce: c.ce,
                    cnps: c.cnps,
                })
                .collect(),
            paused_ns,
            paused_by: paused.map(|p| p.1),
            pausing_senders: senders,
            pause_fraction: span.map(|span| paused_ns as f64 / span as f64),
        });
    }
    rows
}
