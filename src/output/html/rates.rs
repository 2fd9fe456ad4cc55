//! Goodput and RTT per interval, added up from a direction's time-sequence points when the
//! page is drawn: the analysis records each packet once, as a point, and the chart picks
//! its intervals from the connection's span.

use crate::analyze::connections::sequence::{Mark, TimeSequence};

/// Intervals a chart splits a connection's span into, at most.
pub const BINS: usize = 240;

/// Packets a goodput interval holds on average, at least: fewer draw a comb of empty
/// intervals and full ones, each full one a packet over an interval shorter than its gap.
const PACKETS_PER_BIN: u64 = 8;

#[derive(Debug, Clone, Copy, Default)]
pub struct Bin {
    pub goodput_bytes: u64,
    pub rtt_samples: u32,
    pub rtt_sum_ns: u64,
    pub rtt_min_ns: u64,
    pub rtt_max_ns: u64,
}

/// A direction's bins over `start_ns .. start_ns + BINS * width_ns`.
pub struct Rates {
    pub start_ns: u64,
    pub width_ns: u64,
    pub bins: Vec<Bin>,
}

/// The first and last time of `sequences`' points.
pub fn span<'a>(sequences: impl Iterator<Item = &'a TimeSequence>) -> Option<(u64, u64)> {
    sequences
        .flat_map(|s| &s.points)
        .map(|p| p.ts_ns)
        .fold(None, |acc, t| match acc {
            None => Some((t, t)),
            Some((a, b)) => Some((a.min(t), b.max(t))),
        })
}

impl Rates {
    /// `seq` split into [`BINS`] intervals over `span`: payload sent for the first time
    /// (new requests, and READ data in responses) and the ACKs' RTT samples.
    pub fn of(seq: &TimeSequence, span: (u64, u64)) -> Rates {
        Rates::split(seq, span, BINS)
    }

    /// As [`Rates::of`], in as many intervals as keep [`PACKETS_PER_BIN`] packets that
    /// carry goodput in each on average: what the goodput chart draws.
    pub fn of_goodput(seq: &TimeSequence, span: (u64, u64)) -> Rates {
        let packets: u64 = seq
            .points
            .iter()
            .filter(|p| carries_goodput(p.mark) && p.payload > 0)
            .map(|p| u64::from(p.count))
            .sum();
        let bins = (packets / PACKETS_PER_BIN).clamp(1, BINS as u64) as usize;
        Rates::split(seq, span, bins)
    }

    fn split(seq: &TimeSequence, span: (u64, u64), count: usize) -> Rates {
        let width_ns = ((span.1 - span.0) / count as u64 + 1).max(1);
        let mut bins = vec![Bin::default(); count];
        for p in &seq.points {
            let i = ((p.ts_ns.saturating_sub(span.0) / width_ns) as usize).min(count - 1);
            let bin = &mut bins[i];
            if carries_goodput(p.mark) {
                bin.goodput_bytes += u64::from(p.payload);
            }
            if p.mark == Mark::Ack && p.rtt_ns > 0 {
                let rtt = u64::from(p.rtt_ns);
                bin.rtt_min_ns = if bin.rtt_samples == 0 {
                    rtt
                } else {
                    bin.rtt_min_ns.min(rtt)
                };
                bin.rtt_max_ns = bin.rtt_max_ns.max(rtt);
                bin.rtt_sum_ns = bin.rtt_sum_ns.saturating_add(rtt);
                bin.rtt_samples += 1;
            }
        }
        Rates {
            start_ns: span.0,
            width_ns,
            bins,
        }
    }
}

/// New requests, and the READ data responses carry: payload sent for the first time.
fn carries_goodput(mark: Mark) -> bool {
    matches!(mark, Mark::New | Mark::Gap | Mark::Ack)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goodput_leaves_out_retransmissions_and_rtt_takes_the_acks_samples() {
        let mut s = TimeSequence::default();
        s.push_with(0, 1, 1, Mark::New, 100, None);
        s.push_with(10, 2, 2, Mark::Retransmitted, 100, None);
        s.push_with(20, 2, 3, Mark::Ack, 0, Some(20));
        s.push_with(2390, 3, 4, Mark::New, 50, None);
        s.push_with(2399, 3, 5, Mark::Ack, 0, Some(9));
        let r = Rates::of(&s, (0, 2399));
        assert_eq!(r.width_ns, 10);
        assert_eq!(r.bins[0].goodput_bytes, 100);
        assert_eq!(r.bins[1].goodput_bytes, 0);
        assert_eq!((r.bins[2].rtt_samples, r.bins[2].rtt_sum_ns), (1, 20));
        assert_eq!(r.bins[BINS - 1].goodput_bytes, 50);
        assert_eq!(r.bins[BINS - 1].rtt_max_ns, 9);
    }

    #[test]
    fn goodput_intervals_hold_several_packets_each() {
        let mut s = TimeSequence::default();
        // 80 packets, 1 µs apart: 10 intervals of 8.
        for i in 0..80u64 {
            s.push_with(i * 1000, i as u32, i + 1, Mark::New, 1000, None);
        }
        let r = Rates::of_goodput(&s, (0, 79_000));
        assert_eq!(r.bins.len(), 10);
        assert!(r.bins.iter().all(|b| b.goodput_bytes == 8000));
    }
}
