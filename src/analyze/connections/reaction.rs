//! How a sender's rate answers the CNPs it gets (DCQCN's reaction point): the payload it
//! sent on the QP in the [`WINDOW_NS`] before each CNP and in the [`WINDOW_NS`] after.
//!
//! The before-window comes from a small ring of the latest requests, so a CNP costs at most
//! [`RING`] steps and a request one store. The after-window cannot be known when the CNP
//! arrives: it is closed lazily by the first request past its end (or by the capture's end).
//! The ring is allocated once per direction, at its first CE mark or the first CNP to its
//! sender, so a capture without congestion pays nothing for it.

use super::super::sketch::Sketch;

/// Each side of a CNP the rate is measured over: DCQCN's rate-increase timer is 55 µs on
/// common NICs, so 50 µs shows the cut before the first recovery step.
pub const WINDOW_NS: u64 = 50_000;

/// Requests remembered for the before-window: 2 KiB per direction with CE marks or CNPs.
/// More than this in 50 µs (over 2.5 M requests/s, 100 Gb/s of 4 KiB packets) shorten the
/// window to what the ring holds, which the rate divides by.
const RING: usize = 128;

/// CNPs whose after-window is still open: CNPs closer than [`WINDOW_NS`] overlap. A CNP
/// beyond these loses its sample (the oldest is dropped).
const OPEN: usize = 4;

/// `after / before` is kept in millionths: the sketch holds integers.
pub const RATIO_SCALE: f64 = 1e6;

#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    ts: u64,
    /// Payload sent since the ring was made, before this request.
    total_before: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Open {
    cnp_ts: u64,
    /// `total` when the CNP arrived.
    total: u64,
    before_bps: Option<u64>,
}

#[derive(Debug, Clone)]
struct RateRing {
    sent: [Sent; RING],
    head: u8,
    len: u8,
    /// Every request from this time on is in the ring (it was made then, or the oldest
    /// left).
    known_from: u64,
    /// Requests left the ring: a window it no longer covers is shortened to what it
    /// holds, still [`RING`] requests' worth. A ring made late covers too little.
    overflowed: bool,
    total: u64,
    open: [Open; OPEN],
    open_len: u8,
}

/// What the CNPs to a direction's sender did to its rate. Boxed and made at the first CE
/// mark or CNP, so a direction that has neither costs one pointer.
#[derive(Debug, Clone, Default)]
pub struct Reaction {
    state: Option<Box<State>>,
}

#[derive(Debug, Clone)]
struct State {
    ring: RateRing,
    before_bps: Sketch,
    after_bps: Sketch,
    /// After over before, in millionths ([`RATIO_SCALE`]).
    rate_cut: Sketch,
    /// Whether a CNP came, and how long after the latest CE mark before it the first one
    /// came: what the flow of CNPs is summarised by, kept here rather than in every end.
    cnp_seen: bool,
    first_ce_to_cnp_ns: Option<u64>,
}

/// The sketches of a direction without a [`State`].
static NONE: std::sync::LazyLock<Sketch> = std::sync::LazyLock::new(Sketch::default);

fn bps(bytes: u64, ns: u64) -> u64 {
    (u128::from(bytes) * 8 * 1_000_000_000 / u128::from(ns.max(1))) as u64
}

impl RateRing {
    fn new(ts: u64) -> Self {
        RateRing {
            sent: [Sent::default(); RING],
            head: 0,
            len: 0,
            known_from: ts,
            overflowed: false,
            total: 0,
            open: [Open::default(); OPEN],
            open_len: 0,
        }
    }

    fn push(&mut self, ts: u64, payload: u32) {
        if usize::from(self.len) == RING {
            // The oldest leaves: what was sent at its time is no longer all known.
            let oldest = self.sent[usize::from(self.head)].ts;
            self.known_from = self.known_from.max(oldest + 1);
            self.overflowed = true;
            self.head = (self.head + 1) % RING as u8;
            self.len -= 1;
        }
        let slot = (usize::from(self.head) + usize::from(self.len)) % RING;
        self.sent[slot] = Sent {
            ts,
            total_before: self.total,
        };
        self.len += 1;
        self.total += u64::from(payload);
    }

    /// Payload sent before `t`, for `t` at or after `known_from`.
    fn total_before(&self, t: u64) -> u64 {
        let mut total = self.total;
        for i in (0..usize::from(self.len)).rev() {
            let s = self.sent[(usize::from(self.head) + i) % RING];
            if s.ts < t {
                break;
            }
            total = s.total_before;
        }
        total
    }

    /// The rate over `[ts - WINDOW_NS, ts)`, or over its part since `known_from` when the
    /// ring overflowed; none when the ring was made within the window.
    fn before(&self, ts: u64) -> Option<u64> {
        let wanted = ts.saturating_sub(WINDOW_NS);
        if wanted < self.known_from && !self.overflowed {
            return None;
        }
        let start = wanted.max(self.known_from);
        (start < ts).then(|| bps(self.total_before(ts) - self.total_before(start), ts - start))
    }
}

impl State {
    fn new(ts: u64) -> Box<Self> {
        Box::new(State {
            ring: RateRing::new(ts),
            before_bps: Sketch::default(),
            after_bps: Sketch::default(),
            rate_cut: Sketch::default(),
            cnp_seen: false,
            first_ce_to_cnp_ns: None,
        })
    }

    /// Closes the after-windows that ended by `now`: no request before `now` is yet to come.
    fn close(&mut self, now: u64) {
        let ring = &mut self.ring;
        let mut closed = 0;
        for open in &ring.open[..usize::from(ring.open_len)] {
            let end = open.cnp_ts.saturating_add(WINDOW_NS);
            if end > now {
                break;
            }
            let after = bps(ring.total_before(end) - open.total, WINDOW_NS);
            self.after_bps.add(after);
            if let Some(before) = open.before_bps {
                self.before_bps.add(before);
                if before > 0 {
                    let ratio = u128::from(after) * RATIO_SCALE as u128 / u128::from(before);
                    self.rate_cut.add(ratio as u64);
                }
            }
            closed += 1;
        }
        if closed > 0 {
            ring.open.copy_within(closed..usize::from(ring.open_len), 0);
            ring.open_len -= closed as u8;
        }
    }
}

impl Reaction {
    /// A request of `payload` bytes sent at `ts`; closes the after-windows it passes.
    #[inline]
    pub fn request(&mut self, ts: u64, payload: u32) {
        let Some(state) = &mut self.state else { return };
        if state.ring.open_len > 0 {
            state.close(ts);
        }
        state.ring.push(ts, payload);
    }

    /// A CE mark on a request at `ts`, before [`Self::request`] books it: from here on the
    /// sender's rate is remembered.
    pub fn ce(&mut self, ts: u64) {
        self.state.get_or_insert_with(|| State::new(ts));
    }

    /// A CNP to the sender at `ts`, answering the CE mark at `last_ce`, if any.
    pub fn cnp(&mut self, ts: u64, last_ce: Option<u64>) {
        let state = self.state.get_or_insert_with(|| State::new(ts));
        if !state.cnp_seen {
            state.cnp_seen = true;
            state.first_ce_to_cnp_ns = last_ce.filter(|&ce| ce <= ts).map(|ce| ts - ce);
        }
        state.close(ts);
        let ring = &mut state.ring;
        let open = Open {
            cnp_ts: ts,
            total: ring.total_before(ts),
            before_bps: ring.before(ts),
        };
        if usize::from(ring.open_len) == OPEN {
            ring.open.copy_within(1.., 0);
            ring.open_len -= 1;
        }
        ring.open[usize::from(ring.open_len)] = open;
        ring.open_len += 1;
    }

    /// The capture ended at `end_ns`: after-windows it covers are closed, the rest dropped.
    pub fn finish(&mut self, end_ns: Option<u64>) {
        let Some(state) = &mut self.state else { return };
        if let Some(end) = end_ns {
            state.close(end);
        }
        state.ring.open_len = 0;
    }

    /// From the CE mark the first CNP answered (the latest before it) to that CNP.
    pub fn first_ce_to_cnp_ns(&self) -> Option<u64> {
        self.state.as_ref()?.first_ce_to_cnp_ns
    }

    /// The sender's rate in the window before each CNP, in bits per second.
    pub fn before_bps(&self) -> &Sketch {
        self.state.as_ref().map_or(&NONE, |s| &s.before_bps)
    }

    /// The sender's rate in the window after each CNP, in bits per second.
    pub fn after_bps(&self) -> &Sketch {
        self.state.as_ref().map_or(&NONE, |s| &s.after_bps)
    }

    /// After over before per CNP, in millionths ([`RATIO_SCALE`]).
    pub fn rate_cut(&self) -> &Sketch {
        self.state.as_ref().map_or(&NONE, |s| &s.rate_cut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 B every `step` ns from `from` to `to` (excluded).
    fn send(r: &mut Reaction, from: u64, to: u64, step: u64) {
        let mut ts = from;
        while ts < to {
            r.request(ts, 100);
            ts += step;
        }
    }

    #[test]
    fn a_ring_made_inside_the_window_gives_no_before_rate() {
        let mut r = Reaction::default();
        r.ce(10_000);
        send(&mut r, 10_000, 20_000, 1_000);
        r.cnp(20_000, None);
        send(&mut r, 20_000, 80_000, 1_000);
        // After [20 µs, 70 µs): 50 requests of 100 B = 5000 B in 50 µs = 800 Mb/s.
        assert_eq!(r.after_bps().max(), Some(800_000_000));
        assert_eq!(r.before_bps().count(), 0);
        assert_eq!(r.rate_cut().count(), 0);
    }

    #[test]
    fn a_full_ring_shortens_the_window_to_what_it_holds() {
        let mut r = Reaction::default();
        r.ce(0);
        // One every 100 ns: 500 in the window, more than the ring holds.
        send(&mut r, 0, 100_000, 100);
        r.cnp(100_000, None);
        // The ring holds the last RING requests, 100 ns apart, the newest 100 ns before the
        // CNP: the window starts 1 ns after the one that left, (RING + 1) * 100 ns before
        // the CNP, and holds RING x 100 B.
        let ns = (RING as u64 + 1) * 100 - 1;
        let want = (RING as u64 * 100 * 8 * 1_000_000_000) / ns;
        send(&mut r, 100_000, 200_000, 200);
        // After: 250 requests of 100 B in 50 µs = 4 Gb/s; the cut is 4 Gb/s over `want`.
        assert_eq!(r.before_bps().max(), Some(want));
        assert_eq!(r.after_bps().max(), Some(4_000_000_000));
        assert_eq!(r.rate_cut().count(), 1);
    }

    #[test]
    fn the_capture_end_closes_a_window_it_covers_and_drops_one_it_does_not() {
        let mut r = Reaction::default();
        r.cnp(0, None);
        r.request(1_000, 100);
        r.cnp(30_000, None);
        // The sender stops: at 60 µs the first window is over, the second is not.
        r.finish(Some(60_000));
        assert_eq!(r.after_bps().count(), 1);
        assert_eq!(r.after_bps().max(), Some(16_000_000));
    }

    #[test]
    fn the_first_cnp_is_timed_from_the_mark_it_answered() {
        let mut r = Reaction::default();
        assert_eq!(r.first_ce_to_cnp_ns(), None);
        r.ce(10_000);
        // Marks at 10 and 40 µs: the CNP at 41.3 µs answers the one at 40.
        r.cnp(41_300, Some(40_000));
        r.cnp(93_300, Some(92_000));
        assert_eq!(r.first_ce_to_cnp_ns(), Some(1_300));
        // A first CNP with no mark before it has no delay, and a later one gives none.
        let mut r = Reaction::default();
        r.cnp(5_000, None);
        r.cnp(9_000, Some(8_000));
        assert_eq!(r.first_ce_to_cnp_ns(), None);
    }
}
