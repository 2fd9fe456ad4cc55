//! The pauses a silence ending now may have overlapped: per priority, the pause intervals
//! in progress and the latest finished ones. A connection's silence is measured against
//! them when it ends, so the analysis never has to keep every pause of the capture.
//!
//! Bounded: [`RECENT`] finished intervals and [`OPEN`] running ones a priority. A silence
//! longer than the time those cover sees only the pauses they hold, and its paused time is
//! then a lower bound.

use std::collections::VecDeque;

use crate::wire::ethernet::Mac;

/// Finished pause intervals kept per priority.
const RECENT: usize = 256;
/// Pauses in progress followed per priority; a sender beyond them is not looked at.
const OPEN: usize = 64;
/// Intervals one silence is measured against at most.
const MEASURED: usize = 32;
/// Slots: priorities 0-7 and 802.3x PAUSE, which stops them all.
const SLOTS: usize = 9;
const ALL: usize = 8;

#[derive(Debug, Clone, Copy)]
struct Interval {
    src: Mac,
    start_ns: u64,
    end_ns: u64,
    /// When the tracker saw the pause end: later than `end_ns` for a pause that expired.
    seen_ns: u64,
}

#[derive(Debug, Clone, Copy)]
struct Open {
    src: Mac,
    start_ns: u64,
    until_ns: u64,
}

#[derive(Debug, Clone, Default)]
struct Slot {
    finished: VecDeque<Interval>,
    open: Vec<Open>,
}

/// How much of an interval a priority was paused, and the sender that paused it longest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overlap {
    pub paused_ns: u64,
    pub by: Option<Mac>,
}

#[derive(Debug, Clone, Default)]
pub struct RecentPauses {
    slots: [Slot; SLOTS],
}

impl RecentPauses {
    /// `src` paused `slot` (a priority, or 8 for 802.3x) from `start_ns` until `until_ns`,
    /// as its latest frame says.
    pub fn running(&mut self, src: Mac, slot: u8, start_ns: u64, until_ns: u64) {
        let Some(slot) = self.slots.get_mut(usize::from(slot)) else {
            return;
        };
        let open = Open {
            src,
            start_ns,
            until_ns,
        };
        match slot.open.iter().position(|o| o.src == src) {
            Some(i) => slot.open[i] = open,
            None if slot.open.len() < OPEN => slot.open.push(open),
            None => {}
        }
    }

    /// `src`'s pause of `slot` ended at `end_ns`; the tracker learnt it at `seen_ns`.
    pub fn finished(&mut self, src: Mac, slot: u8, start_ns: u64, end_ns: u64, seen_ns: u64) {
        let Some(slot) = self.slots.get_mut(usize::from(slot)) else {
            return;
        };
        slot.open.retain(|o| o.src != src);
        if slot.finished.len() == RECENT {
            slot.finished.pop_front();
        }
        slot.finished.push_back(Interval {
            src,
            start_ns,
            end_ns,
            seen_ns,
        });
    }

    /// How long `priority` (or every priority, by 802.3x) was paused within `from..to`.
    pub fn overlap(&self, priority: u8, from: u64, to: u64) -> Overlap {
        let quiet =
            |slot: Option<&Slot>| slot.is_none_or(|s| s.open.is_empty() && s.finished.is_empty());
        // Most captures pause nothing: no silence should pay for looking.
        if quiet(self.slots.get(usize::from(priority))) && quiet(self.slots.get(ALL)) {
            return Overlap::default();
        }
        let mut found = [(Mac::default(), 0u64, 0u64); MEASURED];
        let mut n = 0;
        for slot in [usize::from(priority), ALL] {
            let Some(slot) = self.slots.get(slot) else {
                continue;
            };
            let open = slot.open.iter().map(|o| (o.src, o.start_ns, o.until_ns));
            // Finished in the order they were seen to end: once one was seen to end before
            // `from`, every earlier one ended before it too.
            let finished = slot
                .finished
                .iter()
                .rev()
                .take_while(|i| i.seen_ns > from)
                .map(|i| (i.src, i.start_ns, i.end_ns));
            for (src, start, end) in open.chain(finished) {
                let (start, end) = (start.max(from), end.min(to));
                if start < end && n < MEASURED {
                    found[n] = (src, start, end);
                    n += 1;
                }
            }
        }
        measure(&mut found[..n])
    }
}

/// The union of the intervals, and whose share of it was longest.
fn measure(found: &mut [(Mac, u64, u64)]) -> Overlap {
    let by = found
        .iter()
        .max_by_key(|&&(src, start, end)| (end - start, std::cmp::Reverse(src)))
        .map(|&(src, _, _)| src);
    found.sort_unstable_by_key(|&(_, start, _)| start);
    let mut paused_ns = 0;
    let mut covered_to = 0u64;
    for &(_, start, end) in found.iter() {
        let start = start.max(covered_to);
        if end > start {
            paused_ns += end - start;
            covered_to = end;
        }
    }
    Overlap { paused_ns, by }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S1: Mac = Mac([0, 0x1c, 0x73, 0xaa, 0xbb, 1]);
    const S2: Mac = Mac([0, 0x1c, 0x73, 0xaa, 0xbb, 2]);

    #[test]
    fn a_silence_counts_the_union_of_the_pauses_of_its_priority() {
        let mut recent = RecentPauses::default();
        recent.finished(S1, 3, 100, 300, 300);
        recent.finished(S2, 3, 200, 500, 600);
        recent.finished(S1, 4, 0, 1000, 1000);
        let o = recent.overlap(3, 150, 450);
        assert_eq!(o.paused_ns, 300);
        assert_eq!(o.by, Some(S2));
        assert_eq!(recent.overlap(3, 600, 700).paused_ns, 0);
    }

    #[test]
    fn a_pause_in_progress_counts_to_its_expiry_and_8023x_pauses_every_priority() {
        let mut recent = RecentPauses::default();
        recent.running(S1, 3, 100, 200);
        recent.running(S1, 3, 100, 400);
        assert_eq!(recent.overlap(3, 0, 1000).paused_ns, 300);
        recent.finished(S2, 8, 500, 600, 600);
        let o = recent.overlap(5, 450, 1000);
        assert_eq!((o.paused_ns, o.by), (100, Some(S2)));
    }
}
