//! Capture loss told apart from network loss. Sniffers such as `ibdump` drop packets in
//! bursts without saying so; a PSN the capture skipped is network loss only when the sender
//! had to repair it (a NAK, a retransmission, a go-back). When the responder acknowledged it
//! instead (an ACK, coalesced ACK, READ response or atomic ACK covering it), it was
//! delivered and only the capture missed it, as Zeek's `capture_loss` reasons for TCP.
//!
//! The verdict comes later than the gap, so each request direction keeps its open gap runs
//! until an answer decides them; what is still open when the capture ends is unconfirmed.

use super::key::{FlowKey, FrameRef};
use super::psn;

/// Gap runs a direction keeps undecided at once; the oldest beyond that is given up as
/// unconfirmed, so a capture that drops without end cannot grow the state.
const OPEN_RUNS: usize = 16;

/// A READ response this far past the expected one is no continuation of the same READ.
const RESPONSE_WINDOW: i32 = 1 << 16;

/// PSNs a request direction skipped, waiting for what tells their fate.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// The first PSN not decided yet, and the last of the run.
    lo: u32,
    end: u32,
    /// The request that showed the gap, and what it expected: the `psn_gap` anomaly if the
    /// run turns out lost.
    pub psn: u32,
    pub at: FrameRef,
}

impl Run {
    /// The PSNs still undecided.
    pub fn missing(&self) -> u64 {
        psn::diff(self.end, self.lo) as u64 + 1
    }

    /// The first PSN still undecided: what the request expected, as far as loss goes.
    pub fn expected(&self) -> u32 {
        self.lo
    }
}

/// What became of a run, handed to the analyzer to report.
#[derive(Debug, Clone, Copy)]
pub enum Decided {
    /// The sender repaired it: network loss, a `psn_gap`.
    Lost(Run),
    /// Delivered but not captured: `count` PSNs from `first`, shown by the packet `at`.
    Missed {
        first: u32,
        count: u32,
        at: FrameRef,
        what: MissedWhat,
    },
}

/// Which packets the capture missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissedWhat {
    Requests,
    ReadResponses,
    Retransmissions,
}

impl MissedWhat {
    pub fn name(self) -> &'static str {
        match self {
            MissedWhat::Requests => "requests",
            MissedWhat::ReadResponses => "read_responses",
            MissedWhat::Retransmissions => "retransmissions",
        }
    }
}

/// A run of PSNs the capture missed in a flow, as the export's `events` lists them.
#[derive(Debug, Clone, Copy)]
pub struct MissedRun {
    pub flow: FlowKey,
    pub first: u32,
    pub count: u32,
    pub at: FrameRef,
    pub what: MissedWhat,
}

/// The counts a direction, a capture point or the whole capture reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Sequenced packets (requests and READ responses) in the capture.
    pub seen: u64,
    /// Sequenced packets that passed the capture point and are not in the capture.
    pub missed: u64,
    /// Skipped PSNs with neither evidence of delivery nor of repair.
    pub unconfirmed: u64,
}

/// `{missed, expected, ratio, unconfirmed}`, as the JSON `capture_loss` objects write it.
impl serde::Serialize for Counts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("missed", &self.missed)?;
        map.serialize_entry("expected", &self.expected())?;
        map.serialize_entry("ratio", &self.ratio())?;
        map.serialize_entry("unconfirmed", &self.unconfirmed)?;
        map.end()
    }
}

impl Counts {
    /// Every sequenced packet that passed the capture point.
    pub fn expected(&self) -> u64 {
        self.seen + self.missed
    }

    pub fn ratio(&self) -> f64 {
        match self.expected() {
            0 => 0.0,
            expected => self.missed as f64 / expected as f64,
        }
    }

    pub fn add(&mut self, other: &Counts) {
        self.seen += other.seen;
        self.missed += other.missed;
        self.unconfirmed += other.unconfirmed;
    }
}

/// One request direction's bookkeeping. Empty vectors allocate nothing: a direction that
/// never skips a PSN pays two counters and a few branches.
#[derive(Debug, Clone, Default)]
pub struct CaptureLoss {
    pub counts: Counts,
    /// Of `counts.missed`: READ responses and retransmissions, for the summary.
    pub read_responses: u32,
    pub retransmissions: u32,
    open: Vec<Run>,
    /// Decided since the analyzer last looked.
    pub decided: Vec<Decided>,
    /// A NAK asked for PSNs from this one on, and no retransmission has been seen since.
    awaiting_retransmission: Option<u32>,
    /// The next response PSN of the READ being answered.
    next_response: Option<u32>,
}

impl CaptureLoss {
    /// A request in the capture.
    #[inline]
    pub fn request_seen(&mut self) {
        self.counts.seen += 1;
    }

    /// A request skipped `missing` PSNs before `psn`, which `at` carried; everything before
    /// `acked_to` was acknowledged already (the ACK can be captured before the request
    /// after the gap).
    pub fn gap(
        &mut self,
        expected: u32,
        missing: u64,
        psn: u32,
        at: FrameRef,
        acked_to: Option<u32>,
    ) {
        if self.open.len() == OPEN_RUNS {
            let oldest = self.open.remove(0);
            self.counts.unconfirmed += oldest.missing();
        }
        let missing = u32::try_from(missing).unwrap_or(u32::MAX).max(1);
        self.open.push(Run {
            lo: expected,
            end: psn::add(expected, missing - 1),
            psn,
            at,
        });
        if let Some(acked_to) = acked_to {
            self.acknowledged(psn::add(acked_to, psn::PSN_MASK), at);
        }
    }

    /// A request carried PSN `p` again: the runs it falls in were repaired, and so lost.
    /// A go-back resends everything from `p`, which repairs every run that ends after it.
    pub fn retransmitted(&mut self, p: u32, go_back: bool) {
        self.awaiting_retransmission = None;
        if self.open.is_empty() {
            return;
        }
        let decided = &mut self.decided;
        self.open.retain(|run| {
            let repaired = psn::diff(p, run.end) <= 0 && (go_back || psn::diff(p, run.lo) >= 0);
            if repaired {
                decided.push(Decided::Lost(*run));
            }
            !repaired
        });
    }

    /// The responder answered through PSN `through` (an ACK, a READ response, an atomic
    /// ACK, or a NAK for the PSN after it), shown by `at`.
    #[inline]
    pub fn acknowledged(&mut self, through: u32, at: FrameRef) {
        if let Some(from) = self.awaiting_retransmission
            && psn::diff(through, from) >= 0
        {
            // The responder took PSNs it had asked for again, and the capture holds none
            // of their retransmissions.
            self.awaiting_retransmission = None;
            let count = psn::diff(through, from) as u32 + 1;
            self.counts.missed += u64::from(count);
            self.retransmissions += count;
            self.decided.push(Decided::Missed {
                first: from,
                count,
                at,
                what: MissedWhat::Retransmissions,
            });
        }
        if self.open.is_empty() {
            return;
        }
        let (counts, decided) = (&mut self.counts, &mut self.decided);
        self.open.retain_mut(|run| {
            if psn::diff(through, run.lo) < 0 {
                return true;
            }
            let last = if psn::diff(through, run.end) >= 0 {
                run.end
            } else {
                through
            };
            let count = psn::diff(last, run.lo) as u32 + 1;
            counts.missed += u64::from(count);
            decided.push(Decided::Missed {
                first: run.lo,
                count,
                at: run.at,
                what: MissedWhat::Requests,
            });
            run.lo = psn::add(last, 1);
            last != run.end
        });
    }

    /// A NAK (PSN sequence error) at `p`: the responder expected `p`, so a run holding it
    /// was lost, and the sender owes retransmissions from `p` on.
    pub fn nak(&mut self, p: u32, at: FrameRef) {
        self.acknowledged(psn::add(p, psn::PSN_MASK), at);
        self.awaiting_retransmission = Some(p);
        if self.open.is_empty() {
            return;
        }
        let decided = &mut self.decided;
        self.open.retain(|run| {
            let lost = psn::diff(p, run.lo) >= 0 && psn::diff(p, run.end) <= 0;
            if lost {
                decided.push(Decided::Lost(*run));
            }
            !lost
        });
    }

    /// A READ response with PSN `p` and opcode `op` in the capture. The responder sends
    /// a READ's responses in order, so one skipped within a READ the capture saw going on
    /// was sent, and missed.
    pub fn read_response(&mut self, p: u32, op: u8, at: FrameRef) {
        self.counts.seen += 1;
        let continues = matches!(op & 0x1f, 0x0e | 0x0f);
        if continues && let Some(next) = self.next_response {
            let skipped = psn::diff(p, next);
            if skipped > 0 && skipped < RESPONSE_WINDOW {
                let count = skipped as u32;
                self.counts.missed += u64::from(count);
                self.read_responses += count;
                self.decided.push(Decided::Missed {
                    first: next,
                    count,
                    at,
                    what: MissedWhat::ReadResponses,
                });
            }
        }
        // FIRST and MIDDLE are followed by more of the same READ; LAST and ONLY end it.
        self.next_response = matches!(op & 0x1f, 0x0d | 0x0e).then(|| psn::add(p, 1));
    }

    /// The capture ended: what is still open was neither acknowledged nor repaired.
    pub fn finish(&mut self) {
        for run in self.open.drain(..) {
            self.counts.unconfirmed += run.missing();
        }
        self.awaiting_retransmission = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(frame: u64) -> FrameRef {
        FrameRef {
            file: 0,
            frame,
            ts_ns: Some(frame),
        }
    }

    fn lost(loss: &CaptureLoss) -> Vec<(u32, u64)> {
        loss.decided
            .iter()
            .filter_map(|d| match d {
                Decided::Lost(run) => Some((run.expected(), run.missing())),
                Decided::Missed { .. } => None,
            })
            .collect()
    }

    #[test]
    fn an_acknowledged_gap_was_missed_by_the_capture() {
        let mut loss = CaptureLoss::default();
        loss.gap(10, 5, 15, at(1), None);
        loss.acknowledged(12, at(2));
        assert_eq!(loss.counts.missed, 3);
        loss.acknowledged(20, at(3));
        assert_eq!(loss.counts.missed, 5);
        assert!(lost(&loss).is_empty());
        loss.finish();
        assert_eq!(loss.counts.unconfirmed, 0);
    }

    #[test]
    fn a_nak_into_the_gap_makes_it_network_loss() {
        let mut loss = CaptureLoss::default();
        loss.gap(10, 1, 11, at(1), None);
        loss.gap(20, 2, 22, at(2), None);
        loss.nak(10, at(3));
        assert_eq!(lost(&loss), vec![(10, 1)]);
        // The go-back resends 10 on: the later run is repaired too.
        loss.retransmitted(10, true);
        assert_eq!(lost(&loss), vec![(10, 1), (20, 2)]);
        assert_eq!(loss.counts.missed, 0);
    }

    #[test]
    fn a_nak_acknowledges_what_precedes_it() {
        let mut loss = CaptureLoss::default();
        loss.gap(10, 2, 12, at(1), None);
        loss.nak(30, at(2));
        assert_eq!(loss.counts.missed, 2);
        assert!(lost(&loss).is_empty());
    }

    #[test]
    fn progress_after_a_nak_without_retransmission_means_it_was_missed() {
        let mut loss = CaptureLoss::default();
        loss.nak(2020, at(1));
        loss.acknowledged(2023, at(2));
        assert_eq!(loss.counts.missed, 4);
        assert_eq!(loss.retransmissions, 4);
        let mut seen = CaptureLoss::default();
        seen.nak(2020, at(1));
        seen.retransmitted(2020, true);
        seen.acknowledged(2023, at(2));
        assert_eq!(seen.counts.missed, 0);
    }

    #[test]
    fn read_responses_skipped_within_a_read_were_missed() {
        let mut loss = CaptureLoss::default();
        loss.read_response(500, 0x0d, at(1));
        loss.read_response(502, 0x0e, at(2));
        loss.read_response(503, 0x0f, at(3));
        // A new READ: its FIRST is no continuation.
        loss.read_response(507, 0x0d, at(4));
        loss.read_response(511, 0x0f, at(5));
        assert_eq!(loss.counts.missed, 4);
        assert_eq!(loss.counts.seen, 5);
    }

    #[test]
    fn open_runs_are_bounded_and_the_rest_unconfirmed() {
        let mut loss = CaptureLoss::default();
        for i in 0..(OPEN_RUNS as u32 + 2) {
            loss.gap(i * 10, 2, i * 10 + 2, at(u64::from(i)), None);
        }
        assert_eq!(loss.counts.unconfirmed, 4);
        loss.finish();
        assert_eq!(loss.counts.unconfirmed, 2 * (OPEN_RUNS as u64 + 2));
    }

    #[test]
    fn wraps_at_the_end_of_the_psn_space() {
        let mut loss = CaptureLoss::default();
        loss.gap(0xff_fffe, 3, 1, at(1), None);
        loss.acknowledged(5, at(2));
        assert_eq!(loss.counts.missed, 3);
    }

    #[test]
    fn an_ack_captured_before_the_gap_shows_counts_at_once() {
        let mut loss = CaptureLoss::default();
        loss.gap(10, 5, 15, at(1), Some(13));
        assert_eq!(loss.counts.missed, 3);
        loss.finish();
        assert_eq!(loss.counts.unconfirmed, 2);
    }
}
