//! Stalls: a direction with requests outstanding that sends and receives nothing for longer
//! than the stall threshold. The default threshold (4 × the direction's p99 RTT, at least
//! [`FLOOR_NS`]) is known only at the end, so every silence of at least the floor is
//! measured when it ends, and the threshold is applied at the end to the longest ones kept.
//!
//! Per direction: the time with nothing outstanding ([`Stalls::idle_ns`]), inline; the
//! silences, boxed at the first one, as most directions never fall silent that long.

use crate::wire::ethernet::Mac;

/// Silences shorter than this are not stalls, whatever the RTT.
pub const FLOOR_NS: u64 = 20_000;
/// A stall is a silence longer than this many p99 RTTs.
pub const RTT_FACTOR: u64 = 4;
/// Silences kept in full per direction: the longest.
pub const KEPT: usize = 8;

/// What ended a silence: the packet the direction sent or received next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// A response that acknowledged, or carried READ data.
    Ack,
    Nak,
    RnrNak,
    /// The requester resent without a NAK asking: its ACK timeout expired.
    Retransmission,
    /// The requester resent the request an RNR NAK turned away: the RNR wait ended.
    RnrRetry,
    /// A new request.
    Request,
}

impl Ending {
    pub fn name(self) -> &'static str {
        match self {
            Ending::Ack => "ack",
            Ending::Nak => "nak",
            Ending::RnrNak => "rnr_nak",
            Ending::Retransmission => "retransmission",
            Ending::RnrRetry => "rnr_retry",
            Ending::Request => "request",
        }
    }
}

/// What the silence began with, when it was a NAK the requester received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Began {
    Nak,
    RnrNak,
}

impl Began {
    pub fn name(self) -> &'static str {
        match self {
            Began::Nak => "nak",
            Began::RnrNak => "rnr_nak",
        }
    }
}

/// One silence with requests outstanding, and what overlapped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Silence {
    pub start_ns: u64,
    pub duration_ns: u64,
    /// The frame that ended it.
    pub file: u16,
    pub frame: u64,
    pub ended_by: Ending,
    pub began_with: Option<Began>,
    /// A CNP reached the requester during it.
    pub cnp: bool,
    /// The direction's priority, when its packets show one.
    pub priority: Option<u8>,
    /// How long its priority was paused during it, and the sender that paused it longest.
    pub paused_ns: u64,
    pub paused_by: Option<Mac>,
    /// The packet that ended it shows traffic of the direction the capture never saw: a
    /// request past a PSN gap, or a response to PSNs no captured request carried. The
    /// direction was not silent; the capture was, so this is no stall.
    pub unseen: bool,
}

impl Silence {
    pub fn end_ns(&self) -> u64 {
        self.start_ns.saturating_add(self.duration_ns)
    }

    /// On a capture that misses packets, a silence a new request ended may have held an ACK
    /// of every outstanding request that the capture did not see: the requester was then
    /// idle, not waiting. An ending that acknowledges or resends shows the requests were
    /// still outstanding, and a pause of the priority explains the silence either way.
    pub fn may_be_idle(&self) -> bool {
        self.ended_by == Ending::Request && self.paused_ns == 0
    }
}

/// The longest silences of one kind, and a tally of those that did not fit.
#[derive(Debug, Clone, Default)]
pub struct Longest {
    /// Longest first; after [`Stalls::settle`], only those over the threshold.
    pub kept: Vec<Silence>,
    /// Silences that did not fit in `kept`: each is no longer than the shortest kept.
    dropped: u64,
    dropped_ns: u64,
    dropped_min: u64,
    dropped_max: u64,
}

impl Longest {
    fn add(&mut self, silence: Silence) {
        if self.kept.capacity() == 0 {
            self.kept.reserve_exact(KEPT);
        }
        let at = self
            .kept
            .iter()
            .position(|k| k.duration_ns < silence.duration_ns)
            .unwrap_or(self.kept.len());
        self.kept.insert(at, silence);
        if self.kept.len() > KEPT
            && let Some(out) = self.kept.pop()
        {
            let d = out.duration_ns;
            self.dropped_min = if self.dropped == 0 {
                d
            } else {
                self.dropped_min.min(d)
            };
            self.dropped_max = self.dropped_max.max(d);
            self.dropped += 1;
            self.dropped_ns += d;
        }
    }

    /// Keeps those longer than `threshold_ns`, and gives their count and total. The ones
    /// not kept count only when all of them passed the threshold: when some did and some
    /// did not, which is which is not known, and the total is a lower bound.
    fn settle(&mut self, threshold_ns: u64) -> (u64, u64) {
        self.kept.retain(|k| k.duration_ns > threshold_ns);
        let mut count = self.kept.len() as u64;
        let mut ns = self.kept.iter().map(|k| k.duration_ns).sum();
        if self.dropped > 0 && self.dropped_min > threshold_ns {
            count += self.dropped;
            ns += self.dropped_ns;
        }
        (count, ns)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Silences {
    /// Silences the direction itself kept.
    pub longest: Longest,
    /// Silences the capture's own misses explain ([`Silence::unseen`]): never stalls.
    pub unseen: Longest,
    /// Silences that may have been idle time: see [`Silence::may_be_idle`].
    pub unconfirmed: Longest,
    /// Every silence of at least the floor, kept or not.
    pub count: u64,
    pub paused_ns: u64,
    /// Set by [`Stalls::settle`].
    pub threshold_ns: u64,
    pub stall_ns: u64,
    pub stall_count: u64,
    /// Unseen silences over the threshold, which would have been stalls.
    pub unseen_count: u64,
    pub unseen_ns: u64,
    /// Unconfirmed silences over the threshold.
    pub unconfirmed_count: u64,
    pub unconfirmed_ns: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Stalls {
    /// Time between packets with nothing outstanding, once the capture showed the
    /// direction's first acknowledgement.
    pub idle_ns: u64,
    pub silences: Option<Box<Silences>>,
}

impl Stalls {
    pub fn record(&mut self, silence: Silence) {
        let s = self.silences.get_or_insert_with(Box::default);
        s.count += 1;
        if silence.unseen {
            s.unseen.add(silence);
        } else {
            s.paused_ns += silence.paused_ns;
            s.longest.add(silence);
        }
    }

    /// Keeps the silences longer than `threshold_ns` as the stalls, and sums them. When the
    /// capture `misses` packets of the connection, the kept silences that
    /// [may have been idle](Silence::may_be_idle) are unconfirmed, not stalls. Those beyond
    /// the kept ones are not told apart: they count as before.
    pub fn settle(&mut self, threshold_ns: u64, misses: bool) {
        let Some(s) = &mut self.silences else {
            return;
        };
        s.threshold_ns = threshold_ns;
        if misses && s.longest.kept.iter().any(Silence::may_be_idle) {
            let (doubtful, kept) = s.longest.kept.drain(..).partition(Silence::may_be_idle);
            s.longest.kept = kept;
            s.unconfirmed.kept = doubtful;
        }
        (s.stall_count, s.stall_ns) = s.longest.settle(threshold_ns);
        (s.unseen_count, s.unseen_ns) = s.unseen.settle(threshold_ns);
        (s.unconfirmed_count, s.unconfirmed_ns) = s.unconfirmed.settle(threshold_ns);
    }

    pub fn stall_ns(&self) -> u64 {
        self.silences.as_ref().map_or(0, |s| s.stall_ns)
    }

    pub fn stall_count(&self) -> u64 {
        self.silences.as_ref().map_or(0, |s| s.stall_count)
    }

    pub fn paused_ns(&self) -> u64 {
        self.silences.as_ref().map_or(0, |s| s.paused_ns)
    }

    /// Silences over the threshold that the capture's own misses explain, and their time.
    pub fn unseen(&self) -> (u64, u64) {
        self.silences
            .as_ref()
            .map_or((0, 0), |s| (s.unseen_count, s.unseen_ns))
    }

    /// Silences over the threshold that may have been idle time on a capture that misses
    /// packets, and their time.
    pub fn unconfirmed(&self) -> (u64, u64) {
        self.silences
            .as_ref()
            .map_or((0, 0), |s| (s.unconfirmed_count, s.unconfirmed_ns))
    }

    /// The longest stalls, longest first.
    pub fn longest(&self) -> &[Silence] {
        self.silences.as_ref().map_or(&[], |s| &s.longest.kept)
    }
}

/// The default threshold of a direction whose p99 RTT is `rtt_p99`.
pub fn default_threshold(rtt_p99: Option<u64>) -> u64 {
    rtt_p99
        .map_or(0, |p| p.saturating_mul(RTT_FACTOR))
        .max(FLOOR_NS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn silence(duration_ns: u64) -> Silence {
        Silence {
            start_ns: 0,
            duration_ns,
            file: 0,
            frame: 1,
            ended_by: Ending::Ack,
            began_with: None,
            cnp: false,
            priority: None,
            paused_ns: 1,
            unseen: false,
            paused_by: None,
        }
    }

    #[test]
    fn the_longest_are_kept_and_the_threshold_applies_at_the_end() {
        let mut stalls = Stalls::default();
        for d in [30_000, 500_000, 25_000, 90_000] {
            stalls.record(silence(d));
        }
        stalls.settle(default_threshold(Some(12_000)), false);
        let kept: Vec<u64> = stalls.longest().iter().map(|s| s.duration_ns).collect();
        assert_eq!(kept, [500_000, 90_000]);
        assert_eq!(stalls.stall_ns(), 590_000);
        assert_eq!(stalls.paused_ns(), 4);
    }

    #[test]
    fn a_silence_the_capture_missed_is_no_stall() {
        let mut stalls = Stalls::default();
        stalls.record(Silence {
            unseen: true,
            ..silence(500_000)
        });
        stalls.record(Silence {
            unseen: true,
            ..silence(30_000)
        });
        stalls.record(silence(90_000));
        stalls.settle(default_threshold(Some(12_000)), false);
        let kept: Vec<u64> = stalls.longest().iter().map(|s| s.duration_ns).collect();
        assert_eq!(kept, [90_000]);
        assert_eq!(stalls.stall_ns(), 90_000);
        assert_eq!(stalls.paused_ns(), 1);
        assert_eq!(stalls.unseen(), (1, 500_000));
    }

    #[test]
    fn a_silence_a_request_ended_is_unconfirmed_when_the_capture_misses_packets() {
        let request = |d, paused_ns| Silence {
            ended_by: Ending::Request,
            paused_ns,
            ..silence(d)
        };
        let record = |stalls: &mut Stalls| {
            stalls.record(request(93_000, 0));
            stalls.record(request(60_000, 5_000));
            stalls.record(silence(40_000));
        };
        let mut whole = Stalls::default();
        record(&mut whole);
        whole.settle(FLOOR_NS, false);
        assert_eq!((whole.stall_count(), whole.stall_ns()), (3, 193_000));
        assert_eq!(whole.unconfirmed(), (0, 0));

        let mut lossy = Stalls::default();
        record(&mut lossy);
        lossy.settle(FLOOR_NS, true);
        // The paused one stays a stall: the pause held the sender whatever it had to send.
        let kept: Vec<u64> = lossy.longest().iter().map(|s| s.duration_ns).collect();
        assert_eq!(kept, [60_000, 40_000]);
        assert_eq!(lossy.stall_ns(), 100_000);
        assert_eq!(lossy.paused_ns(), 5_001);
        assert_eq!(lossy.unconfirmed(), (1, 93_000));
    }

    #[test]
    fn silences_beyond_the_kept_count_when_all_were_stalls() {
        let mut stalls = Stalls::default();
        for i in 0..(KEPT as u64 + 3) {
            stalls.record(silence(100_000 + i));
        }
        let mut all = stalls.clone();
        all.settle(50_000, false);
        assert_eq!(all.stall_count(), KEPT as u64 + 3);
        assert_eq!(all.longest().len(), KEPT);
        // The dropped ones straddle this threshold: only the kept count.
        stalls.settle(100_001, false);
        assert_eq!(stalls.stall_count(), KEPT as u64);
        assert_eq!(default_threshold(None), FLOOR_NS);
    }
}
