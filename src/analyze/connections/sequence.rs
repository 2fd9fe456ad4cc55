//! What `analyze --html` draws of one direction of a connection, the way tcptrace draws a
//! TCP stream: every request as (time, PSN unwrapped past the 24-bit wrap), what the
//! responder acknowledged, and the marks that explain a stall (NAKs, CNPs, CE, gaps).
//!
//! A direction keeps at most [`MAX_POINTS`] points. When full, neighbouring points of the
//! same mark merge (a chart cannot show 4096 points apart on one screen anyway), the most
//! common marks first: plain new packets and ACKs give way long before a retransmission,
//! a NAK or a gap does.
//!
//! The points also carry what the goodput and RTT charts add up per interval (payload,
//! RTT samples), so a packet costs the report one push, not a second record elsewhere.

use super::super::psn;

/// Points kept per direction; 40 bytes each, so at most 160 KiB a direction.
pub const MAX_POINTS: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mark {
    New,
    Retransmitted,
    /// Retransmitted after the sender's ACK timer expired: no NAK asked for it.
    RetxTimeout,
    /// The responder's cumulative acknowledgement: everything before `psn + 1`.
    Ack,
    Nak,
    RnrNak,
    Cnp,
    Ce,
    /// A new request that skipped PSNs.
    Gap,
}

impl Mark {
    pub const ALL: [Mark; 9] = [
        Mark::New,
        Mark::Retransmitted,
        Mark::RetxTimeout,
        Mark::Ack,
        Mark::Nak,
        Mark::RnrNak,
        Mark::Cnp,
        Mark::Ce,
        Mark::Gap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mark::New => "new",
            Mark::Retransmitted => "retransmitted",
            Mark::RetxTimeout => "retransmitted_timeout",
            Mark::Ack => "ack",
            Mark::Nak => "nak",
            Mark::RnrNak => "rnr_nak",
            Mark::Cnp => "cnp",
            Mark::Ce => "ce",
            Mark::Gap => "gap",
        }
    }

    /// Which marks merge first when the sequence is full: 0 first, 2 last.
    fn rank(self) -> u8 {
        match self {
            Mark::New | Mark::Ack => 0,
            Mark::Ce | Mark::Cnp => 1,
            _ => 2,
        }
    }
}

/// One point, or several merged neighbours of one mark (`count` of them, at the first's
/// frame and time; `psn` is the highest, `payload` the sum, `rtt_ns` the longest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub ts_ns: u64,
    pub psn: i64,
    pub frame: u64,
    pub count: u32,
    /// Payload bytes: a request's, or for an ACK mark the READ data the response carried.
    pub payload: u32,
    /// An ACK mark's RTT sample, in ns (saturated); 0 when it gave none.
    pub rtt_ns: u32,
    pub mark: Mark,
}

impl Point {
    /// The PSN as the packet carried it: unwrapping only ever adds multiples of 2^24.
    pub fn wire_psn(&self) -> u32 {
        self.psn.rem_euclid(1 << 24) as u32
    }
}

#[derive(Debug, Clone, Default)]
pub struct TimeSequence {
    pub points: Vec<Point>,
    /// The last PSN seen, on the wire and unwrapped: later PSNs unwrap relative to it.
    reference: Option<(u32, i64)>,
    /// Times the sequence merged its points to make room.
    pub merges: u32,
}

impl TimeSequence {
    /// `psn` unwrapped relative to the last one seen, within half the PSN space.
    fn unwrap(&mut self, wire: u32) -> i64 {
        let unwrapped = match self.reference {
            Some((last, at)) => at + i64::from(psn::diff(wire, last)),
            None => i64::from(wire & psn::PSN_MASK),
        };
        self.reference = Some((wire & psn::PSN_MASK, unwrapped));
        unwrapped
    }

    pub fn push(&mut self, ts_ns: u64, wire_psn: u32, frame: u64, mark: Mark) {
        self.push_with(ts_ns, wire_psn, frame, mark, 0, None);
    }

    /// A point with its payload, and for an ACK the RTT sample it gave.
    pub fn push_with(
        &mut self,
        ts_ns: u64,
        wire_psn: u32,
        frame: u64,
        mark: Mark,
        payload: u32,
        rtt_ns: Option<u64>,
    ) {
        let psn = self.unwrap(wire_psn);
        self.add(Point {
            ts_ns,
            psn,
            frame,
            count: 1,
            payload,
            rtt_ns: rtt_ns.map_or(0, |r| u32::try_from(r).unwrap_or(u32::MAX).max(1)),
            mark,
        });
    }

    /// A mark with no PSN of its own, drawn at the latest PSN.
    pub fn push_at_head(&mut self, ts_ns: u64, frame: u64, mark: Mark) {
        let psn = self.reference.map_or(0, |(_, at)| at);
        self.add(Point {
            ts_ns,
            psn,
            frame,
            count: 1,
            payload: 0,
            rtt_ns: 0,
            mark,
        });
    }

    fn add(&mut self, point: Point) {
        if self.points.len() >= MAX_POINTS {
            self.make_room();
        }
        // Room for 64 points, then four times as much each time it fills: 64, 256, 1024,
        // 4096. Doubling copied each point about once more; growing fourfold took
        // `analyze --html` on the 440 MB benchmark capture (2000 directions of 420 points)
        // from 212 to 199 ms of CPU (medians of 10 alternating runs), within 1% of making
        // room for all 4096 at once, and a direction never holds room for more than four
        // times its points, which counts where memory is committed as it is reserved
        // (vm.overcommit_memory = 2).
        if self.points.len() == self.points.capacity() {
            let room = (self.points.len() * 4).clamp(64, MAX_POINTS);
            self.points
                .reserve_exact(room.saturating_sub(self.points.len()));
        }
        self.points.push(point);
    }

    /// Merges neighbours of the least telling marks until a quarter of the room is free.
    fn make_room(&mut self) {
        self.merges += 1;
        for rank in 0..=2 {
            merge_pairs(&mut self.points, rank);
            if self.points.len() <= MAX_POINTS * 3 / 4 {
                return;
            }
        }
    }
}

/// Merges each point of rank at most `rank` into the point of the same mark kept before it,
/// every other one, so that each mark's points halve. Points of marks merged at the same
/// rank may lie between the two; a point of a rarer mark may not, so that a retransmission
/// or a NAK still stands between the requests before and after it. Neighbours alone would
/// not do: when requests and ACKs alternate (an ACK for every request or two, the common
/// case) no two neighbours share a mark, and such a direction grew past MAX_POINTS, making
/// room again, in vain, at every point added (60,000 packets took 7.6 s and kept 40,000).
fn merge_pairs(points: &mut Vec<Point>, rank: u8) {
    crate::analyze::halve::merge_within_kinds::<_, { Mark::ALL.len() }>(
        points,
        |p| (p.mark.rank() <= rank).then_some(p.mark as usize),
        |into, p| {
            into.count = into.count.saturating_add(p.count);
            into.psn = into.psn.max(p.psn);
            into.payload = into.payload.saturating_add(p.payload);
            into.rtt_ns = into.rtt_ns.max(p.rtt_ns);
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_across_the_24_bit_wrap_and_back() {
        let mut s = TimeSequence::default();
        s.push(0, 0xff_fffe, 1, Mark::New);
        s.push(1, 0xff_ffff, 2, Mark::New);
        s.push(2, 0, 3, Mark::New);
        s.push(3, 1, 4, Mark::New);
        // A go-back to before the wrap steps back below it.
        s.push(4, 0xff_ffff, 5, Mark::Retransmitted);
        let psns: Vec<i64> = s.points.iter().map(|p| p.psn).collect();
        assert_eq!(
            psns,
            [0xff_fffe, 0xff_ffff, 0x100_0000, 0x100_0001, 0xff_ffff]
        );
        assert_eq!(s.points[2].wire_psn(), 0);
        assert_eq!(s.points[4].wire_psn(), 0xff_ffff);
    }

    #[test]
    fn full_sequences_merge_new_packets_before_retransmissions() {
        let mut s = TimeSequence::default();
        let total = 3 * MAX_POINTS as u64;
        for i in 0..total {
            let mark = if i % 100 == 99 {
                Mark::Retransmitted
            } else {
                Mark::New
            };
            s.push_with(i, (i & 0xff_ffff) as u32, i + 1, mark, 10, None);
        }
        assert!(s.points.len() <= MAX_POINTS);
        assert!(s.merges > 0);
        // Every retransmission is still its own point, at its own frame.
        let retx: Vec<u64> = s
            .points
            .iter()
            .filter(|p| p.mark == Mark::Retransmitted)
            .map(|p| p.frame)
            .collect();
        let want: Vec<u64> = (0..total)
            .filter(|i| i % 100 == 99)
            .map(|i| i + 1)
            .collect();
        assert_eq!(retx, want);
        // Nothing is lost from the counts, and time still runs forward.
        let count: u64 = s.points.iter().map(|p| u64::from(p.count)).sum();
        assert_eq!(count, total);
        let payload: u64 = s.points.iter().map(|p| u64::from(p.payload)).sum();
        assert_eq!(payload, 10 * total);
        assert!(s.points.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    }

    #[test]
    fn a_sequence_of_only_rare_marks_still_stays_bounded() {
        let mut s = TimeSequence::default();
        for i in 0..(5 * MAX_POINTS as u64) {
            s.push(i, 7, i + 1, Mark::Nak);
        }
        assert!(s.points.len() <= MAX_POINTS);
    }

    /// Requests and ACKs interleaved, so that no two neighbours share a mark: the sequence
    /// still stays within its bound, making room once per quarter of it, and nothing is
    /// lost from the counts.
    #[test]
    fn interleaved_marks_still_merge_and_stay_bounded() {
        let patterns: [&[Mark]; 3] = [
            &[Mark::New, Mark::Ack],
            &[Mark::New, Mark::New, Mark::Ack],
            &[
                Mark::New,
                Mark::Ce,
                Mark::Cnp,
                Mark::Ack,
                Mark::Nak,
                Mark::Gap,
            ],
        ];
        for pattern in patterns {
            let mut s = TimeSequence::default();
            let total = 15 * MAX_POINTS as u64;
            for i in 0..total {
                let mark = pattern[i as usize % pattern.len()];
                s.push_with(i, (i & 0xff_ffff) as u32, i + 1, mark, 10, None);
                assert!(
                    s.points.len() <= MAX_POINTS,
                    "{pattern:?}: {}",
                    s.points.len()
                );
            }
            assert!(s.merges <= 15 * 4, "{pattern:?}: {} merges", s.merges);
            for mark in pattern {
                let count: u64 = s
                    .points
                    .iter()
                    .filter(|p| p.mark == *mark)
                    .map(|p| u64::from(p.count))
                    .sum();
                let want = (0..total)
                    .filter(|&i| pattern[i as usize % pattern.len()] == *mark)
                    .count() as u64;
                assert_eq!(count, want, "{pattern:?} {mark:?}");
            }
            assert!(s.points.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
        }
    }

    /// A rarer mark between two requests keeps them apart: the merged request before a
    /// retransmission never claims a PSN sent after it.
    #[test]
    fn requests_do_not_merge_across_a_retransmission() {
        let mut s = TimeSequence::default();
        for i in 0..(3 * MAX_POINTS as u64) {
            let mark = match i % 4 {
                3 => Mark::Ack,
                _ if i % 64 == 32 => Mark::Retransmitted,
                _ => Mark::New,
            };
            s.push(i, (i & 0xff_ffff) as u32, i + 1, mark);
        }
        assert!(s.merges > 0);
        for (before, retx) in s.points.iter().zip(&s.points[1..]) {
            if retx.mark == Mark::Retransmitted && before.mark == Mark::New {
                assert!(before.psn < retx.psn, "{before:?} then {retx:?}");
            }
        }
    }

    #[test]
    fn cnps_sit_at_the_latest_psn() {
        let mut s = TimeSequence::default();
        s.push_at_head(0, 1, Mark::Cnp);
        s.push(1, 0xff_ffff, 2, Mark::New);
        s.push(2, 0, 3, Mark::New);
        s.push_at_head(3, 4, Mark::Cnp);
        assert_eq!(s.points[0].psn, 0);
        assert_eq!(s.points[3].psn, 0x100_0000);
        assert_eq!(s.points[3].wire_psn(), 0);
    }
}
