//! Clock offsets between capture points, estimated from packets that two points both saw.
//!
//! For a packet seen at points P and Q, `ts_Q − ts_P` is Q's clock offset plus the path
//! delay from P to Q, which is negative when Q is upstream. Packets travel both ways (requests
//! one way, acknowledgements the other), so with samples in both directions the delays cancel:
//! offset = (median forward + median reverse) / 2, as NTP does with a request and its reply.
//! With packets in one direction only, the delay cannot be told from the offset and the
//! median difference stands for the offset (`one_way`).
//!
//! Whether files are points at all is decided from data packets alone (requests and READ
//! responses, matched by flow, PSN, opcode and payload length; see [`super::plan`]): a
//! CNP's PSN is always 0, and a bare ACK repeats when a request is repeated, so either could
//! match packets that are not the same transmission. Once files are known to be points,
//! their ACKs are used too: they are often the only packets that travel the other way, and
//! without them the path delay cannot be told from the offset. CNPs never are.

use std::collections::{HashMap, VecDeque};

use super::Identity;
use crate::analyze::key::FlowKey;
use crate::wire::opcode::Role;

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
    /// Given with `--offset FILE=DURATION`.
    Manual,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Reference => "reference",
            Method::TwoWay => "two_way",
            Method::OneWay => "one_way",
            Method::Unknown => "unknown",
            Method::Manual => "manual",
        }
    }
}

/// What was learnt about two points, `lo < hi` by input index.
#[derive(Debug, Clone, Default)]
pub struct PairSamples {
    /// `ts_hi − ts_lo` for packets whose source address sorts before their destination.
    pub(super) forward: Vec<i64>,
    pub(super) reverse: Vec<i64>,
    /// Every match, beyond the samples kept.
    pub(super) matches: u64,
    /// The first connection matched, and whether another one was.
    first_flow: Option<FlowKey>,
    pub(super) several_flows: bool,
}

impl PairSamples {
    fn push(&mut self, key: &FlowKey, d: i64, data: bool) {
        if data {
            self.matches += 1;
            match self.first_flow {
                None => self.first_flow = Some(*key),
                Some(first) => self.several_flows |= first != *key,
            }
        }
        let side = if key.src < key.dst {
            &mut self.forward
        } else {
            &mut self.reverse
        };
        if side.len() < MAX_SAMPLES {
            side.push(d);
        }
    }

    /// Adds `other`'s samples, taken with the two points the other way round when `flip`.
    pub(super) fn absorb(&mut self, other: &PairSamples, flip: bool) {
        let sign = if flip { -1 } else { 1 };
        for (mine, theirs) in [
            (&mut self.forward, &other.forward),
            (&mut self.reverse, &other.reverse),
        ] {
            let room = MAX_SAMPLES.saturating_sub(mine.len());
            mine.extend(theirs.iter().take(room).map(|d| d * sign));
        }
        self.matches += other.matches;
        self.several_flows |= other.several_flows;
    }

    /// The median of every difference, both ways.
    pub(super) fn median_ns(&self) -> Option<i64> {
        let mut all: Vec<i64> = self.forward.iter().chain(&self.reverse).copied().collect();
        median(&mut all)
    }

    /// How far the differences stray from their median: the median absolute deviation,
    /// the wider of the two directions (each direction has its own path delay).
    pub(super) fn spread_ns(&self) -> u64 {
        [&self.forward, &self.reverse]
            .into_iter()
            .filter_map(|side| {
                let mut side = side.clone();
                let m = median(&mut side)?;
                let mut deviations: Vec<i64> = side.iter().map(|d| (d - m).abs()).collect();
                median(&mut deviations)
            })
            .max()
            .map_or(0, |d| d.unsigned_abs())
    }
}

/// Other files a packet was matched at, beyond the first: enough to tell points apart
/// without a bit per file, however many files there are.
const MATCHED_FILES: usize = 3;

#[derive(Debug, Clone, Copy)]
struct Seen {
    file: u16,
    ts: u64,
    /// Seen twice at one point: a retransmission, which cannot be matched reliably.
    ambiguous: bool,
    /// The other files that saw it, and when: each pair of sightings is a sample.
    matched: [(u16, u64); MATCHED_FILES],
    matched_len: u8,
}

/// The estimate for one point, relative to the reference (the first input).
#[derive(Debug, Clone, Copy)]
pub struct Offset {
    /// This point's clock minus the reference's; subtract it to get reference time.
    pub offset_ns: i64,
    pub method: Method,
    /// Packets matched with the point the estimate came from.
    pub samples: u64,
    /// The median absolute deviation of the matched packets' differences.
    pub spread_ns: Option<u64>,
    /// The one-way delay from the lower-numbered point to this one for packets whose source
    /// sorts first, when both directions were seen: positive means that point is upstream.
    pub forward_delay_ns: Option<i64>,
}

pub struct SkewEstimator {
    pub(super) files: usize,
    pub(super) bound_ns: u64,
    seen: Map<Identity, Seen>,
    order: VecDeque<(u64, Identity)>,
    pub(super) pairs: Map<(u16, u16), PairSamples>,
    /// Each file's first and last data packet: pieces of one capture come one after the
    /// other.
    pub(super) first_ts: Vec<Option<u64>>,
    pub(super) last_ts: Vec<Option<u64>>,
    first_flow: Option<FlowKey>,
    /// The inputs carry more than one connection between them.
    pub(super) several_flows: bool,
}

impl SkewEstimator {
    pub fn new(files: usize, bound_ns: u64) -> Self {
        SkewEstimator {
            files,
            bound_ns,
            seen: Map::default(),
            order: VecDeque::new(),
            pairs: Map::default(),
            first_ts: vec![None; files],
            last_ts: vec![None; files],
            first_flow: None,
            several_flows: false,
        }
    }

    /// True when every pair that has matched packets has enough of them both ways.
    pub fn satisfied(&self) -> bool {
        self.files <= 1
            || (self.pairs.len() + 1 >= self.files
                && self
                    .pairs
                    .values()
                    .all(|p| p.forward.len() >= MAX_SAMPLES && p.reverse.len() >= MAX_SAMPLES))
    }

    /// Whether a packet is matched across points to tell them apart: a data packet, which
    /// no other transmission repeats with the same PSN, opcode and length.
    pub fn is_data(key: &FlowKey, opcode: u8) -> bool {
        key.role == Role::Request
            || (key.role == Role::Response && crate::wire::opcode::is_read_response(opcode))
    }

    /// One request or response (never a CNP), in raw timestamp order across the inputs;
    /// `data` as [`Self::is_data`] says.
    pub fn observe(&mut self, file: u16, ts: u64, key: &FlowKey, id: Identity, data: bool) {
        if !matches!(key.role, Role::Request | Role::Response) {
            return;
        }
        if data {
            if let Some(first) = self.first_ts.get_mut(usize::from(file)) {
                first.get_or_insert(ts);
            }
            if let Some(last) = self.last_ts.get_mut(usize::from(file)) {
                *last = Some(last.map_or(ts, |l| l.max(ts)));
            }
            match self.first_flow {
                None => self.first_flow = Some(*key),
                Some(first) => self.several_flows |= first != *key,
            }
        }
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
                        matched: [(0, 0); MATCHED_FILES],
                        matched_len: 0,
                    },
                );
                self.order.push_back((ts, id));
            }
            Some(first) => {
                let matched = &first.matched[..usize::from(first.matched_len)];
                if first.file == file || matched.iter().any(|&(f, _)| f == file) {
                    first.ambiguous = true;
                    return;
                }
                if first.ambiguous || usize::from(first.matched_len) == MATCHED_FILES {
                    return;
                }
                let earlier =
                    std::iter::once((first.file, first.ts)).chain(matched.iter().copied());
                for (other, then) in earlier {
                    let (lo, hi, d) = if other < file {
                        (other, file, ts as i64 - then as i64)
                    } else {
                        (file, other, then as i64 - ts as i64)
                    };
                    self.pairs.entry((lo, hi)).or_default().push(key, d, data);
                }
                first.matched[usize::from(first.matched_len)] = (file, ts);
                first.matched_len += 1;
            }
        }
    }
}

pub(super) fn median(samples: &mut [i64]) -> Option<i64> {
    if samples.is_empty() {
        return None;
    }
    let mid = samples.len() / 2;
    let (_, m, _) = samples.select_nth_unstable(mid);
    Some(*m)
}

pub(super) fn estimate(samples: &mut PairSamples) -> Option<Offset> {
    let count = (samples.forward.len() + samples.reverse.len()) as u64;
    match (median(&mut samples.forward), median(&mut samples.reverse)) {
        (Some(f), Some(r)) => Some(Offset {
            offset_ns: (f + r).div_euclid(2),
            method: Method::TwoWay,
            samples: count,
            spread_ns: Some(samples.spread_ns()),
            forward_delay_ns: Some((f - r).div_euclid(2)),
        }),
        (Some(m), None) | (None, Some(m)) => Some(Offset {
            offset_ns: m,
            method: Method::OneWay,
            samples: count,
            spread_ns: Some(samples.spread_ns()),
            forward_delay_ns: None,
        }),
        (None, None) => None,
    }
}
