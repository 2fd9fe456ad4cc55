//! What a direction records over time, only when asked: the `--interval` timeline for the
//! JSON, and for `--html` the time-sequence points, which also carry what the goodput and
//! RTT charts add up. One box behind one pointer, so a connection costs no more when none
//! of it is asked for.

use super::sequence::TimeSequence;
use super::timeline::{Event, Timeline};

#[derive(Debug, Clone, Default)]
pub struct Series {
    /// `--interval`.
    pub timeline: Option<Timeline>,
    /// `--html`: the time-sequence graph.
    pub sequence: Option<TimeSequence>,
}

impl Series {
    /// What `timeline` (the `--interval` width and most buckets) and `graphs` ask for,
    /// starting at `ts`.
    pub fn new(ts: u64, timeline: Option<(u64, u32)>, graphs: bool) -> Self {
        Series {
            timeline: timeline.map(|(interval, max)| Timeline::new(ts, interval, max)),
            sequence: graphs.then(TimeSequence::default),
        }
    }

    pub fn add(&mut self, ts: u64, event: Event) {
        if let Some(t) = &mut self.timeline {
            t.add(ts, event);
        }
    }
}
