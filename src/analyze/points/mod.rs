//! Several capture points: the same packets seen at host A, a switch mirror and host B.
//!
//! Each transmission is analysed once, at the first point that saw it; the copies other
//! points saw are counted, not analysed. A transmission is told from a retransmission by
//! counting per point: the k-th time a point sees a packet is the k-th transmission, so a
//! retransmission that three points saw is still one. Each point also keeps its own view of
//! each request flow's PSNs, so a packet that one point saw and a point further along did not,
//! although that point saw the flow's packets before and after it, was lost between the two.

pub mod plan;
pub mod skew;

use std::collections::{HashMap, VecDeque};

use super::key::{FlowKey, FrameRef};
use super::psn;
use super::{Anomaly, AnomalyDetail, AnomalySink};
use crate::wire::opcode::Role;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Capture points whose copies are told apart (a bit each); more are refused, not folded.
pub const MAX_POINTS: usize = 16;
/// Packets remembered at once, however long the bound: memory stays bounded (about 40 MB).
const MAX_REMEMBERED: usize = 1 << 18;
/// Transmissions of one packet whose sightings are told apart, to say where one was lost.
const TRACKED: usize = 3;

/// One packet's identity across points: the flow, its PSN, its opcode and its payload
/// length; or, for a frame with no BTH (PFC, PAUSE), a hash of what tells it apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Identity {
    key: Option<FlowKey>,
    psn: u32,
    opcode: u8,
    len: u32,
}

impl Identity {
    pub fn new(key: &FlowKey, psn: u32, opcode: u8, len: u32) -> Self {
        Identity {
            key: Some(*key),
            psn,
            opcode,
            len,
        }
    }

    /// A frame with no BTH, by a hash of its sender and contents.
    pub fn frame(hash: u64) -> Self {
        Identity {
            key: None,
            psn: hash as u32,
            opcode: 0,
            len: (hash >> 32) as u32,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Transmission {
    /// Times each point saw it.
    counts: [u8; MAX_POINTS],
    /// The most any one point saw: how many times the sender sent it.
    sent: u8,
    /// Per transmission: the points that saw it, and the last sight of it, which is the
    /// point nearest the loss when a point further along missed it.
    seen_by: [u16; TRACKED],
    last: [FrameRef; TRACKED],
}

/// What a point has seen of one request flow: its PSN range.
#[derive(Debug, Clone, Copy)]
struct PointView {
    first: u32,
    highest: u32,
}

/// Per pair of points, named by input, packets one saw and the other, further along, missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PointPair {
    pub from: u16,
    pub to: u16,
}

/// Whether a packet is new to the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observation {
    /// The first sight of a transmission (a new packet, or the sender sending it again).
    Transmission,
    /// Another point's sight of a transmission already analysed.
    Copy,
}

pub struct Points {
    points: usize,
    /// Each input's point: the pieces of one capture are one point.
    point_of: Vec<u16>,
    bound_ns: u64,
    recent: Map<Identity, Transmission>,
    order: VecDeque<(u64, Identity)>,
    views: Map<(FlowKey, u16), PointView>,
    max_views: usize,
    /// Each point's place along the path, when `--order` gave it.
    places: Option<Vec<usize>>,
    /// Request transmissions a point missed although it saw the flow on both sides of
    /// them, and which were never sent again (so they were delivered), or which points on
    /// both sides of it along the given path saw: its capture dropped them, the network
    /// did not.
    pub missed_by_capture: Vec<u64>,
    /// Request transmissions each point saw: with `missed_by_capture`, its capture loss.
    pub requests_seen: Vec<u64>,
    /// Copies seen, by point.
    pub copies: Vec<u64>,
    /// Transmissions first seen, by point.
    pub first_seen: Vec<u64>,
    pub lost_between: Map<PointPair, u64>,
}

impl Points {
    /// `point_of[f]` is input f's point, below `points` (at most [`MAX_POINTS`]).
    pub fn new(points: usize, point_of: Vec<u16>, bound_ns: u64, max_flows: usize) -> Self {
        Points {
            points: points.min(MAX_POINTS),
            point_of,
            bound_ns,
            recent: Map::default(),
            order: VecDeque::new(),
            views: Map::default(),
            max_views: max_flows.max(1),
            places: None,
            missed_by_capture: vec![0; points.min(MAX_POINTS)],
            requests_seen: vec![0; points.min(MAX_POINTS)],
            copies: vec![0; points.min(MAX_POINTS)],
            first_seen: vec![0; points.min(MAX_POINTS)],
            lost_between: Map::default(),
        }
    }

    pub fn count(&self) -> usize {
        self.points
    }

    /// Input `file`'s point.
    pub fn point_of(&self, file: u16) -> usize {
        self.point_of
            .get(usize::from(file))
            .map_or(0, |&p| usize::from(p))
            .min(self.points - 1)
    }

    /// The inputs of point `point`.
    pub fn files_of(&self, point: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.point_of.len()).filter(move |&f| usize::from(self.point_of[f]) == point)
    }

    /// The first input of point `point`, which names it.
    pub fn first_file_of(&self, point: usize) -> u16 {
        self.point_of
            .iter()
            .position(|&p| usize::from(p) == point)
            .map_or(point as u16, |f| f as u16)
    }

    /// The points' order along the path: `order[i]` is the point at place i.
    pub fn with_order(mut self, order: &[usize]) -> Self {
        let mut place = vec![usize::MAX; self.points];
        for (i, &point) in order.iter().enumerate() {
            if let Some(p) = place.get_mut(point) {
                *p = i;
            }
        }
        self.places = Some(place);
        self
    }

    /// The inputs in path order, when `--order` gave it.
    pub fn order(&self) -> Option<Vec<usize>> {
        let place = self.places.as_ref()?;
        let mut points: Vec<usize> = (0..self.points).collect();
        points.sort_by_key(|&p| place[p]);
        Some(points)
    }

    /// One packet, at time `at` on the reference clock.
    pub fn observe(
        &mut self,
        id: Identity,
        at: FrameRef,
        anomalies: &mut AnomalySink,
    ) -> Observation {
        let point = self.point_of(at.file);
        let now = at.ts_ns.unwrap_or(0);
        self.expire(now, anomalies);
        if let Some(key) = id.key.filter(|k| k.role == Role::Request) {
            self.view(&key, point as u16, id.psn);
            self.requests_seen[point] += 1;
        }
        let entry = match self.recent.get_mut(&id) {
            Some(entry) => entry,
            None => {
                self.order.push_back((now, id));
                self.recent.entry(id).or_insert(Transmission {
                    counts: [0; MAX_POINTS],
                    sent: 0,
                    seen_by: [0; TRACKED],
                    last: [at; TRACKED],
                })
            }
        };
        let count = &mut entry.counts[point];
        *count = count.saturating_add(1);
        let new = *count > entry.sent;
        let bit = 1u16 << point;
        // A new transmission takes the next slot; a copy belongs to the transmission this
        // point has not seen whose sightings are nearest in time (a point that missed the
        // first one sees the second as its first).
        let k = if new {
            Some(usize::from(entry.sent))
        } else {
            (0..TRACKED.min(usize::from(entry.sent)))
                .filter(|&k| entry.seen_by[k] & bit == 0)
                .min_by_key(|&k| now.abs_diff(entry.last[k].ts_ns.unwrap_or(0)))
        };
        if let Some(k) = k.filter(|&k| k < TRACKED) {
            if entry.seen_by[k] == 0 || at.ts_ns >= entry.last[k].ts_ns {
                entry.last[k] = at;
            }
            entry.seen_by[k] |= bit;
        }
        if new {
            entry.sent = *count;
            self.first_seen[point] += 1;
            Observation::Transmission
        } else {
            self.copies[point] += 1;
            Observation::Copy
        }
    }

    fn view(&mut self, key: &FlowKey, point: u16, psn: u32) {
        if let Some(view) = self.views.get_mut(&(*key, point)) {
            if psn::diff(psn, view.highest) > 0 {
                view.highest = psn;
            }
            if psn::diff(psn, view.first) < 0 {
                view.first = psn;
            }
            return;
        }
        if self.views.len() >= self.max_views {
            // A view is a hint for loss location; forgetting them all is safe.
            self.views.clear();
        }
        self.views.insert(
            (*key, point),
            PointView {
                first: psn,
                highest: psn,
            },
        );
    }

    /// Closes transmissions older than the bound: every point that should have seen one
    /// has had the time to.
    fn expire(&mut self, now: u64, anomalies: &mut AnomalySink) {
        while let Some(&(then, id)) = self.order.front() {
            if now.saturating_sub(then) <= self.bound_ns && self.order.len() <= MAX_REMEMBERED {
                break;
            }
            self.order.pop_front();
            self.record_misses(id, anomalies);
        }
    }

    /// Forgets transmission `id`, and counts (and reports as lost) each point that missed it.
    fn record_misses(&mut self, id: Identity, anomalies: &mut AnomalySink) {
        let Some(t) = self.recent.remove(&id) else {
            return;
        };
        let Some(key) = id.key.filter(|k| k.role == Role::Request) else {
            return;
        };
        for point in 0..self.points {
            // Fewer sights than transmissions: this point missed one of them. Which one is
            // told where the sightings of each transmission are known.
            if t.counts[point] >= t.sent {
                continue;
            }
            let missed = (0..TRACKED.min(usize::from(t.sent)))
                .find(|&k| t.seen_by[k] & (1 << point) == 0 && t.seen_by[k] != 0);
            let Some(k) = missed else { continue };
            let Some(view) = self.views.get(&(key, point as u16)) else {
                continue;
            };
            // The point saw this flow's packets on both sides of this one.
            if psn::diff(id.psn, view.first) > 0 && psn::diff(view.highest, id.psn) > 0 {
                // Sent once and never again: it reached the responder, which would have
                // asked for it otherwise. The point's capture dropped it; the network did not.
                if t.sent == 1 {
                    self.missed_by_capture[point] += 1;
                    continue;
                }
                // Anomalies name files: the file that saw it last, and the missing point's
                // first file.
                let last = t.last[k];
                let mut from = last.file;
                if let Some(place) = &self.places {
                    let seers = (0..self.points).filter(|&p| t.seen_by[k] & (1 << p) != 0);
                    let here = place[point];
                    let before = seers
                        .clone()
                        .filter(|&p| place[p] < here)
                        .max_by_key(|&p| place[p]);
                    let after = seers.filter(|&p| place[p] > here).min_by_key(|&p| place[p]);
                    match (before, after) {
                        // Seen on both sides of this point: it was there, its capture missed it.
                        (Some(_), Some(_)) => {
                            self.missed_by_capture[point] += 1;
                            continue;
                        }
                        // The nearest point that saw it along the path is where it was last.
                        (Some(p), None) | (None, Some(p)) => from = self.first_file_of(p),
                        (None, None) => {}
                    }
                }
                let to = self.first_file_of(point);
                let pair = PointPair { from, to };
                *self.lost_between.entry(pair).or_default() += 1;
                anomalies.push(Anomaly {
                    at: last,
                    detail: AnomalyDetail::LostBetween {
                        flow: key,
                        psn: id.psn,
                        from,
                        to,
                    },
                });
            }
        }
    }

    /// Closes everything still remembered at the end of the capture.
    pub fn finish(&mut self, anomalies: &mut AnomalySink) {
        while let Some((_, id)) = self.order.pop_front() {
            self.record_misses(id, anomalies);
        }
    }
}
