//! The state of one direction of a connection, split by where its packets arrive: the
//! requests at the responder's end ([`Requests`]) and the responses at the requester's end
//! ([`Responses`]). `a_to_b` is B's `Requests` with A's `Responses`.

use super::super::capture_loss::CaptureLoss;
use super::super::key::{Cause, Episode, FrameRef, SeqDetail, Verdict};
use super::super::priorities::Class;
use super::super::psn;
use super::super::sketch::Sketch;
use super::causes::{Causes, TIMEOUT_FLOOR_NS};
use super::reaction::Reaction;
use super::stall::Stalls;

/// Idle gaps longer than this do not count as active time for goodput.
pub const IDLE_NS: u64 = 1_000_000;

/// Requests remembered for RTT and READ latency until acknowledged; more in flight lose
/// their samples but nothing else.
const OUTSTANDING: usize = 8;

/// Operations counted per direction, as the JSON `messages` object names them.
pub const OPS: [&str; 9] = [
    "send",
    "send_imm",
    "send_inv",
    "write",
    "write_imm",
    "read",
    "atomic",
    "flush",
    "other",
];

/// Set in [`Requests`]' `last_counted` above the 24-bit PSN once a message was counted.
const COUNTED: u32 = 1 << 24;

/// NAK codes as `naks` names them.
pub const NAK_CODES: [&str; 6] = [
    "psn_sequence_error",
    "invalid_request",
    "remote_access_error",
    "remote_operational_error",
    "invalid_rd_request",
    "reserved",
];

#[derive(Debug, Clone, Copy, Default)]
struct Outstanding {
    psn: u32,
    /// The last PSN the request consumes (a READ consumes one per response packet).
    end: u32,
    ts: u64,
    retransmitted: bool,
    /// READ or atomic: responses carry data and are timed as latency.
    fetch: bool,
    atomic: bool,
    answered: bool,
    /// A READ counted before the PMTU was known: only its responses tell its span.
    uncertain: bool,
}

/// A's requests as seen arriving at B's QP.
#[derive(Debug, Clone, Default)]
pub struct Requests {
    pub packets: u64,
    pub payload_bytes: u64,
    /// The largest payload: a lower bound on the path MTU when nothing else tells it.
    pub max_payload: u32,
    /// Payload of packets sent for the first time: what goodput counts.
    pub new_payload_bytes: u64,
    pub messages: [u32; OPS.len()],
    pub message_bytes: Sketch,
    message_so_far: u64,
    /// The highest PSN at which a message was counted (its FIRST, LAST or ONLY), with
    /// [`COUNTED`] set once one was: a packet at or below it is a retransmission of a
    /// message already counted. Not an `Option`, which would cost every end 8 bytes.
    last_counted: u32,
    /// The message counted at its FIRST whose end has not been seen yet: its place in
    /// `messages`, which its end corrects.
    open_message: Option<u8>,
    pub first_ts: Option<u64>,
    pub last_ts: Option<u64>,
    pub active_ns: u64,
    pub psn_gaps: u32,
    pub missing_psns: u64,
    pub retransmitted: u32,
    pub go_back_n: u32,
    pub go_back_0: u32,
    pub nak_to_retx: Sketch,
    /// The retransmission episodes by cause, and what they cost.
    pub causes: Causes,
    pub max_outstanding_psns: u32,
    pub ecn_ce: u32,
    pub fecn: u32,
    pub becn: u32,
    /// The latest CE mark not yet answered by a CNP: the one a CNP answers, as the
    /// notification point sends its CNP for the mark that arrived last.
    pub last_ce_ts: Option<u64>,
    /// CE marks since the last CNP to the sender: what that CNP answers.
    pub ce_since_cnp: u32,
    /// The sender's rate around each CNP it got.
    pub reaction: Reaction,
    pub seq: Sequence,
    /// What the last request that was not simply new did.
    pub detail: SeqDetail,
    /// Per-interval counts (`--interval`) and the report's graphs (`--html`); boxed, as
    /// most analyses ask for neither.
    pub series: Option<Box<super::Series>>,
    /// What the capture missed of this direction, told apart from what the network lost:
    /// `psn_gaps` and `missing_psns` count only the gaps it decided were lost.
    pub capture: CaptureLoss,
    /// Silences with requests outstanding, and time with none.
    pub stalls: Stalls,
    /// The priority of the direction's request flow (its first packet's), looked up when a
    /// silence ends or the capture does, rather than paid for by every packet.
    pub class: Option<Class>,
    ring: [Outstanding; OUTSTANDING],
    ring_head: u8,
    ring_len: u8,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Sequence {
    pub started: bool,
    /// While the end has no peer: requests came since its listing among the unpaired ends
    /// was last brought up to date ([`super::ConnectionTable`] does that when a response
    /// looks there, not for every request). Here, it takes no room: `started`'s padding.
    pub unpaired_stale: bool,
    pub first_psn: u32,
    pub highest: u32,
    pub previous: u32,
    pub next_lo: u32,
    pub next_hi: u32,
    /// The previous request's PSN was sent here: where a go-back jumps from.
    pub previous_at: FrameRef,
    /// PSN of the FIRST or ONLY packet of the message being sent.
    pub message_start: u32,
    /// Everything before this PSN was acknowledged.
    pub acked_to: Option<u32>,
}

/// B's responses as seen arriving at A's QP, and the CNPs B sent A.
#[derive(Debug, Clone, Default)]
pub struct Responses {
    pub packets: u64,
    pub payload_bytes: u64,
    pub max_payload: u32,
    pub naks: [u32; NAK_CODES.len()],
    pub rnr_naks: u32,
    pub fecn: u32,
    pub becn: u32,
    pub last_nak: Option<Nak>,
    pub rtt: Sketch,
    pub read_first: Sketch,
    pub read_last: Sketch,
    pub atomic: Sketch,
    pub cnps: u32,
    pub last_cnp_ts: Option<u64>,
    pub cnp_interval: Sketch,
    pub ce_to_cnp: Sketch,
    /// CE marks each CNP answered (those since the CNP before).
    pub ce_per_cnp: Sketch,
}

/// The CE marks a CNP answers: the latest one's time, and how many since the last CNP.
#[derive(Debug, Clone, Copy)]
pub struct Answered {
    pub last_ce_ts: Option<u64>,
    pub marks: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct Nak {
    pub psn: u32,
    pub at: FrameRef,
    pub rnr: bool,
    /// A PSN sequence error: the responder expected `psn`, and the requester must resend
    /// from it.
    pub sequence: bool,
    /// An RNR NAK's timer code (IBA table 45).
    pub timer: u8,
}

pub fn op_index(opcode: u8) -> usize {
    match opcode & 0x1f {
        0x00..=0x02 | 0x04 => 0,
        0x03 | 0x05 => 1,
        0x16 | 0x17 => 2,
        0x06..=0x08 | 0x0a => 3,
        0x09 | 0x0b => 4,
        0x0c => 5,
        0x13 | 0x14 | 0x1d => 6,
        0x1c => 7,
        _ => 8,
    }
}

/// FIRST or ONLY: the packet that starts a message.
fn starts_message(opcode: u8) -> bool {
    matches!(
        opcode & 0x1f,
        0x00 | 0x04 | 0x05 | 0x06 | 0x0a | 0x0b | 0x0c | 0x13 | 0x14 | 0x17 | 0x1c | 0x1d
    )
}

/// LAST or ONLY: the packet that ends a message.
fn ends_message(opcode: u8) -> bool {
    matches!(
        opcode & 0x1f,
        0x02..=0x05 | 0x08..=0x0c | 0x13 | 0x14 | 0x16 | 0x17 | 0x1c | 0x1d
    )
}

/// A request's shape, as the connection knows it when it arrives.
#[derive(Debug, Clone, Copy)]
pub struct RequestInfo {
    pub psn: u32,
    pub opcode: u8,
    pub payload: u32,
    pub at: FrameRef,
    /// PSNs consumed: at least and at most (differ for a READ of unknown PMTU).
    pub consume: (u32, u32),
    /// Bytes the message moves when the header says (READ length, atomic 8).
    pub fetch_len: Option<u32>,
    pub atomic: bool,
}

impl Requests {
    fn touch(&mut self, ts: Option<u64>) {
        let Some(ts) = ts else { return };
        if let Some(last) = self.last_ts {
            let gap = ts.saturating_sub(last);
            if gap <= IDLE_NS {
                self.active_ns += gap;
            }
        }
        self.first_ts.get_or_insert(ts);
        self.last_ts = Some(self.last_ts.map_or(ts, |l| l.max(ts)));
    }

    /// Before a packet of this direction at `ts`: the start of the silence it ends, when
    /// requests were outstanding through a silence of at least `floor_ns`. Time with none
    /// outstanding is idle. Both are known only once an acknowledgement was seen.
    #[inline]
    pub fn silence_before(&mut self, ts: Option<u64>, floor_ns: u64) -> Option<u64> {
        let (ts, last, acked) = (ts?, self.last_ts?, self.seq.acked_to?);
        let gap = ts.checked_sub(last)?;
        if psn::diff(self.seq.highest, acked) >= 0 {
            (gap >= floor_ns).then_some(last)
        } else {
            self.stalls.idle_ns += gap;
            None
        }
    }

    /// Whether a response for PSN `p` answers requests past the highest the capture saw:
    /// they were sent, and the capture missed them. A NAK's PSN is the first it did not
    /// take, so it answers only those before it.
    pub fn answers_unseen(&self, p: u32, nak: bool) -> bool {
        let through = if nak { psn::add(p, psn::PSN_MASK) } else { p };
        self.seq.started && psn::diff(through, self.seq.highest) > 0
    }

    /// A response payload (READ data) moved for this direction, or a response's time.
    pub fn touch_response(&mut self, ts: Option<u64>, payload: u32) {
        self.touch(ts);
        self.new_payload_bytes += u64::from(payload);
    }

    /// A CNP to the sender of these requests: the marks it answers, which the next CNP
    /// no longer answers.
    pub fn answered_by_cnp(&mut self, ts: Option<u64>) -> Answered {
        if let Some(ts) = ts {
            self.reaction.cnp(ts, self.last_ce_ts);
        }
        Answered {
            last_ce_ts: self.last_ce_ts.take(),
            marks: std::mem::take(&mut self.ce_since_cnp),
        }
    }

    /// The `--interval` timeline, when asked for.
    pub fn timeline(&self) -> Option<&super::Timeline> {
        self.series.as_ref()?.timeline.as_ref()
    }

    pub fn goodput_bps(&self) -> Option<u64> {
        (self.active_ns > 0).then(|| {
            (u128::from(self.new_payload_bytes) * 8 * 1_000_000_000 / u128::from(self.active_ns))
                as u64
        })
    }

    /// Books one request; `nak` is the last NAK the requester got, to tell go-back-N from
    /// go-back-0 and to time the retransmission.
    pub fn request(&mut self, r: RequestInfo, cm_start: Option<u32>, nak: Option<Nak>) -> Verdict {
        self.packets += 1;
        self.capture.request_seen();
        self.payload_bytes += u64::from(r.payload);
        self.max_payload = self.max_payload.max(r.payload);
        let ts = r.at.ts_ns;
        self.touch(ts);
        let p = r.psn;
        let seq = &mut self.seq;
        let (expected, previous, previous_at) = match cm_start {
            Some(start) if !seq.started => (start, start, r.at),
            _ => (seq.next_hi, seq.previous, seq.previous_at),
        };
        let mut missing = 0u64;
        let mut episode = None;
        let verdict = if !seq.started {
            seq.started = true;
            seq.first_psn = p;
            if let Some(start) = cm_start {
                let d = psn::diff(p, start);
                if d > 0 {
                    missing = d as u64;
                }
            }
            if missing > 0 {
                Verdict::Gap
            } else {
                Verdict::New
            }
        } else if psn::diff(p, seq.highest) <= 0 {
            if psn::diff(p, seq.previous) < 0 {
                match nak.filter(|n| psn::diff(n.psn, p) >= 0) {
                    // Retrying after "receiver not ready" is flow control, not loss recovery.
                    Some(n) if n.rnr && n.psn == p => Verdict::Retransmitted,
                    Some(n) if !n.rnr && n.psn != p && starts_message(r.opcode) => Verdict::GoBack0,
                    _ => Verdict::GoBackN,
                }
            } else {
                Verdict::Retransmitted
            }
        } else {
            let beyond = psn::diff(p, seq.next_hi);
            if beyond > 0 {
                missing = beyond as u64;
                Verdict::Gap
            } else {
                Verdict::New
            }
        };
        match verdict {
            Verdict::New | Verdict::Gap => {
                self.causes.new_request();
                if missing > 0 {
                    // Counted as a gap only once the sender is seen repairing it.
                    let acked_to = self.seq.acked_to;
                    self.capture.gap(expected, missing, p, r.at, acked_to);
                }
                let seq = &mut self.seq;
                seq.highest = psn::add(p, r.consume.0 - 1);
                seq.next_lo = psn::add(p, r.consume.0);
                seq.next_hi = psn::add(p, r.consume.1);
                self.new_payload_bytes += u64::from(r.payload);
                self.book_message(r);
                self.remember(r);
            }
            Verdict::Retransmitted | Verdict::GoBackN | Verdict::GoBack0 => {
                episode = self.episode(verdict, p, ts, nak);
                self.retransmitted += 1;
                self.capture
                    .retransmitted(p, verdict != Verdict::Retransmitted);
                match verdict {
                    Verdict::GoBackN => self.go_back_n += 1,
                    Verdict::GoBack0 => self.go_back_0 += 1,
                    _ => {}
                }
                if verdict != Verdict::Retransmitted
                    && let (Some(n), Some(now)) = (nak.filter(|n| !n.rnr), ts)
                    && let Some(then) = n.at.ts_ns.filter(|&t| t <= now)
                    && psn::diff(n.psn, p) >= 0
                {
                    self.nak_to_retx.add(now - then);
                }
                self.mark_retransmitted(p, ts);
            }
        }
        self.count_message(r);
        self.seq.previous = p;
        self.seq.previous_at = r.at;
        if starts_message(r.opcode) {
            self.seq.message_start = p;
        }
        if let Some(acked) = self.seq.acked_to {
            let outstanding = psn::diff(self.seq.highest, acked) + 1;
            self.max_outstanding_psns = self.max_outstanding_psns.max(outstanding.max(0) as u32);
        }
        if verdict != Verdict::New {
            let answered = matches!(verdict, Verdict::GoBackN | Verdict::GoBack0);
            self.detail = SeqDetail {
                expected,
                missing,
                previous,
                previous_at,
                nak: nak
                    .filter(|n| answered && !n.rnr && psn::diff(n.psn, p) >= 0)
                    .map(|n| n.at),
                episode,
            };
        }
        verdict
    }

    /// Counts a message the first time the capture shows its FIRST or its end, whatever
    /// the packet's verdict, so that a message whose FIRST the capture saw only as a
    /// retransmission, or missed, is still one message. Its kind is the end's: only the
    /// LAST or ONLY packet says whether the sender posted it with an immediate or an
    /// invalidate. A message whose end the capture missed keeps its FIRST's kind.
    fn count_message(&mut self, r: RequestInfo) {
        let (starts, ends) = (starts_message(r.opcode), ends_message(r.opcode));
        let counted = self.last_counted;
        if !(starts || ends) || (counted & COUNTED != 0 && psn::diff(r.psn, counted) <= 0) {
            return;
        }
        self.last_counted = COUNTED | r.psn;
        let kind = op_index(r.opcode);
        self.messages[kind] += 1;
        match (starts, ends) {
            (true, false) => self.open_message = Some(kind as u8),
            (false, true) => {
                // The end of the message counted at its FIRST, if it was.
                if let Some(first) = self.open_message.take() {
                    self.messages[usize::from(first)] -= 1;
                }
            }
            _ => self.open_message = None,
        }
    }

    fn book_message(&mut self, r: RequestInfo) {
        if starts_message(r.opcode) {
            self.message_so_far = 0;
        }
        self.message_so_far += u64::from(r.fetch_len.unwrap_or(r.payload));
        if ends_message(r.opcode) {
            self.message_bytes.add(self.message_so_far);
            self.message_so_far = 0;
        }
    }

    fn remember(&mut self, r: RequestInfo) {
        let Some(ts) = r.at.ts_ns else { return };
        if usize::from(self.ring_len) == OUTSTANDING {
            // The oldest loses its sample.
            self.ring_head = (self.ring_head + 1) % OUTSTANDING as u8;
            self.ring_len -= 1;
        }
        let slot = (usize::from(self.ring_head) + usize::from(self.ring_len)) % OUTSTANDING;
        self.ring[slot] = Outstanding {
            psn: r.psn,
            end: psn::add(r.psn, r.consume.0 - 1),
            ts,
            retransmitted: false,
            fetch: r.fetch_len.is_some(),
            atomic: r.atomic,
            answered: false,
            uncertain: r.consume.0 != r.consume.1,
        };
        self.ring_len += 1;
    }

    /// Marks PSN `p` sent again at `ts`: a retransmitted request gives no RTT sample, so
    /// its time becomes that of its last transmission, which a later timeout waits from.
    fn mark_retransmitted(&mut self, p: u32, ts: Option<u64>) {
        for i in 0..usize::from(self.ring_len) {
            let slot = (usize::from(self.ring_head) + i) % OUTSTANDING;
            if self.ring[slot].psn == p {
                self.ring[slot].retransmitted = true;
                if let Some(ts) = ts {
                    self.ring[slot].ts = ts;
                }
            }
        }
    }

    /// When PSN `p` was last sent, if it is still remembered as outstanding.
    fn last_sent(&self, p: u32) -> Option<u64> {
        (0..usize::from(self.ring_len))
            .map(|i| &self.ring[(usize::from(self.ring_head) + i) % OUTSTANDING])
            .find(|o| psn::diff(p, o.psn) >= 0 && psn::diff(o.end, p) >= 0)
            .map(|o| o.ts)
    }

    /// Classifies and books the retransmission episode request `p` starts at `ts`, if it
    /// starts one: a go-back always does, a single retransmission unless it goes on with
    /// the one before. Called before `seq.previous` moves to `p`.
    fn episode(
        &mut self,
        verdict: Verdict,
        p: u32,
        ts: Option<u64>,
        nak: Option<Nak>,
    ) -> Option<Episode> {
        let single = verdict == Verdict::Retransmitted;
        if self.causes.continues(single, p, self.seq.previous) {
            return None;
        }
        // A go-back consumes the NAK it answers (the table forgets it); a single
        // retransmission leaves it, so a later one must not answer it again.
        let nak = nak
            .filter(|n| psn::diff(n.psn, p) >= 0)
            .filter(|n| !(single && self.causes.answered(n.at)));
        let last_request = self.seq.previous_at.ts_ns;
        let (cause, since) = match nak {
            Some(n) => (if n.rnr { Cause::Rnr } else { Cause::Nak }, n.at.ts_ns),
            None => {
                let silence = ts
                    .zip(last_request)
                    .map(|(now, then)| now.saturating_sub(then));
                let cause = if silence.is_some_and(|s| s >= TIMEOUT_FLOOR_NS) {
                    Cause::Timeout
                } else {
                    Cause::Implied
                };
                (cause, self.last_sent(p).or(last_request))
            }
        };
        let episode = Episode {
            cause,
            waited_ns: ts
                .zip(since)
                .filter(|(now, then)| now >= then)
                .map(|(now, then)| now - then),
            rnr_timer: nak.filter(|n| n.rnr).map(|n| n.timer),
        };
        self.causes.book(episode, p, nak.map(|n| n.at));
        Some(episode)
    }

    fn pop(&mut self) {
        self.ring_head = (self.ring_head + 1) % OUTSTANDING as u8;
        self.ring_len -= 1;
    }

    fn front(&mut self) -> Option<&mut Outstanding> {
        (self.ring_len > 0).then(|| &mut self.ring[usize::from(self.ring_head)])
    }

    /// A response with PSN `p` from the responder; returns RTT and latency samples into
    /// `rsp`, and the RTT sample it took, if any. A NAK acknowledges only what precedes its
    /// PSN.
    pub fn acknowledge(
        &mut self,
        p: u32,
        opcode: u8,
        at: FrameRef,
        nak: bool,
        rsp: &mut Responses,
    ) -> Option<u64> {
        let ts = at.ts_ns;
        if nak {
            // `rsp` booked this packet's NAK just before.
            match rsp.last_nak.filter(|n| n.at == at && n.psn == p) {
                Some(n) if n.sequence => self.capture.nak(p, at),
                _ => self.capture.acknowledged(psn::add(p, psn::PSN_MASK), at),
            }
        } else {
            self.capture.acknowledged(p, at);
            if matches!(opcode & 0x1f, 0x0d..=0x10) {
                self.capture.read_response(p, opcode, at);
            }
        }
        let acked_to = if nak { p } else { psn::add(p, 1) };
        if self
            .seq
            .acked_to
            .is_none_or(|old| psn::diff(acked_to, old) > 0)
        {
            self.seq.acked_to = Some(acked_to);
        }
        while let Some(front) = self.front() {
            // A READ's end is a guess while the PMTU is unknown: its own responses end it.
            let own_response = front.fetch && matches!(opcode & 0x1f, 0x0d..=0x10);
            if psn::diff(front.end, p) < 0 && !own_response {
                self.pop();
            } else {
                break;
            }
        }
        if nak {
            return None;
        }
        let now = ts?;
        let front = self.front()?;
        if psn::diff(p, front.psn) < 0 {
            return None;
        }
        let elapsed = now.saturating_sub(front.ts);
        let clean = !front.retransmitted;
        let mut done = !front.fetch;
        let mut sample = None;
        if p == front.psn && !front.answered {
            front.answered = true;
            if clean {
                rsp.rtt.add(elapsed);
                sample = Some(elapsed);
                if front.atomic {
                    rsp.atomic.add(elapsed);
                } else if front.fetch {
                    rsp.read_first.add(elapsed);
                }
            }
        }
        let front_fetch = front.fetch;
        let front_atomic = front.atomic;
        let front_psn = front.psn;
        let front_uncertain = front.uncertain;
        if front_fetch && matches!(opcode & 0x1f, 0x0f | 0x10 | 0x12) {
            if clean && !front_atomic {
                rsp.read_last.add(elapsed);
            }
            done = true;
            // The last response tells how many PSNs the READ took, which its request could
            // not say when the PMTU was unknown: the next request is expected exactly.
            let held = psn::diff(p, front_psn) + 1;
            self.max_outstanding_psns = self.max_outstanding_psns.max(held.max(0) as u32);
            // A span computed from a known PMTU (`--pmtu` included) stands: a response that
            // contradicts it shows up as a gap, as the warning about `--pmtu` says.
            if front_uncertain && self.seq.previous == front_psn {
                self.seq.highest = p;
                self.seq.next_lo = psn::add(p, 1);
                self.seq.next_hi = self.seq.next_lo;
            }
        }
        if done {
            self.pop();
        }
        sample
    }
}

impl Responses {
    pub fn nak(&mut self, code_index: usize, psn: u32, at: FrameRef) {
        self.naks[code_index.min(NAK_CODES.len() - 1)] += 1;
        self.last_nak = Some(Nak {
            psn,
            at,
            rnr: false,
            sequence: code_index == 0,
            timer: 0,
        });
    }

    pub fn rnr(&mut self, psn: u32, at: FrameRef, timer: u8) {
        self.rnr_naks += 1;
        self.last_nak = Some(Nak {
            psn,
            at,
            rnr: true,
            sequence: false,
            timer,
        });
    }

    /// A CNP to the sender; `answered` when the QP whose marks it answers is known.
    pub fn cnp(&mut self, ts: Option<u64>, answered: Option<Answered>) {
        self.cnps += 1;
        if let Some(a) = answered {
            self.ce_per_cnp.add(u64::from(a.marks));
        }
        if let Some(ts) = ts {
            if let Some(last) = self.last_cnp_ts.filter(|&l| l <= ts) {
                self.cnp_interval.add(ts - last);
            }
            self.last_cnp_ts = Some(ts);
            let last_ce = answered.and_then(|a| a.last_ce_ts);
            if let Some(ce) = last_ce.filter(|&c| c <= ts) {
                self.ce_to_cnp.add(ts - ce);
            }
        }
    }
}
