//! Goodput and RTT per interval, added up from a direction's time-sequence points when the
//! page is drawn: the analysis records each packet once, as a point, and the chart picks
//! its intervals from the connection's span.

use crate::analyze::connections::sequence::{Mark, TimeSequence};

/// Intervals a chart splits a connection's span into.
pub const BINS: usize = 240;

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
        let width_ns = ((span.1 - span.0) / BINS as u64 + 1).max(1);
        let mut bins = vec![Bin::default(); BINS];
        for p in &seq.points {
            let i = ((p.ts_ns.saturating_sub(span.0) / width_ns) as usize).min(BINS - 1);
            let bin = &mut bins[i];
            if matches!(p.mark, Mark::New | Mark::Gap | Mark::Ack) {
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
}
