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

impl Series {
    /// Whether this is what the memory budget left of a series: nothing, and nothing to
    /// record.
    pub fn is_dropped(&self) -> bool {
        self.timeline.is_none() && self.sequence.is_none()
    }

    /// Bytes the series holds: itself, its box, and the room its points and buckets
    /// reserved.
    pub fn bytes(&self) -> u64 {
        let points = self.sequence.as_ref().map_or(0, |s| {
            s.points.capacity() * std::mem::size_of::<super::sequence::Point>()
        });
        let buckets = self.timeline.as_ref().map_or(0, |t| {
            t.buckets.capacity() * std::mem::size_of::<super::timeline::Bucket>()
        });
        (std::mem::size_of::<Series>() + points + buckets) as u64
    }
}

/// What the directions' series may reserve together, and what they did. Charged when a
/// series grows, which is when it reserves room, not at every point.
#[derive(Debug, Clone, Copy, Default)]
pub struct SeriesBudget {
    /// `None`: no budget (a table made without one).
    limit: Option<u64>,
    pub used: u64,
    pub peak: u64,
    /// Series dropped to stay within `limit`, and the bytes they held.
    pub dropped: u64,
    pub dropped_bytes: u64,
}

impl SeriesBudget {
    pub fn new(limit: u64) -> Self {
        SeriesBudget {
            limit: Some(limit),
            ..SeriesBudget::default()
        }
    }

    /// A series that held `before` bytes holds `after`.
    #[inline]
    pub fn grew(&mut self, before: u64, after: u64) {
        if after != before {
            self.used = (self.used + after).saturating_sub(before);
            self.peak = self.peak.max(self.used);
        }
    }

    /// The series budget is spent.
    #[inline]
    pub fn over(&self) -> bool {
        self.limit.is_some_and(|limit| self.used > limit)
    }

    /// A series of `bytes` left with its end.
    pub fn release(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
    }

    /// A series of `bytes` dropped to make room.
    pub fn drop_series(&mut self, bytes: u64) {
        self.release(bytes);
        self.dropped += 1;
        self.dropped_bytes += bytes;
    }
}
