//! Which files are capture points, and each point's clock offset.
//!
//! Several files are several capture points only when the packets show it: points see the
//! same transmissions, while the pieces of one capture (`tcpdump -C`/`-G` rotation,
//! `editcap -c`) share none. Two files that share at least [`MIN_MATCHES`] data packets,
//! from more than one connection when there is more than one, and whose differences agree
//! within the skew bound, are two points; any other files may be pieces of one. Files are
//! given to points in the order of their first packet, each to the first point none of
//! whose files it matched, so that `a_1 a_2 b_1 b_2` (two hosts, each rotated) come out
//! as the points `a` and `b`. Offsets are then estimated between points from every match
//! of their files, outward from the point of the first input.

use std::collections::HashMap;

use super::skew::{Method, Offset, PairSamples, SkewEstimator, estimate};

/// Matches an offset rests on at the least: one match, or a few, may be a coincidence
/// (a MAD request repeated, two senders at one PSN), and says nothing of the spread.
pub const MIN_MATCHES: u64 = 16;

/// What two files' matches said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairVerdict {
    /// Enough matches, agreeing: two capture points.
    Points,
    /// Some matches, too few to rest an offset on.
    TooFew,
    /// Enough matches whose differences disagree by more than the skew bound.
    TooSpread,
    /// Matches from one connection, where the files carry several.
    OneConnection,
    /// One file follows the other, even with its clock set by the matches: the matches are
    /// retransmissions across the cut between two pieces of one capture.
    Consecutive,
}

/// Two files that share data packets.
#[derive(Debug, Clone, Copy)]
pub struct PairFinding {
    pub lo: usize,
    pub hi: usize,
    /// One file ends before the other begins, as the pieces of one capture do.
    pub disjoint: bool,
    pub matches: u64,
    pub spread_ns: u64,
    pub verdict: PairVerdict,
}

/// The files' points and offsets.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Each file's capture point; point 0 holds the first input.
    pub point_of: Vec<u16>,
    /// Each point's offset from point 0.
    pub offsets: Vec<Offset>,
    pub pairs: Vec<PairFinding>,
}

impl Plan {
    /// Every file one point: pieces of one capture, or `--single-point`.
    pub fn one_point(files: usize) -> Self {
        Plan {
            point_of: vec![0; files],
            offsets: vec![reference()],
            pairs: Vec::new(),
        }
    }

    /// Every file a point of its own, on one clock: for callers that know their inputs'
    /// points (a library user merging interfaces, the fuzz targets).
    pub fn separate(files: usize) -> Self {
        let mut offsets = vec![reference(); files.max(1)];
        offsets
            .iter_mut()
            .skip(1)
            .for_each(|o| o.method = Method::Unknown);
        Plan {
            point_of: (0..files)
                .map(|f| u16::try_from(f).unwrap_or(u16::MAX))
                .collect(),
            offsets,
            pairs: Vec::new(),
        }
    }

    pub fn points(&self) -> usize {
        self.offsets.len()
    }

    /// The files of point `point`, in input order.
    pub fn files_of(&self, point: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.point_of.len()).filter(move |&f| usize::from(self.point_of[f]) == point)
    }

    /// Each file's clock offset: its point's.
    pub fn file_offsets_ns(&self) -> Vec<i64> {
        self.point_of
            .iter()
            .map(|&p| self.offsets.get(usize::from(p)).map_or(0, |o| o.offset_ns))
            .collect()
    }

    /// Pairs that matched some packets without being taken as two points, although they
    /// were analysed as one: worth a warning, since they may be points with too little
    /// traffic in common.
    pub fn doubtful(&self) -> impl Iterator<Item = &PairFinding> {
        self.pairs.iter().filter(|p| {
            !matches!(p.verdict, PairVerdict::Points | PairVerdict::Consecutive)
                && self.point_of[p.lo] == self.point_of[p.hi]
        })
    }
}

fn reference() -> Offset {
    Offset {
        offset_ns: 0,
        method: Method::Reference,
        samples: 0,
        spread_ns: None,
        forward_delay_ns: None,
    }
}

/// Decides the points from what `estimator` matched. `manual[f]` is the offset
/// `--offset` gave file f: files given the same offset are one point of their own.
pub fn plan(estimator: SkewEstimator, manual: &[Option<i64>]) -> Plan {
    let files = estimator.files;
    let findings = findings(&estimator);
    let linked = |a: usize, b: usize| {
        let (lo, hi) = (a.min(b), a.max(b));
        findings
            .iter()
            .any(|p| p.lo == lo && p.hi == hi && p.verdict == PairVerdict::Points)
    };
    // Groups of files, then numbered by their first input so that numbering is stable.
    let mut groups: Vec<(Option<i64>, Vec<usize>)> = Vec::new();
    let mut order: Vec<usize> = (0..files).collect();
    order.sort_by_key(|&f| (estimator.first_ts[f].is_none(), estimator.first_ts[f], f));
    for f in order {
        let given = manual.get(f).copied().flatten();
        let home = groups.iter().position(|(offset, members)| match given {
            Some(_) => *offset == given,
            None => offset.is_none() && !members.iter().any(|&m| linked(f, m)),
        });
        match home {
            Some(g) => groups[g].1.push(f),
            None => groups.push((given, vec![f])),
        }
    }
    for (_, members) in &mut groups {
        members.sort_unstable();
    }
    groups.sort_by_key(|(_, members)| members[0]);
    let mut point_of = vec![0u16; files];
    for (g, (_, members)) in groups.iter().enumerate() {
        for &f in members {
            point_of[f] = u16::try_from(g).unwrap_or(u16::MAX);
        }
    }
    let offsets = point_offsets(&estimator, &point_of, &groups);
    Plan {
        point_of,
        offsets,
        pairs: findings,
    }
}

fn findings(estimator: &SkewEstimator) -> Vec<PairFinding> {
    let mut out: Vec<PairFinding> = estimator
        .pairs
        .iter()
        .filter(|(_, samples)| samples.matches > 0)
        .map(|(&(lo, hi), samples)| {
            let spread_ns = samples.spread_ns();
            let (a, b) = (usize::from(lo), usize::from(hi));
            let verdict = if samples.matches < MIN_MATCHES {
                PairVerdict::TooFew
            } else if consecutive(estimator, a, b, samples) {
                PairVerdict::Consecutive
            } else if spread_ns > estimator.bound_ns {
                PairVerdict::TooSpread
            } else if estimator.several_flows && !samples.several_flows {
                PairVerdict::OneConnection
            } else {
                PairVerdict::Points
            };
            PairFinding {
                lo: a,
                hi: b,
                disjoint: disjoint(estimator, a, b),
                matches: samples.matches,
                spread_ns,
                verdict,
            }
        })
        .collect();
    out.sort_by_key(|p| (p.lo, p.hi));
    out
}

/// Whether files `lo` and `hi` are consecutive pieces of one capture whose matches are
/// retransmissions across the cut: their spans do not overlap, and even on the clock the
/// matches suggest they overlap for less than [`ALIGNED_OVERLAP`] of the shorter span. Two
/// points of the same traffic, however far apart their clocks, overlap nearly fully once
/// aligned; pieces overlap only where a packet at the end of one is sent again in the next.
fn consecutive(estimator: &SkewEstimator, lo: usize, hi: usize, samples: &PairSamples) -> bool {
    let span = |f: usize| Some((estimator.first_ts[f]?, estimator.last_ts[f]?));
    let (Some((a0, a1)), Some((b0, b1)), Some(offset)) = (span(lo), span(hi), samples.median_ns())
    else {
        return false;
    };
    if !disjoint(estimator, lo, hi) {
        return false;
    }
    let (a0, a1) = (i128::from(a0), i128::from(a1));
    let (b0, b1) = (
        i128::from(b0) - i128::from(offset),
        i128::from(b1) - i128::from(offset),
    );
    let overlap = a1.min(b1) - a0.max(b0);
    let shorter = (a1 - a0).min(b1 - b0);
    overlap * ALIGNED_OVERLAP.1 < shorter * ALIGNED_OVERLAP.0
}

/// Whether one file's data packets all come before the other's, on their own clocks.
fn disjoint(estimator: &SkewEstimator, a: usize, b: usize) -> bool {
    let span = |f: usize| Some((estimator.first_ts[f]?, estimator.last_ts[f]?));
    match (span(a), span(b)) {
        (Some((a0, a1)), Some((b0, b1))) => a1 <= b0 || b1 <= a0,
        _ => false,
    }
}

/// The part of the shorter span (9/10) that two aligned points overlap at the least.
const ALIGNED_OVERLAP: (i128, i128) = (9, 10);

/// Each point's offset from point 0: samples of the files that were found to be points are
/// pooled per pair of points, and offsets follow pairs outward from point 0, each point
/// taking the estimate of the point nearest to it.
fn point_offsets(
    estimator: &SkewEstimator,
    point_of: &[u16],
    groups: &[(Option<i64>, Vec<usize>)],
) -> Vec<Offset> {
    let points = groups.len();
    let mut pooled: HashMap<(u16, u16), PairSamples> = HashMap::new();
    for (&(lo, hi), samples) in &estimator.pairs {
        let (a, b) = (point_of[usize::from(lo)], point_of[usize::from(hi)]);
        let together = groups[usize::from(a)].0.is_some() || groups[usize::from(b)].0.is_some();
        if a == b || together || samples.matches < MIN_MATCHES {
            continue;
        }
        let key = (a.min(b), a.max(b));
        pooled.entry(key).or_default().absorb(samples, a > b);
    }
    let mut estimates: Vec<((u16, u16), Offset)> = pooled
        .iter_mut()
        .filter_map(|(&pair, samples)| Some((pair, estimate(samples)?)))
        .collect();
    estimates.sort_by_key(|&((lo, hi), e)| (lo, hi, std::cmp::Reverse(e.samples)));
    let unknown = Offset {
        method: Method::Unknown,
        ..reference()
    };
    let mut out = vec![unknown; points];
    let mut known = vec![false; points];
    for (g, (given, _)) in groups.iter().enumerate() {
        if let Some(offset_ns) = *given {
            out[g] = Offset {
                offset_ns,
                method: Method::Manual,
                ..reference()
            };
            known[g] = true;
        }
    }
    if let (Some(first), false) = (out.first_mut(), known.first().copied().unwrap_or(true)) {
        *first = reference();
        known[0] = true;
    }
    loop {
        let mut grew = false;
        for &((lo, hi), e) in &estimates {
            let (lo, hi) = (usize::from(lo), usize::from(hi));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::key::FlowKey;
    use crate::analyze::points::Identity;
    use crate::dissect::Address;
    use crate::wire::opcode::Role;

    fn key(src: u8, dst: u8, qp: u32) -> FlowKey {
        FlowKey {
            src: Address::Lid(u16::from(src)),
            dst: Address::Lid(u16::from(dst)),
            dest_qp: qp,
            role: Role::Request,
        }
    }

    /// Both directions of two connections seen at files `a` (true time) and `b` (clock
    /// `offset` ahead, `delay` downstream for packets from host 1), `n` packets each.
    fn two_points(
        est: &mut SkewEstimator,
        a: u16,
        b: u16,
        start: u64,
        psn: u32,
        n: u64,
        offset: u64,
    ) {
        let delay = 3_000;
        for i in 0..n {
            let t = start + i * 10_000;
            for qp in [7, 8] {
                let fwd = key(1, 2, qp);
                let id = Identity::new(&fwd, psn + i as u32, 4, 1024);
                est.observe(a, t, &fwd, id, true);
                est.observe(b, t + offset + delay, &fwd, id, true);
                let rev = key(2, 1, qp);
                let id = Identity::new(&rev, psn + i as u32, 4, 1024);
                est.observe(b, t + offset + 5_000, &rev, id, true);
                est.observe(a, t + 5_000 + delay, &rev, id, true);
            }
        }
    }

    #[test]
    fn two_way_traffic_cancels_the_path_delay() {
        let mut est = SkewEstimator::new(2, 100_000_000);
        two_points(&mut est, 0, 1, 0, 0, 100, 1_000_000);
        let plan = plan(est, &[]);
        assert_eq!(plan.point_of, [0, 1]);
        assert_eq!(plan.offsets[1].offset_ns, 1_000_000);
        assert_eq!(plan.offsets[1].method, Method::TwoWay);
        assert_eq!(plan.offsets[1].forward_delay_ns, Some(3_000));
        assert_eq!(plan.offsets[1].spread_ns, Some(0));
    }

    #[test]
    fn pieces_that_share_nothing_are_one_point() {
        let mut est = SkewEstimator::new(3, 100_000_000);
        for (file, start) in [(0u16, 0u64), (1, 1_000_000), (2, 2_000_000)] {
            for i in 0..100u64 {
                let k = key(1, 2, 7);
                let psn = (start / 10_000 + i) as u32;
                est.observe(
                    file,
                    start + i * 10_000,
                    &k,
                    Identity::new(&k, psn, 4, 1024),
                    true,
                );
            }
        }
        let plan = plan(est, &[]);
        assert_eq!(plan.point_of, [0, 0, 0]);
        assert_eq!(plan.points(), 1);
    }

    #[test]
    fn two_rotated_hosts_are_two_points() {
        // a_1 (0), b_1 (1), a_2 (2), b_2 (3): each a piece matches the b piece of its time.
        let mut est = SkewEstimator::new(4, 100_000_000);
        two_points(&mut est, 0, 1, 0, 0, 50, 40_000);
        two_points(&mut est, 2, 3, 1_000_000, 1_000, 50, 40_000);
        let plan = plan(est, &[]);
        assert_eq!(plan.point_of, [0, 1, 0, 1]);
        assert_eq!(plan.offsets[1].offset_ns, 40_000);
    }

    #[test]
    fn a_go_back_across_the_cut_does_not_make_points() {
        // Piece 0 ends with PSNs 80-99 sent; piece 1 starts with them sent again 50 us
        // later (a go-back-N), then goes on: 20 matches, all 50 us apart.
        let mut est = SkewEstimator::new(2, 100_000_000);
        let k = key(1, 2, 7);
        let mut k2 = k;
        k2.dest_qp = 8;
        for psn in 0..100u32 {
            let t = u64::from(psn) * 1_000;
            for k in [k, k2] {
                est.observe(0, t, &k, Identity::new(&k, psn, 4, 1024), true);
            }
        }
        for psn in 80..300u32 {
            let t = 150_000 + u64::from(psn) * 1_000;
            for k in [k, k2] {
                est.observe(1, t, &k, Identity::new(&k, psn, 4, 1024), true);
            }
        }
        let plan = plan(est, &[]);
        assert_eq!(plan.points(), 1);
        assert_eq!(plan.pairs[0].verdict, PairVerdict::Consecutive);
        assert_eq!(plan.doubtful().count(), 0);
    }

    #[test]
    fn too_few_matches_give_no_offset() {
        let mut est = SkewEstimator::new(2, 100_000_000);
        two_points(&mut est, 0, 1, 0, 0, 3, 1_000_000);
        let plan = plan(est, &[]);
        assert_eq!(plan.points(), 1);
        let doubtful: Vec<_> = plan.doubtful().collect();
        assert_eq!(doubtful.len(), 1);
        assert_eq!(doubtful[0].verdict, PairVerdict::TooFew);
        assert_eq!(doubtful[0].matches, 12);
    }

    #[test]
    fn an_offset_given_by_hand_makes_a_point() {
        let mut est = SkewEstimator::new(3, 100_000_000);
        two_points(&mut est, 0, 1, 0, 0, 3, 1_000_000);
        let plan = plan(est, &[None, Some(-5_000), Some(-5_000)]);
        assert_eq!(plan.point_of, [0, 1, 1]);
        assert_eq!(plan.offsets[1].method, Method::Manual);
        assert_eq!(plan.file_offsets_ns(), [0, -5_000, -5_000]);
    }

    #[test]
    fn acks_align_but_do_not_make_points() {
        // 20 ACKs both ways and no data: not enough to call the files two points.
        let mut est = SkewEstimator::new(2, 100_000_000);
        for i in 0..20u64 {
            let mut k = key(2, 1, 7);
            k.role = Role::Response;
            let id = Identity::new(&k, i as u32, 0x11, 0);
            est.observe(0, i * 10_000, &k, id, false);
            est.observe(1, i * 10_000 + 500, &k, id, false);
        }
        assert_eq!(plan(est, &[]).points(), 1);
    }

    #[test]
    fn a_retransmitted_psn_is_not_matched() {
        let mut est = SkewEstimator::new(2, 100_000_000);
        let k = key(1, 2, 7);
        let id = Identity::new(&k, 5, 4, 1024);
        est.observe(0, 0, &k, id, true);
        est.observe(0, 500, &k, id, true);
        est.observe(1, 50, &k, id, true);
        assert!(plan(est, &[]).pairs.is_empty());
    }
}
