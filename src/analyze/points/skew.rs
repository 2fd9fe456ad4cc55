//! Clock offsets between capture points, estimated from packets that two points both saw.
//!
//! For a packet seen at points P and Q, `ts_Q − ts_P` is Q's clock offset plus the path
//! delay from P to Q, which is negative when Q is upstream. Packets travel both ways (requests
//! one way, acknowledgements the other), so with samples in both directions the delays cancel:
//! offset = (median forward + median reverse) / 2, as NTP does with a request and its reply.
//! With packets in one direction only, the delay cannot be told from the offset and the
//! median difference stands for the offset (`one_way`).

use std::collections::{HashMap, VecDeque};

use super::Identity;
use crate::analyze::key::FlowKey;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Samples kept per point pair and direction: enough for a stable median, bounded memory.
const MAX_SAMPLES: usize = 4096;
/// Identities remembered while matching: the oldest are forgotten first.
const MAX_PENDING: usize = 1 << 18;

/// How an offset was estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The reference point.
    Reference,
    /// From packets in both directions: path delay cancels.
    TwoWay,
    /// From packets in one direction: includes the path delay.
    OneWay,
    /// No packet was seen at this point and a point linked to the reference.
    Unknown,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Reference => "reference",
            Method::TwoWay => "two_way",
            Method::OneWay => "one_way",
            Method::Unknown => "unknown",
        }
    }
}

/// What was learnt about two points, `lo < hi` by input index.
#[derive(Debug, Clone, Default)]
pub struct PairSamples {
    /// `ts_hi − ts_lo` for packets whose source address sorts before their destination.
    forward: Vec<i64>,
    reverse: Vec<i64>,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    file: u16,
    ts: u64,
    /// Seen twice at one point: a retransmission, which cannot be matched reliably.
    ambiguous: bool,
    matched: u16,
}

/// The estimate for one point, relative to the reference (the first input).
#[derive(Debug, Clone, Copy)]
pub struct Offset {
    /// This point's clock minus the reference's; subtract it to get reference time.
    pub offset_ns: i64,
    pub method: Method,
    /// Packets matched with the point the estimate came from.
    pub samples: u64,
    /// The one-way delay from the lower-numbered point to this one for packets whose source
    /// sorts first, when both directions were seen: positive means that point is upstream.
    pub forward_delay_ns: Option<i64>,
}

pub struct SkewEstimator {
    points: usize,
    bound_ns: u64,
    seen: Map<Identity, Seen>,
    order: VecDeque<(u64, Identity)>,
    pairs: Map<(u16, u16), PairSamples>,
}

impl SkewEstimator {
    pub fn new(points: usize, bound_ns: u64) -> Self {
        SkewEstimator {
            points,
            bound_ns,
            seen: Map::default(),
            order: VecDeque::new(),
            pairs: Map::default(),
        }
    }

    /// True when every pair that has matched packets has enough of them both ways.
    pub fn satisfied(&self) -> bool {
        self.points <= 1
            || (self.pairs.len() + 1 >= self.points
                && self
                    .pairs
                    .values()
                    .all(|p| p.forward.len() >= MAX_SAMPLES && p.reverse.len() >= MAX_SAMPLES))
    }

    /// One packet, in raw timestamp order across the inputs.
    pub fn observe(&mut self, file: u16, ts: u64, key: &FlowKey, id: Identity) {
        while let Some(&(old, old_id)) = self.order.front() {
            if ts.saturating_sub(old) <= self.bound_ns && self.order.len() < MAX_PENDING {
                break;
            }
            self.order.pop_front();
            self.seen.remove(&old_id);
        }
        match self.seen.get_mut(&id) {
            None => {
                self.seen.insert(
                    id,
                    Seen {
                        file,
                        ts,
                        ambiguous: false,
                        matched: 1 << file.min(15),
                    },
                );
                self.order.push_back((ts, id));
            }
            Some(first) => {
                let bit = 1u16 << file.min(15);
                if first.file == file || first.matched & bit != 0 {
                    first.ambiguous = true;
                    return;
                }
                first.matched |= bit;
                if first.ambiguous {
                    return;
                }
                let (lo, hi, d) = if first.file < file {
                    (first.file, file, ts as i64 - first.ts as i64)
                } else {
                    (file, first.file, first.ts as i64 - ts as i64)
                };
                let pair = self.pairs.entry((lo, hi)).or_default();
                let side = if key.src < key.dst {
                    &mut pair.forward
                } else {
                    &mut pair.reverse
                };
                if side.len() < MAX_SAMPLES {
                    side.push(d);
                }
            }
        }
    }

    /// Each point's offset from the reference (input 0), following pairs outward from it.
    pub fn offsets(mut self) -> Vec<Offset> {
        let mut out = vec![
            Offset {
                offset_ns: 0,
                method: Method::Unknown,
                samples: 0,
                forward_delay_ns: None,
            };
            self.points
        ];
        if let Some(first) = out.first_mut() {
            first.method = Method::Reference;
        }
        let mut estimates: Vec<((u16, u16), Offset)> = self
            .pairs
            .iter_mut()
            .filter_map(|(&pair, samples)| Some((pair, estimate(samples)?)))
            .collect();
        estimates.sort_by_key(|&((lo, hi), e)| (lo, hi, std::cmp::Reverse(e.samples)));
        // Breadth first from the reference, so each point takes the pair nearest to it.
        let mut known = vec![false; self.points];
        if let Some(k) = known.first_mut() {
            *k = true;
        }
        loop {
            let mut grew = false;
            for &((lo, hi), e) in &estimates {
                let (lo, hi) = (usize::from(lo), usize::from(hi));
                if lo >= self.points || hi >= self.points {
                    continue;
                }
                if known[lo] && !known[hi] {
                    out[hi] = Offset {
                        offset_ns: out[lo].offset_ns + e.offset_ns,
                        ..e
                    };
                    known[hi] = true;
                    grew = true;
                } else if known[hi] && !known[lo] {
                    out[lo] = Offset {
                        offset_ns: out[hi].offset_ns - e.offset_ns,
                        forward_delay_ns: e.forward_delay_ns.map(|d| -d),
                        ..e
                    };
                    known[lo] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        out
    }
}

fn median(samples: &mut [i64]) -> Option<i64> {
    if samples.is_empty() {
        return None;
    }
    let mid = samples.len() / 2;
    let (_, m, _) = samples.select_nth_unstable(mid);
    Some(*m)
}

fn estimate(samples: &mut PairSamples) -> Option<Offset> {
    let count = (samples.forward.len() + samples.reverse.len()) as u64;
    match (median(&mut samples.forward), median(&mut samples.reverse)) {
        (Some(f), Some(r)) => Some(Offset {
            offset_ns: (f + r).div_euclid(2),
            method: Method::TwoWay,
            samples: count,
            forward_delay_ns: Some((f - r).div_euclid(2)),
        }),
        (Some(m), None) | (None, Some(m)) => Some(Offset {
            offset_ns: m,
            method: Method::OneWay,
            samples: count,
            forward_delay_ns: None,
        }),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dissect::Address;
    use crate::wire::opcode::Role;

    fn key(src: u8, dst: u8) -> FlowKey {
        FlowKey {
            src: Address::Lid(u16::from(src)),
            dst: Address::Lid(u16::from(dst)),
            dest_qp: 7,
            role: Role::Request,
        }
    }

    #[test]
    fn two_way_traffic_cancels_the_path_delay() {
        // Point 1's clock is 1 ms ahead; the path from 0 to 1 takes 3 us for packets from
        // host 1 to host 2, and 1 to 0 takes 3 us the other way.
        let mut est = SkewEstimator::new(2, 100_000_000);
        for i in 0..100u64 {
            let t = i * 10_000;
            let fwd = key(1, 2);
            let id = Identity::new(&fwd, i as u32, 4);
            est.observe(0, t, &fwd, id);
            est.observe(1, t + 1_000_000 + 3_000, &fwd, id);
            let rev = key(2, 1);
            let id = Identity::new(&rev, i as u32, 17);
            est.observe(1, t + 1_000_000 + 5_000, &rev, id);
            est.observe(0, t + 8_000, &rev, id);
        }
        let offsets = est.offsets();
        assert_eq!(offsets[1].offset_ns, 1_000_000);
        assert_eq!(offsets[1].method, Method::TwoWay);
        assert_eq!(offsets[1].forward_delay_ns, Some(3_000));
    }

    #[test]
    fn a_retransmitted_psn_is_not_matched() {
        let mut est = SkewEstimator::new(2, 100_000_000);
        let k = key(1, 2);
        let id = Identity::new(&k, 5, 4);
        est.observe(0, 0, &k, id);
        est.observe(0, 500, &k, id);
        est.observe(1, 50, &k, id);
        assert_eq!(est.offsets()[1].method, Method::Unknown);
    }
}
