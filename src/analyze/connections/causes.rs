//! Why one direction's requests were sent again: each retransmission episode (a go-back,
//! or a single retransmission) by its cause, with the time the sender waited, and what the
//! timeouts among them tell of the sender's local ACK timeout.

use super::super::key::{Cause, Episode, FrameRef};
use super::super::psn;

/// A sender silent for less than this before going back cannot have waited for its ACK
/// timer: 4.096 µs × 2^5. A NAK the capture missed comes back within a round trip, a few
/// to tens of µs in a data centre, while ACK timeouts are set to milliseconds or more.
pub const TIMEOUT_FLOOR_NS: u64 = 131_072;

/// The local ACK timeout is this × 2^k (IBA 9.7.6.1.3).
pub const ACK_TIMEOUT_UNIT_NS: u64 = 4096;

/// The per-direction tallies, and the episode in progress.
#[derive(Debug, Clone, Copy, Default)]
pub struct Causes {
    /// Episodes, by [`Cause`] in the order of [`Cause::ALL`].
    pub episodes: [u32; Cause::ALL.len()],
    /// The sum of the episodes' waits: the time retransmissions cost this direction.
    pub wait_ns: u64,
    /// The shortest wait before a timeout retransmission: the ACK timeout itself, when
    /// later retries back off. 0 before the first (a timeout waits at least
    /// [`TIMEOUT_FLOOR_NS`]); not an `Option`, which would cost every end 8 bytes.
    pub timeout_min_ns: u64,
    /// The most timeout retransmissions one PSN took in a row.
    pub max_retries: u32,
    /// Retries of one PSN whose wait doubled the previous retry's (about: 1.5 to 2.5
    /// times), and those whose wait did not.
    pub doubled: u32,
    pub not_doubled: u32,
    /// What the RNR NAKs asked for (IBA table 45) and what the sender waited, summed.
    pub rnr_asked_ns: u64,
    pub rnr_waited_ns: u64,
    /// The cause of the episode the last request belonged to, if it was a retransmission.
    current: Option<Cause>,
    /// The PSN the last timeout retransmitted, and how many times in a row.
    retry_psn: u32,
    retries: u32,
    last_wait_ns: u64,
    /// The NAK the last episode answered, as [`nak_key`]: it is no later one's cause.
    answered_nak: u64,
}

impl Causes {
    pub fn count(&self, cause: Cause) -> u32 {
        self.episodes[cause as usize]
    }

    /// The episodes, all causes together.
    pub fn total(&self) -> u32 {
        self.episodes.iter().sum()
    }

    /// The cause of the episode the last request belonged to.
    pub fn current(&self) -> Option<Cause> {
        self.current
    }

    /// A new request, not a retransmission: no episode goes on.
    #[inline]
    pub fn new_request(&mut self) {
        self.current = None;
    }

    /// Whether the NAK at `at` was answered already.
    pub fn answered(&self, at: FrameRef) -> bool {
        self.answered_nak == nak_key(at)
    }

    /// A retransmission that goes on with the episode in progress: the next PSNs of a
    /// go-back, or of a retry.
    pub fn continues(&self, single: bool, p: u32, previous: u32) -> bool {
        single && self.current.is_some() && psn::diff(p, previous) > 0
    }

    /// Books an episode starting at PSN `p`; `nak` is the NAK it answers, if any.
    pub fn book(&mut self, episode: Episode, p: u32, nak: Option<FrameRef>) {
        self.episodes[episode.cause as usize] += 1;
        let waited = episode.waited_ns.unwrap_or(0);
        self.wait_ns = self.wait_ns.saturating_add(waited);
        self.current = Some(episode.cause);
        if let Some(at) = nak {
            self.answered_nak = nak_key(at);
        }
        match episode.cause {
            Cause::Timeout => {
                if self.retries > 0 && self.retry_psn == p {
                    self.retries += 1;
                    let last = self.last_wait_ns;
                    // About twice the previous wait: 1.5 to 2.5 times.
                    if 2 * u128::from(waited) >= 3 * u128::from(last)
                        && 2 * u128::from(waited) <= 5 * u128::from(last)
                    {
                        self.doubled += 1;
                    } else {
                        self.not_doubled += 1;
                    }
                } else {
                    self.retry_psn = p;
                    self.retries = 1;
                }
                self.last_wait_ns = waited;
                self.max_retries = self.max_retries.max(self.retries);
                if waited > 0 && (self.timeout_min_ns == 0 || waited < self.timeout_min_ns) {
                    self.timeout_min_ns = waited;
                }
            }
            Cause::Rnr => {
                self.retries = 0;
                let asked = episode.rnr_timer.map_or(0, crate::wire::aeth::rnr_timer_ns);
                self.rnr_asked_ns = self.rnr_asked_ns.saturating_add(asked);
                self.rnr_waited_ns = self.rnr_waited_ns.saturating_add(waited);
            }
            Cause::Nak | Cause::Implied => self.retries = 0,
        }
    }

    /// Whether the waits of a PSN's repeated timeouts grew as exponential backoff; `None`
    /// when no PSN timed out twice.
    pub fn backoff(&self) -> Option<bool> {
        (self.doubled + self.not_doubled > 0).then_some(self.doubled > 0 && self.not_doubled == 0)
    }

    /// The local ACK timeout the timeouts show, as (4.096 µs × 2^k, k) for the k nearest
    /// their shortest wait; only from several timeouts, as one may be a stray.
    pub fn inferred_timeout(&self) -> Option<(u64, u8)> {
        if self.count(Cause::Timeout) < 2 {
            return None;
        }
        let shortest = Some(self.timeout_min_ns).filter(|&w| w > 0)?;
        let k = nearest_k(shortest);
        Some((ACK_TIMEOUT_UNIT_NS << k, k))
    }
}

/// A NAK's place as one word, never 0 (which means none): its input in the top 16 bits,
/// its frame below, plus one.
fn nak_key(at: FrameRef) -> u64 {
    (u64::from(at.file) << 48 | (at.frame & ((1 << 48) - 1))).wrapping_add(1)
}

/// The k whose 4.096 µs × 2^k is nearest `ns` on a log scale, from 1 (k = 0 means no
/// timeout at all) to 31.
pub fn nearest_k(ns: u64) -> u8 {
    let k = (ns as f64 / ACK_TIMEOUT_UNIT_NS as f64).log2().round();
    k.clamp(1.0, 31.0) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeout(waited_ns: u64) -> Episode {
        Episode {
            cause: Cause::Timeout,
            waited_ns: Some(waited_ns),
            rnr_timer: None,
        }
    }

    #[test]
    fn nearest_k_from_the_spec_table() {
        // 4.096 µs × 2^k: k = 10 is 4.194 ms, k = 14 is 67.1 ms, k = 18 is 1.07 s.
        assert_eq!(nearest_k(4_200_000), 10);
        assert_eq!(nearest_k(4_194_304), 10);
        assert_eq!(nearest_k(67_108_864), 14);
        assert_eq!(nearest_k(1_073_741_824), 18);
        // 5.5 ms is nearer 4.194 ms (k = 10) than 8.389 ms (k = 11) on a log scale.
        assert_eq!(nearest_k(5_500_000), 10);
        assert_eq!(nearest_k(6_500_000), 11);
        assert_eq!(nearest_k(1), 1);
    }

    #[test]
    fn retries_that_double_are_backoff_and_the_shortest_is_the_timeout() {
        let mut c = Causes::default();
        for wait in [4_200_000, 8_400_000, 16_800_000] {
            c.book(timeout(wait), 7, None);
        }
        assert_eq!(c.count(Cause::Timeout), 3);
        assert_eq!(c.max_retries, 3);
        assert_eq!(c.backoff(), Some(true));
        assert_eq!(c.inferred_timeout(), Some((4_194_304, 10)));
        assert_eq!(c.wait_ns, 29_400_000);
    }

    #[test]
    fn steady_retries_are_not_backoff() {
        let mut c = Causes::default();
        for wait in [4_200_000, 4_200_000] {
            c.book(timeout(wait), 7, None);
        }
        assert_eq!(c.backoff(), Some(false));
        // Timeouts of different PSNs are no retries of one.
        let mut c = Causes::default();
        c.book(timeout(4_200_000), 7, None);
        c.book(timeout(8_400_000), 9, None);
        assert_eq!(c.backoff(), None);
        assert_eq!(c.max_retries, 1);
    }
}
