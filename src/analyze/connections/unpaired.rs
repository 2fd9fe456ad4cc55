//! The unpaired ends that received requests, indexed by host pair and by the PSNs their
//! requests span, so that a response looks only at the ends whose requests it could answer.
//! A list per host pair, scanned for every response, made a capture of 10,000 request QPs
//! and 400,000 responses that answer none of them quadratic (13 s against 0.07 s for one QP).
//!
//! The PSN circle (2^24) is cut into dyadic blocks, 2^level PSNs aligned on their size, at
//! every level from single PSNs to the whole circle. An end is listed in disjoint blocks
//! that cover every PSN its requests span, so a response with PSN p finds every candidate
//! in the 25 blocks that hold p, and each candidate once. A span that grows at its top (as
//! requests go on) adds blocks for the new PSNs only; an end listed in too many blocks, or
//! whose span moved otherwise, is listed again from scratch under a new generation, and
//! the nodes of the old one are skipped and unlinked when met.

use std::collections::HashMap;

use crate::analyze::psn::PSN_MASK;
use crate::dissect::Address;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// PSNs on the circle.
const CIRCLE: u32 = 1 << 24;
/// Levels of blocks: 2^0 ..= 2^24 PSNs.
const LEVELS: u32 = 25;
/// An end listed in more blocks than this is listed again, in the fewest blocks.
const MAX_BLOCKS: u32 = 64;
/// How many PSNs below its requests' span an end may stay listed before it is listed
/// again: a span longer than half the circle moves up as it grows (see [`span`]).
const SLACK: u32 = 1 << 22;
/// No next node.
const NONE: u32 = u32::MAX;

/// The PSNs a response may carry to be an answer to requests from `first` to `highest`:
/// those at or after `first` and at or before `highest`, each within half the circle
/// (`psn::diff >= 0` both ways). As `(start, length)`; `None` when none can.
pub(super) fn span(first: u32, highest: u32) -> Option<(u32, u32)> {
    const HALF: u32 = CIRCLE / 2;
    let length = highest.wrapping_sub(first) & PSN_MASK;
    let lo = length.saturating_sub(HALF - 1);
    let hi = length.min(HALF - 1);
    (lo <= hi).then(|| ((first + lo) & PSN_MASK, hi - lo + 1))
}

#[derive(Debug, Clone, Copy)]
struct Pair {
    /// Names the host pair in block keys.
    id: u32,
    /// Ends listed for this host pair.
    ends: u32,
    /// The xor of their slots: the only one's slot when one is left.
    slots: u32,
}

#[derive(Debug, Clone, Copy)]
struct Listed {
    pair: (Address, Address),
    pair_id: u32,
    /// When the end was listed: of two candidates as good, the one listed first wins.
    order: u64,
    generation: u32,
    /// The PSNs its blocks cover, from `start`; at least its requests' span.
    start: u32,
    length: u32,
    blocks: u32,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    slot: u32,
    generation: u32,
    next: u32,
}

/// The unpaired ends that received requests: where a response's requester looks for its
/// peer.
#[derive(Debug, Default)]
pub(super) struct Unpaired {
    pairs: Map<(Address, Address), Pair>,
    listed: Map<u32, Listed>,
    /// First node of each block's list, by [`block_key`].
    heads: Map<u64, u32>,
    nodes: Vec<Node>,
    /// Nodes of the current generation of a listed end.
    live_nodes: usize,
    next_pair_id: u32,
    next_order: u64,
    /// Map probes and nodes looked at, to check that the cost of a lookup does not grow
    /// with the ends listed.
    #[cfg(test)]
    pub probes: u64,
}

fn block_key(pair_id: u32, level: u32, block: u32) -> u64 {
    u64::from(pair_id) << 32 | u64::from(level) << 24 | u64::from(block)
}

/// The fewest aligned blocks that cover `start .. start + length` on the circle, as
/// `(level, block)`, where `length <= CIRCLE`.
fn blocks(start: u32, length: u32, mut each: impl FnMut(u32, u32)) {
    let wrapped = (start + length).saturating_sub(CIRCLE);
    let mut lo = start;
    let mut end = start + length - wrapped;
    for _ in 0..2 {
        while lo < end {
            let mut level = lo.trailing_zeros().min(LEVELS - 1);
            while lo + (1 << level) > end {
                level -= 1;
            }
            each(level, lo >> level);
            lo += 1 << level;
        }
        (lo, end) = (0, wrapped);
    }
}

impl Unpaired {
    /// Lists end `slot`, which receives requests on host pair `pair` (its address, the
    /// peer's) spanning `span`, after every end listed before it.
    pub fn list(&mut self, slot: u32, pair: (Address, Address), span: Option<(u32, u32)>) {
        let next_id = &mut self.next_pair_id;
        let entry = self.pairs.entry(pair).or_insert_with(|| {
            *next_id = next_id.wrapping_add(1);
            Pair {
                id: *next_id,
                ends: 0,
                slots: 0,
            }
        });
        entry.ends += 1;
        entry.slots ^= slot;
        let (start, length) = span.unwrap_or((0, 0));
        let mut listed = Listed {
            pair,
            pair_id: entry.id,
            order: self.next_order,
            generation: 0,
            start,
            length,
            blocks: 0,
        };
        self.next_order += 1;
        self.add_blocks(slot, &mut listed, start, length);
        self.listed.insert(slot, listed);
    }

    /// End `slot`'s requests now span `span`: it is found by the responses to them.
    pub fn update(&mut self, slot: u32, span: Option<(u32, u32)>) {
        let Some(mut listed) = self.listed.get(&slot).copied() else {
            return;
        };
        let Some((start, length)) = span else {
            return;
        };
        let below = start.wrapping_sub(listed.start) & PSN_MASK;
        let top = below + length;
        if listed.length > 0 && below <= listed.length && top <= listed.length {
            return;
        }
        if listed.length > 0
            && below <= listed.length
            && below <= SLACK
            && top <= CIRCLE
            && listed.blocks < MAX_BLOCKS
        {
            let from = (listed.start + listed.length) & PSN_MASK;
            let grown = top - listed.length;
            self.add_blocks(slot, &mut listed, from, grown);
            listed.length = top;
        } else {
            self.live_nodes -= listed.blocks as usize;
            listed.generation = listed.generation.wrapping_add(1);
            listed.blocks = 0;
            (listed.start, listed.length) = (start, length);
            self.add_blocks(slot, &mut listed, start, length);
        }
        self.listed.insert(slot, listed);
        self.compact_if_wasteful();
    }

    /// End `slot` is paired: no response looks for it any more.
    pub fn forget(&mut self, slot: u32) {
        let Some(listed) = self.listed.remove(&slot) else {
            return;
        };
        self.live_nodes -= listed.blocks as usize;
        if let Some(pair) = self.pairs.get_mut(&listed.pair) {
            pair.ends -= 1;
            pair.slots ^= slot;
            if pair.ends == 0 {
                self.pairs.remove(&listed.pair);
            }
        }
        self.compact_if_wasteful();
    }

    /// The one end listed for host pair `pair`, when it is the only one.
    pub fn only(&self, pair: &(Address, Address)) -> Option<u32> {
        self.pairs
            .get(pair)
            .filter(|p| p.ends == 1)
            .map(|p| p.slots)
    }

    /// The end listed for host pair `pair` whose requests a response with PSN `psn` answers
    /// most closely, and how many could be its peer (up to 255). `ahead_of(slot)` says how
    /// far end `slot`'s highest request is past `psn`, or `None` when that end is no
    /// candidate; of two ends as close, the one listed first wins.
    pub fn closest(
        &mut self,
        pair: &(Address, Address),
        psn: u32,
        mut ahead_of: impl FnMut(u32) -> Option<i32>,
    ) -> Option<(u32, u8)> {
        let pair_id = self.pairs.get(pair)?.id;
        let mut best: Option<(i32, u64, u32)> = None;
        let mut candidates = 0u8;
        for level in 0..LEVELS {
            let key = block_key(pair_id, level, psn >> level);
            #[cfg(test)]
            {
                self.probes += 1;
            }
            let Some(&head) = self.heads.get(&key) else {
                continue;
            };
            let mut previous = NONE;
            let mut at = head;
            while at != NONE {
                #[cfg(test)]
                {
                    self.probes += 1;
                }
                let node = self.nodes[at as usize];
                let current = self
                    .listed
                    .get(&node.slot)
                    .filter(|l| l.generation == node.generation);
                let Some(listed) = current else {
                    // Left by a pairing or an earlier listing: unlinked for good.
                    if previous == NONE {
                        match node.next {
                            NONE => self.heads.remove(&key),
                            next => self.heads.insert(key, next),
                        };
                    } else {
                        self.nodes[previous as usize].next = node.next;
                    }
                    at = node.next;
                    continue;
                };
                if let Some(ahead) = ahead_of(node.slot) {
                    candidates = candidates.saturating_add(1);
                    let rank = (ahead, listed.order, node.slot);
                    if best.is_none_or(|b| (rank.0, rank.1) < (b.0, b.1)) {
                        best = Some(rank);
                    }
                }
                previous = at;
                at = node.next;
            }
        }
        best.map(|(_, _, slot)| (slot, candidates))
    }

    /// Slots moved (ends were evicted): `renumber(old)` is an end's new slot, `None` when
    /// it is gone.
    pub fn renumber(&mut self, renumber: impl Fn(u32) -> Option<u32>) {
        let old = std::mem::take(&mut self.listed);
        for pair in self.pairs.values_mut() {
            pair.ends = 0;
            pair.slots = 0;
        }
        for (slot, listed) in old {
            if let Some(slot) = renumber(slot) {
                if let Some(pair) = self.pairs.get_mut(&listed.pair) {
                    pair.ends += 1;
                    pair.slots ^= slot;
                }
                self.listed.insert(slot, listed);
            }
        }
        self.pairs.retain(|_, pair| pair.ends > 0);
        self.rebuild();
    }

    fn add_blocks(&mut self, slot: u32, listed: &mut Listed, start: u32, length: u32) {
        let nodes = &mut self.nodes;
        let heads = &mut self.heads;
        let mut added = 0;
        blocks(start, length, |level, block| {
            let key = block_key(listed.pair_id, level, block);
            let at = nodes.len() as u32;
            let next = heads.insert(key, at).unwrap_or(NONE);
            nodes.push(Node {
                slot,
                generation: listed.generation,
                next,
            });
            added += 1;
        });
        listed.blocks += added;
        self.live_nodes += added as usize;
    }

    /// Drops the nodes no listed end uses once they outnumber the others.
    fn compact_if_wasteful(&mut self) {
        if self.nodes.len() > 2 * self.live_nodes + 4096 {
            self.rebuild();
        }
    }

    fn rebuild(&mut self) {
        self.nodes.clear();
        self.heads.clear();
        self.live_nodes = 0;
        let mut listed = std::mem::take(&mut self.listed);
        for (&slot, end) in &mut listed {
            end.blocks = 0;
            self.add_blocks(slot, end, end.start, end.length);
        }
        self.listed = listed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::psn;

    fn covered(start: u32, length: u32) -> Vec<u32> {
        let mut psns = Vec::new();
        blocks(start, length, |level, block| {
            psns.extend((block << level)..((block + 1) << level));
        });
        psns.sort_unstable();
        psns
    }

    #[test]
    fn blocks_cover_exactly_the_span_once_even_across_the_wrap() {
        for (start, length) in [(0, 1), (5, 27), (CIRCLE - 3, 10), (1000, 4096), (7, 0)] {
            let mut expected: Vec<u32> = (0..length).map(|i| (start + i) & PSN_MASK).collect();
            expected.sort_unstable();
            assert_eq!(covered(start, length), expected, "{start} + {length}");
        }
        let mut count = 0;
        blocks(0, CIRCLE, |_, _| count += 1);
        assert_eq!(count, 1, "the whole circle is one block");
    }

    #[test]
    fn span_is_what_psn_diff_accepts() {
        for (first, highest) in [
            (10, 20),
            (CIRCLE - 5, 3),
            (0, (1 << 23) + 100),
            (0, CIRCLE - 1),
            (77, 77),
        ] {
            let accepts = |p: u32| psn::diff(highest, p) >= 0 && psn::diff(p, first) >= 0;
            let (start, length) = span(first, highest).unwrap_or((0, 0));
            for probe in [
                0u32,
                3,
                5,
                10,
                15,
                20,
                21,
                77,
                100,
                1 << 23,
                (1 << 23) + 100,
            ] {
                let within = (probe.wrapping_sub(start) & PSN_MASK) < length;
                assert_eq!(within, accepts(probe), "{first}..{highest} at {probe}");
            }
            for step in 0..=(CIRCLE / 4096) {
                let probe = (first + step * 4096 + 11) & PSN_MASK;
                let within = (probe.wrapping_sub(start) & PSN_MASK) < length;
                assert_eq!(within, accepts(probe), "{first}..{highest} at {probe}");
            }
        }
    }

    fn pair() -> (Address, Address) {
        (Address::Lid(1), Address::Lid(2))
    }

    /// Each end's span, as the connection table would say it.
    struct Spans(Vec<(u32, u32)>);

    impl Spans {
        fn ahead(&self, slot: u32, p: u32) -> Option<i32> {
            let (first, highest) = self.0[slot as usize];
            let ahead = psn::diff(highest, p);
            (ahead >= 0 && psn::diff(p, first) >= 0).then_some(ahead)
        }
    }

    #[test]
    fn finds_the_closest_and_counts_every_candidate_once() {
        let mut index = Unpaired::default();
        let spans = Spans(vec![
            (0, 40),
            (10, 30),
            (10, 30),
            (500, 600),
            (CIRCLE - 10, 5),
        ]);
        for (slot, &(first, highest)) in spans.0.iter().enumerate() {
            index.list(slot as u32, pair(), span(first, highest));
        }
        let closest = |index: &mut Unpaired, p| index.closest(&pair(), p, |s| spans.ahead(s, p));
        // 20 is in 0..=40 and twice in 10..=30: the two closest tie, the first listed wins.
        assert_eq!(closest(&mut index, 20), Some((1, 3)));
        assert_eq!(closest(&mut index, 2), Some((4, 2)));
        assert_eq!(closest(&mut index, 550), Some((3, 1)));
        assert_eq!(closest(&mut index, 5000), None);
        index.forget(1);
        assert_eq!(closest(&mut index, 20), Some((2, 2)));
        assert_eq!(index.only(&pair()), None);
        for slot in [0, 2, 3] {
            index.forget(slot);
        }
        assert_eq!(index.only(&pair()), Some(4));
        index.forget(4);
        assert!(index.pairs.is_empty() && index.listed.is_empty());
    }

    #[test]
    fn a_growing_span_is_found_wherever_it_reaches() {
        let mut index = Unpaired::default();
        let mut spans = Spans(vec![(100, 100)]);
        index.list(0, pair(), span(100, 100));
        // Requests one at a time, then a jump, then past half the circle, where the span
        // moves up as it grows.
        let mut highest = 100;
        for step in (0..300).chain([1 << 20]).chain((0..40).map(|_| 1 << 19)) {
            highest = (highest + step.max(1)) & PSN_MASK;
            spans.0[0].1 = highest;
            index.update(0, span(100, highest));
            for p in [
                100,
                highest,
                (highest + 1) & PSN_MASK,
                99,
                (highest + CIRCLE - 7) & PSN_MASK,
            ] {
                let expected = spans.ahead(0, p).map(|_| (0, 1));
                assert_eq!(index.closest(&pair(), p, |s| spans.ahead(s, p)), expected);
            }
        }
        assert!(index.nodes.len() <= 2 * index.live_nodes + 4096);
    }

    #[test]
    fn renumbering_keeps_what_is_listed() {
        let mut index = Unpaired::default();
        let spans = Spans(vec![(0, 0), (0, 10), (0, 10), (5, 5)]);
        for slot in 1..4 {
            let (first, highest) = spans.0[slot as usize];
            index.list(slot, pair(), span(first, highest));
        }
        // Slot 1 is gone; 2 and 3 become 0 and 1.
        index.renumber(|old| old.checked_sub(2));
        let moved = Spans(vec![(0, 10), (5, 5)]);
        assert_eq!(
            index.closest(&pair(), 5, |s| moved.ahead(s, 5)),
            Some((1, 2))
        );
        index.forget(1);
        assert_eq!(index.only(&pair()), Some(0));
    }

    /// Random requests, pairings and responses, against the scan in listing order that the
    /// index replaces.
    #[test]
    fn agrees_with_scanning_every_end_in_the_order_listed() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut random = |below: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(below)) as u32
        };
        let mut index = Unpaired::default();
        let mut spans = Spans(Vec::new());
        // Slots in the order listed, as the scan held them.
        let mut listed: Vec<u32> = Vec::new();
        for _ in 0..20_000 {
            match random(10) {
                0..=2 => {
                    let first = if random(2) == 0 {
                        random(64)
                    } else {
                        random(CIRCLE)
                    };
                    let slot = spans.0.len() as u32;
                    spans.0.push((first, first));
                    index.list(slot, pair(), span(first, first));
                    listed.push(slot);
                }
                3..=5 if !listed.is_empty() => {
                    let slot = listed[random(listed.len() as u32) as usize];
                    let (first, highest) = spans.0[slot as usize];
                    let step = [1, 1, 3, 100, 1 << 20][random(5) as usize];
                    let highest = (highest + step) & PSN_MASK;
                    spans.0[slot as usize] = (first, highest);
                    index.update(slot, span(first, highest));
                }
                6 if !listed.is_empty() => {
                    let slot = listed.remove(random(listed.len() as u32) as usize);
                    index.forget(slot);
                }
                _ => {
                    let p = if random(2) == 0 {
                        random(200)
                    } else {
                        random(CIRCLE)
                    };
                    let mut best: Option<(u32, i32)> = None;
                    let mut candidates = 0u8;
                    for &slot in &listed {
                        if let Some(ahead) = spans.ahead(slot, p) {
                            candidates = candidates.saturating_add(1);
                            if best.is_none_or(|(_, d)| ahead < d) {
                                best = Some((slot, ahead));
                            }
                        }
                    }
                    let scanned = best.map(|(slot, _)| (slot, candidates));
                    assert_eq!(index.closest(&pair(), p, |s| spans.ahead(s, p)), scanned);
                    let only = (listed.len() == 1).then(|| listed[0]);
                    assert_eq!(index.only(&pair()), only);
                }
            }
        }
    }

    /// The cost of a response that answers no request does not grow with the ends listed:
    /// the scan it replaces looked at every one of them.
    #[test]
    fn lookups_cost_the_same_for_ten_times_the_ends() {
        let probes = |ends: u32| {
            let mut index = Unpaired::default();
            for slot in 0..ends {
                // Requests from PSN 0, as a generator that starts every QP there makes them.
                index.list(slot, pair(), span(0, 40));
            }
            index.probes = 0;
            for p in 0..1000 {
                assert_eq!(index.closest(&pair(), 100 + p, |_| None), None);
            }
            index.probes
        };
        assert_eq!(probes(1_000), probes(10_000));
    }
}
