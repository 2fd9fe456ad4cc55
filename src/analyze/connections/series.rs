//! What a direction records over time, only when asked: the `--interval` timeline for the
//! JSON, and for `--html` the time-sequence points and the chart's own timeline (goodput
//! and RTT per interval). One box behind one pointer, so a connection costs no more when
//! none of it is asked for.

use super::sequence::TimeSequence;
use super::timeline::Timeline;

/// Buckets of the report's throughput and latency charts: about a pixel apart on a chart.
pub const CHART_BUCKETS: u32 = 512;
/// The charts' first interval; it doubles as the connection outlasts the buckets.
pub const CHART_INTERVAL_NS: u64 = 1_000;

#[derive(Debug, Clone, Default)]
pub struct Series {
    /// `--interval`.
    pub timeline: Option<Timeline>,
    /// `--html`: the time-sequence graph.
    pub sequence: Option<TimeSequence>,
    /// `--html`: goodput and RTT per interval.
    pub rates: Option<Timeline>,
}

impl Series {
    /// What `timeline` (the `--interval` width and most buckets) and `graphs` ask for,
    /// starting at `ts`.
    pub fn new(ts: u64, timeline: Option<(u64, u32)>, graphs: bool) -> Self {
        Series {
            timeline: timeline.map(|(interval, max)| Timeline::new(ts, interval, max)),
            sequence: graphs.then(TimeSequence::default),
            rates: graphs.then(|| Timeline::new(ts, CHART_INTERVAL_NS, CHART_BUCKETS)),
        }
    }

    /// An RTT sample, for the latency chart only.
    pub fn rtt(&mut self, ts: u64, ns: u64) {
        if let Some(t) = &mut self.rates {
            t.add(ts, super::timeline::Event::Rtt(ns));
        }
    }

    /// Adds `event` to both timelines.
    pub fn add(&mut self, ts: u64, event: super::timeline::Event) {
        if let Some(t) = &mut self.timeline {
            t.add(ts, event);
        }
        if let Some(t) = &mut self.rates {
            t.add(ts, event);
        }
    }
}
