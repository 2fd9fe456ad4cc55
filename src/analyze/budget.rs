//! `--memory`: one budget for everything an analysis keeps, shared out between its tables
//! when the analysis starts, so that no packet pays for accounting. Each table entry is
//! charged a constant estimate of what it costs (an upper bound: its state, its index
//! entry, the sketches it may fill); the per-direction series of `--html` and `--interval`
//! grow with their traffic and are charged as they reserve room.
//!
//! At its share, a table drops the least useful eighth of what it holds: the entries with
//! the fewest events (anomalies, retransmissions, stalls), then the fewest packets, then
//! the least recently active. What was dropped, and the traffic it carried, is counted for
//! the report.

use super::Anomaly;
use super::capture_loss::MissedRun;

/// The default `--memory`.
pub const DEFAULT_BYTES: u64 = 256 << 20;

/// Fewest connection ends a budget leaves room for, however small: a budget below what a
/// few connections cost still analyses them.
const MIN_ENDS: usize = 16;

/// What each table may hold, from the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shares {
    /// Anomalies (and capture-missed runs) kept in full: `--max-anomalies`, or fewer when
    /// that would take more than a quarter of the budget.
    pub anomalies: usize,
    /// Connection ends; beyond, the least useful are evicted.
    pub ends: usize,
    /// Flows: two for each end, the requests it receives and the responses.
    pub flows: usize,
    /// Bytes the per-direction series may reserve, when they are recorded.
    pub series_bytes: u64,
    /// Bytes the upper-layer command tables may hold: answered rows and open commands
    /// (`super::command_table`).
    pub commands_bytes: u64,
}

/// Bytes an anomaly kept in full costs, with the capture-missed run kept beside it.
fn bytes_per_anomaly() -> u64 {
    (std::mem::size_of::<Anomaly>() + std::mem::size_of::<MissedRun>()) as u64
}

/// Bytes kept whatever the capture: the anomalies and capture-missed runs the report lists
/// in full, `max_anomalies` of each at most.
pub fn fixed_bytes(max_anomalies: usize) -> u64 {
    (max_anomalies as u64).saturating_mul(bytes_per_anomaly())
}

/// Bytes one connection end costs with what hangs off it: its own state, index entry and
/// sketches, two flows, and its place among the unpaired ends until it is paired.
pub fn bytes_per_end() -> u64 {
    let end = super::connections::bytes_per_connection() / 2;
    let flows = 2 * super::flows::bytes_per_flow();
    (end + flows + super::connections::bytes_unpaired()) as u64
}

/// The most each table held at once, by its estimates.
#[derive(Debug, Clone, Copy, Default)]
pub struct Peaks {
    pub ends: usize,
    pub flows: usize,
    pub series_bytes: u64,
    pub commands_bytes: u64,
}

/// The most the analysis held by its estimates, from each table's peak: ends with their
/// index and sketches, flows, the series' reserved room, the command tables, and the fixed
/// lists.
pub fn peak_estimate(peaks: Peaks, max_anomalies: usize) -> u64 {
    let end = super::connections::bytes_per_connection() / 2 + super::connections::bytes_unpaired();
    let flow = super::flows::bytes_per_flow();
    (peaks.ends as u64 * end as u64)
        .saturating_add(peaks.flows as u64 * flow as u64)
        .saturating_add(peaks.series_bytes)
        .saturating_add(peaks.commands_bytes)
        .saturating_add(fixed_bytes(max_anomalies))
}

impl Shares {
    /// Shares `limit` bytes out: the fixed lists first, then an eighth of the rest to the
    /// upper-layer command tables, then three eighths of what remains to the series when
    /// there are any (a direction's series can cost a hundred times its end), and the rest
    /// to the ends and their flows. The commands' eighth comes out of both the series' and
    /// the ends' shares alike, so that the two keep the balance they had without it.
    pub fn of(limit: u64, max_anomalies: usize, series: bool) -> Shares {
        let room = usize::try_from(limit / 4 / bytes_per_anomaly()).unwrap_or(usize::MAX);
        let anomalies = max_anomalies.min(room);
        let rest = limit - fixed_bytes(anomalies);
        let commands_bytes = rest / 8;
        let connections = rest - commands_bytes;
        let series_bytes = if series { connections / 8 * 3 } else { 0 };
        let tables = connections - series_bytes;
        let ends = usize::try_from(tables / bytes_per_end())
            .unwrap_or(usize::MAX)
            .max(MIN_ENDS);
        Shares {
            anomalies,
            ends,
            flows: ends.saturating_mul(2),
            series_bytes,
            commands_bytes,
        }
    }
}

/// What a table dropped at its share of the budget, and the traffic that had carried.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Dropped {
    pub entries: u64,
    pub packets: u64,
    pub bytes: u64,
}

impl Dropped {
    pub fn add(&mut self, packets: u64, bytes: u64) {
        self.entries += 1;
        self.packets += packets;
        self.bytes += bytes;
    }
}

/// How an eviction orders what it may drop: least recently active first, as `--max-flows`
/// always did, or, at the memory budget, least useful first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    #[default]
    Recency,
    Usefulness,
}

/// An entry's place in the eviction order: the lowest go first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Worth {
    events: u64,
    packets: u64,
    last_activity: u64,
}

impl Order {
    pub fn worth(self, events: u64, packets: u64, last_activity: u64) -> Worth {
        match self {
            Order::Recency => Worth {
                events: 0,
                packets: 0,
                last_activity,
            },
            Order::Usefulness => Worth {
                events,
                packets,
                last_activity,
            },
        }
    }
}

/// The worth at and below which an eighth of `worths` (at least one) lies: one O(n) pass
/// that buys n/8 insertions, so eviction stays amortised O(1) per packet.
pub fn eighth_threshold(mut worths: Vec<Worth>) -> Option<Worth> {
    if worths.is_empty() {
        return None;
    }
    let cut = (worths.len() / 8).max(1);
    let (_, threshold, _) = worths.select_nth_unstable(cut - 1);
    Some(*threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_larger_budget_holds_more_and_series_take_their_share() {
        let small = Shares::of(64 << 20, 10_000, false);
        let large = Shares::of(256 << 20, 10_000, false);
        assert!(large.ends > 3 * small.ends);
        assert_eq!(large.flows, 2 * large.ends);
        assert_eq!(large.series_bytes, 0);
        let drawn = Shares::of(256 << 20, 10_000, true);
        assert!(drawn.series_bytes > 0 && drawn.ends < large.ends);
        let tables = drawn.ends as u64 * bytes_per_end();
        assert!(tables + drawn.series_bytes + fixed_bytes(10_000) <= 256 << 20);
    }

    #[test]
    fn the_command_tables_take_an_eighth_from_the_ends_and_the_total_stays_within() {
        let limit = 256u64 << 20;
        for series in [false, true] {
            let s = Shares::of(limit, 10_000, series);
            let rest = limit - fixed_bytes(10_000);
            assert_eq!(s.commands_bytes, rest / 8);
            let ends = s.ends as u64 * bytes_per_end();
            // Everything shared out stays within the limit; the ends lose no more than an
            // end's worth of rounding beyond the eighth given to the commands.
            assert!(ends + s.series_bytes + s.commands_bytes + fixed_bytes(10_000) <= limit);
            let without = rest - s.series_bytes - s.commands_bytes;
            assert!(without - ends < bytes_per_end(), "{series}");
        }
        let tiny = Shares::of(1 << 16, 10_000, true);
        assert!(tiny.commands_bytes > 0 && tiny.commands_bytes <= 1 << 13);
    }

    #[test]
    fn a_tiny_budget_still_keeps_a_few_ends_and_anomalies_take_a_quarter_at_most() {
        let tiny = Shares::of(1 << 16, 10_000, true);
        assert_eq!(tiny.ends, MIN_ENDS);
        assert!(fixed_bytes(tiny.anomalies) <= 1 << 14);
        assert!(tiny.series_bytes > 0);
        assert_eq!(Shares::of(256 << 20, 10_000, true).anomalies, 10_000);
    }

    #[test]
    fn usefulness_puts_events_before_packets_before_recency() {
        let order = Order::Usefulness;
        let quiet_busy = order.worth(0, 1000, 9);
        let eventful = order.worth(1, 1, 1);
        let quiet_old = order.worth(0, 1000, 2);
        assert!(quiet_old < quiet_busy && quiet_busy < eventful);
        let recency = Order::Recency;
        assert!(recency.worth(5, 5, 1) < recency.worth(0, 0, 2));
    }

    #[test]
    fn the_threshold_cuts_an_eighth() {
        let worths: Vec<Worth> = (0..80).map(|i| Order::Recency.worth(0, 0, i)).collect();
        let t = eighth_threshold(worths.clone()).unwrap();
        assert_eq!(worths.iter().filter(|w| **w <= t).count(), 10);
        assert_eq!(eighth_threshold(Vec::new()), None);
    }
}
