//! What `analyze --html` draws of PFC: for each (sender, priority) the intervals it was
//! paused, one lane each, with the storms flagged. Bounded like the rest: at most
//! [`MAX_LANES`] lanes (more are counted) and [`MAX_INTERVALS`] intervals a lane; a full
//! lane merges neighbouring intervals, so it spans the same time with fewer, wider bars.

use crate::wire::ethernet::Mac;

pub const MAX_LANES: usize = 1024;
pub const MAX_INTERVALS: usize = 2048;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paused {
    pub start_ns: u64,
    pub end_ns: u64,
    /// The frame that began the pause.
    pub frame: u64,
    /// Pauses merged into this bar (1 unless the lane was full).
    pub count: u32,
    /// The pause, or one merged into it, lasted the storm threshold.
    pub storm: bool,
}

#[derive(Debug, Clone)]
pub struct Lane {
    pub src: Mac,
    /// 0-7, or [`super::pfc::ALL_PRIORITIES`] for 802.3x PAUSE.
    pub priority: u8,
    pub paused: Vec<Paused>,
}

#[derive(Debug, Clone, Default)]
pub struct PauseLanes {
    pub lanes: Vec<Lane>,
    /// Lanes not kept because [`MAX_LANES`] were.
    pub lanes_dropped: u64,
}

impl PauseLanes {
    pub fn push(&mut self, src: Mac, priority: u8, paused: Paused) {
        let at = self
            .lanes
            .iter()
            .position(|l| l.src == src && l.priority == priority);
        let lane = match at {
            Some(i) => &mut self.lanes[i],
            None if self.lanes.len() < MAX_LANES => {
                self.lanes.push(Lane {
                    src,
                    priority,
                    paused: Vec::new(),
                });
                self.lanes.last_mut().expect("just pushed")
            }
            None => {
                self.lanes_dropped += 1;
                return;
            }
        };
        if lane.paused.len() >= MAX_INTERVALS {
            merge_pairs(&mut lane.paused);
        }
        lane.paused.push(paused);
    }

    /// Lanes by sender then priority, as the report lists them.
    pub fn sorted(&self) -> Vec<&Lane> {
        let mut lanes: Vec<&Lane> = self.lanes.iter().collect();
        lanes.sort_by_key(|l| (l.src, l.priority));
        lanes
    }
}

/// Halves a lane: each pair of neighbours becomes one bar over both.
fn merge_pairs(paused: &mut Vec<Paused>) {
    let merged: Vec<Paused> = paused
        .chunks(2)
        .map(|pair| match pair {
            [a, b] => Paused {
                start_ns: a.start_ns.min(b.start_ns),
                end_ns: a.end_ns.max(b.end_ns),
                frame: a.frame,
                count: a.count.saturating_add(b.count),
                storm: a.storm || b.storm,
            },
            [a] => *a,
            _ => unreachable!("chunks of two"),
        })
        .collect();
    *paused = merged;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(start_ns: u64, storm: bool) -> Paused {
        Paused {
            start_ns,
            end_ns: start_ns + 10,
            frame: start_ns,
            count: 1,
            storm,
        }
    }

    #[test]
    fn one_lane_per_sender_and_priority() {
        let a = Mac([2, 0, 0, 0, 0, 1]);
        let b = Mac([2, 0, 0, 0, 0, 2]);
        let mut lanes = PauseLanes::default();
        lanes.push(b, 3, pause(0, false));
        lanes.push(a, 3, pause(5, false));
        lanes.push(b, 3, pause(20, true));
        lanes.push(b, 4, pause(30, false));
        let sorted = lanes.sorted();
        let keys: Vec<(Mac, u8, usize)> = sorted
            .iter()
            .map(|l| (l.src, l.priority, l.paused.len()))
            .collect();
        assert_eq!(keys, [(a, 3, 1), (b, 3, 2), (b, 4, 1)]);
    }

    #[test]
    fn a_full_lane_merges_and_keeps_its_storms() {
        let src = Mac([2, 0, 0, 0, 0, 1]);
        let mut lanes = PauseLanes::default();
        let total = 3 * MAX_INTERVALS as u64;
        for i in 0..total {
            lanes.push(src, 3, pause(i * 100, i == 77));
        }
        let lane = &lanes.lanes[0];
        assert!(lane.paused.len() <= MAX_INTERVALS);
        assert_eq!(lane.paused[0].start_ns, 0);
        assert_eq!(lane.paused.last().unwrap().end_ns, (total - 1) * 100 + 10);
        let count: u64 = lane.paused.iter().map(|p| u64::from(p.count)).sum();
        assert_eq!(count, total);
        let storms: Vec<&Paused> = lane.paused.iter().filter(|p| p.storm).collect();
        assert_eq!(storms.len(), 1);
        assert!(storms[0].start_ns <= 7700 && storms[0].end_ns >= 7710);
    }

    #[test]
    fn lanes_beyond_the_bound_are_counted() {
        let mut lanes = PauseLanes::default();
        for i in 0..(MAX_LANES + 5) {
            let src = Mac([2, 0, 0, 0, (i >> 8) as u8, i as u8]);
            lanes.push(src, 0, pause(0, false));
        }
        assert_eq!(lanes.lanes.len(), MAX_LANES);
        assert_eq!(lanes.lanes_dropped, 5);
    }
}
