//! PFC (802.1Qbb) and 802.3x PAUSE: per-(sender, priority) pause intervals, storms and
//! cascades.
//!
//! A cascade is inferred from pauses that overlap in time on the same priority (or, for
//! 802.3x, on whole links), without knowing the topology: two senders pausing at once may
//! be unrelated. Each record therefore says when each sender joined and how long at least
//! two of them were paused together, rather than claiming a chain.
//!
//! A pause frame sets the sender's pause timer for one priority to quanta × 512 bit times;
//! a later frame replaces the timer, and quanta 0 (XON) ends the pause at once.

use std::collections::HashMap;

/// Seeded per process, so a crafted capture cannot aim for collisions, and much faster
/// than SipHash on these small keys.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use super::key::FrameRef;
use super::pause_lanes::{PauseLanes, Paused};
use super::pause_overlap::RecentPauses;
use super::{Anomaly, AnomalyDetail, AnomalySink};
use crate::dissect::Packet;
use crate::wire::ethernet::Mac;

/// 802.3x PAUSE stops every priority; it is tracked as this ninth "priority".
pub const ALL_PRIORITIES: u8 = 8;
const PRIORITY_SLOTS: usize = 9;
/// Senders remembered per cascade; more are counted, not named.
const MAX_CASCADE_MEMBERS: usize = 64;
/// Storms and cascades kept in full; more are counted. With `--storm-threshold 0ns` every
/// pause frame is a storm, so the lists need a bound like every other table.
const MAX_EPISODES: usize = 10_000;
/// Pause intervals kept per open cascade to measure the overlap; beyond it the overlap is
/// measured over the first ones only, and said to be partial.
const MAX_CASCADE_INTERVALS: usize = 4096;

#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub frames: u64,
    pub pause_frames: u64,
    pub xon_frames: u64,
    pub paused_ns: u64,
    pub order: u64,
    run: Option<Run>,
    last_activity: u64,
}

#[derive(Debug, Clone, Copy)]
struct Run {
    start_ns: u64,
    start: FrameRef,
    until_ns: u64,
    frames: u64,
}

#[derive(Debug, Clone)]
pub struct Storm {
    pub src: Mac,
    pub priority: u8,
    pub start: FrameRef,
    pub start_ns: u64,
    pub duration_ns: u64,
    pub frames: u64,
}

/// When a sender's first pause of a cascade began.
#[derive(Debug, Clone, Copy)]
pub struct Join {
    pub src: Mac,
    pub at: FrameRef,
    pub ns: u64,
}

#[derive(Debug, Clone)]
pub struct Cascade {
    pub priority: u8,
    pub senders: Vec<Mac>,
    /// One per named sender, in the order they joined.
    pub joins: Vec<Join>,
    /// Time during which at least two senders were paused at once.
    pub overlap_ns: u64,
    /// More pause intervals than [`MAX_CASCADE_INTERVALS`]: `overlap_ns` is a lower bound.
    pub overlap_partial: bool,
    /// Senders beyond the ones named.
    pub more_senders: u64,
    pub start: FrameRef,
    pub start_ns: u64,
    pub duration_ns: u64,
}

#[derive(Debug, Clone)]
struct Group {
    members: Vec<Mac>,
    joins: Vec<Join>,
    /// Finished pauses of the members: (start, end) in ns.
    intervals: Vec<(u64, u64)>,
    intervals_dropped: bool,
    more: u64,
    start: FrameRef,
    start_ns: u64,
    end_ns: u64,
}

pub struct PfcTracker {
    pub senders: Map<(Mac, u8), SenderStats>,
    groups: [Option<Group>; PRIORITY_SLOTS],
    quantum_ps: u64,
    storm_threshold_ns: u64,
    max_senders: usize,
    next_order: u64,
    clock: u64,
    pub evicted: u64,
    pub pfc_frames: u64,
    pub pause_frames: u64,
    pub storms: Vec<Storm>,
    pub cascades: Vec<Cascade>,
    pub storm_count: u64,
    pub cascade_count: u64,
    /// `--html`: every pause interval, for the pause timeline.
    pub lanes: Option<PauseLanes>,
    /// The pauses a connection's silence is measured against.
    pub recent: RecentPauses,
}

/// Who sent a pause frame: the Ethernet source, which inside an ERSPAN, GRE or VXLAN mirror
/// is the mirrored frame's; a Linux cooked capture (`tcpdump -i any`) keeps no Ethernet
/// header, only the sender's address in its own.
fn sender(pkt: &Packet<'_>) -> Option<Mac> {
    match (pkt.eth, pkt.sll) {
        (Some(eth), _) => Some(eth.src()),
        (None, Some(sll)) => sll.sender,
        (None, None) => None,
    }
}

impl PfcTracker {
    pub fn new(link_speed_bps: u64, storm_threshold_ns: u64, max_senders: usize) -> Self {
        PfcTracker {
            senders: Map::default(),
            groups: Default::default(),
            // One quantum is 512 bit times; in picoseconds so 100G's 5.12 ns stays exact.
            quantum_ps: 512 * 1_000_000_000_000 / link_speed_bps.max(1),
            storm_threshold_ns,
            max_senders: max_senders.max(1),
            next_order: 0,
            clock: 0,
            evicted: 0,
            pfc_frames: 0,
            pause_frames: 0,
            storms: Vec::new(),
            cascades: Vec::new(),
            storm_count: 0,
            cascade_count: 0,
            lanes: None,
            recent: RecentPauses::default(),
        }
    }

    pub fn observe(&mut self, pkt: &Packet<'_>, at: FrameRef, anomalies: &mut AnomalySink) {
        let Some(src) = sender(pkt) else {
            return;
        };
        if let Some(pfc) = pkt.pfc {
            self.pfc_frames += 1;
            let quanta = pfc.quanta();
            for (priority, q) in quanta.iter().enumerate() {
                if pfc.enabled(priority) {
                    self.frame(src, priority as u8, *q, at, anomalies);
                }
            }
        } else if let Some(pause) = pkt.pause {
            self.pause_frames += 1;
            self.frame(src, ALL_PRIORITIES, pause.quanta(), at, anomalies);
        }
    }

    fn frame(
        &mut self,
        src: Mac,
        priority: u8,
        quanta: u16,
        at: FrameRef,
        anomalies: &mut AnomalySink,
    ) {
        self.clock += 1;
        if !self.senders.contains_key(&(src, priority)) && self.senders.len() >= self.max_senders {
            self.evict();
        }
        let order = self.next_order;
        let stats = self
            .senders
            .entry((src, priority))
            .or_insert_with(|| SenderStats {
                order,
                ..SenderStats::default()
            });
        if stats.order == order {
            self.next_order += 1;
        }
        stats.last_activity = self.clock;
        stats.frames += 1;
        if quanta == 0 {
            stats.xon_frames += 1;
        } else {
            stats.pause_frames += 1;
        }
        // Without a timestamp (pcapng SPB) a frame can be counted but not placed in time.
        let Some(now) = at.ts_ns else { return };
        let mut finished = None;
        if let Some(run) = stats.run
            && now > run.until_ns
        {
            finished = Some((run, run.until_ns));
            stats.run = None;
        }
        let mut started = None;
        if quanta == 0 {
            if let Some(run) = stats.run.take() {
                finished = Some((run, now));
            }
        } else {
            let until = now.saturating_add(u64::from(quanta) * self.quantum_ps / 1000);
            match &mut stats.run {
                Some(run) => {
                    run.until_ns = until;
                    run.frames += 1;
                }
                None => {
                    stats.run = Some(Run {
                        start_ns: now,
                        start: at,
                        until_ns: until,
                        frames: 1,
                    });
                    started = Some(until);
                }
            }
        }
        let refreshed_until = stats.run.map(|r| r.until_ns);
        let running = stats.run.map(|r| (r.start_ns, r.until_ns));
        if let Some((run, end)) = finished {
            self.finish_run(src, priority, run, end, now, anomalies);
        }
        if let Some((start, until)) = running {
            self.recent.running(src, priority, start, until);
        }
        let slot = usize::from(priority);
        if let Some(until) = started {
            self.join_group(slot, src, now, until, at, anomalies);
        } else if let Some(until) = refreshed_until {
            if let Some(group) = &mut self.groups[slot] {
                group.end_ns = group.end_ns.max(until);
            }
        } else if quanta == 0 {
            self.recompute_group_end(slot, priority, now);
        }
    }

    fn finish_run(
        &mut self,
        src: Mac,
        priority: u8,
        run: Run,
        end_ns: u64,
        seen_ns: u64,
        anomalies: &mut AnomalySink,
    ) {
        let duration = end_ns.saturating_sub(run.start_ns);
        self.recent
            .finished(src, priority, run.start_ns, end_ns, seen_ns);
        if let Some(stats) = self.senders.get_mut(&(src, priority)) {
            stats.paused_ns += duration;
        }
        if let Some(lanes) = &mut self.lanes {
            lanes.push(
                src,
                priority,
                Paused {
                    start_ns: run.start_ns,
                    end_ns,
                    frame: run.start.frame,
                    count: 1,
                    storm: duration >= self.storm_threshold_ns,
                },
            );
        }
        if let Some(group) = &mut self.groups[usize::from(priority)]
            && run.start_ns >= group.start_ns
            && group.members.contains(&src)
        {
            if group.intervals.len() < MAX_CASCADE_INTERVALS {
                group.intervals.push((run.start_ns, end_ns));
            } else {
                group.intervals_dropped = true;
            }
        }
        if duration >= self.storm_threshold_ns {
            let storm = Storm {
                src,
                priority,
                start: run.start,
                start_ns: run.start_ns,
                duration_ns: duration,
                frames: run.frames,
            };
            self.storm_count += 1;
            if self.storms.len() < MAX_EPISODES {
                self.storms.push(storm.clone());
            }
            anomalies.push(Anomaly {
                at: run.start,
                detail: AnomalyDetail::PfcStorm(storm),
            });
        }
    }

    fn join_group(
        &mut self,
        slot: usize,
        src: Mac,
        now: u64,
        until: u64,
        at: FrameRef,
        anomalies: &mut AnomalySink,
    ) {
        if self.groups[slot].as_ref().is_some_and(|g| now >= g.end_ns) {
            self.close_group(slot, anomalies);
        }
        match &mut self.groups[slot] {
            Some(group) => {
                if !group.members.contains(&src) {
                    if group.members.len() < MAX_CASCADE_MEMBERS {
                        group.members.push(src);
                        group.joins.push(Join { src, at, ns: now });
                    } else {
                        group.more += 1;
                    }
                }
                group.end_ns = group.end_ns.max(until);
            }
            None => {
                self.groups[slot] = Some(Group {
                    members: vec![src],
                    joins: vec![Join { src, at, ns: now }],
                    intervals: Vec::new(),
                    intervals_dropped: false,
                    more: 0,
                    start: at,
                    start_ns: now,
                    end_ns: until,
                })
            }
        }
    }

    /// After an XON the chain lasts only as long as its members still paused.
    fn recompute_group_end(&mut self, slot: usize, priority: u8, now: u64) {
        let Some(group) = &self.groups[slot] else {
            return;
        };
        let latest = group
            .members
            .iter()
            .filter_map(|m| self.senders.get(&(*m, priority)).and_then(|s| s.run))
            .map(|run| run.until_ns)
            .max()
            .unwrap_or(now)
            .max(now);
        if let Some(group) = &mut self.groups[slot] {
            group.end_ns = group.end_ns.min(latest);
        }
    }

    fn close_group(&mut self, slot: usize, anomalies: &mut AnomalySink) {
        let Some(mut group) = self.groups[slot].take() else {
            return;
        };
        if group.members.len() < 2 {
            return;
        }
        // Pauses that expired without a later frame from their sender are still open.
        for member in &group.members {
            let open = self
                .senders
                .get(&(*member, slot as u8))
                .and_then(|s| s.run)
                .filter(|run| run.start_ns >= group.start_ns);
            if let Some(run) = open {
                if group.intervals.len() < MAX_CASCADE_INTERVALS {
                    group
                        .intervals
                        .push((run.start_ns, run.until_ns.min(group.end_ns)));
                } else {
                    group.intervals_dropped = true;
                }
            }
        }
        let cascade = Cascade {
            priority: slot as u8,
            overlap_ns: overlap(&group.intervals),
            overlap_partial: group.intervals_dropped,
            senders: group.members,
            joins: group.joins,
            more_senders: group.more,
            start: group.start,
            start_ns: group.start_ns,
            duration_ns: group.end_ns.saturating_sub(group.start_ns),
        };
        self.cascade_count += 1;
        if self.cascades.len() < MAX_EPISODES {
            self.cascades.push(cascade.clone());
        }
        anomalies.push(Anomaly {
            at: cascade.start,
            detail: AnomalyDetail::PauseCascade(cascade),
        });
    }

    /// Ends every pause still in effect when the capture ends, at its expiry.
    pub fn finish(&mut self, anomalies: &mut AnomalySink) {
        let mut open: Vec<((Mac, u8), Run)> = self
            .senders
            .iter_mut()
            .filter_map(|(key, stats)| stats.run.take().map(|run| (*key, run)))
            .collect();
        open.sort_by_key(|(_, run)| (run.start.file, run.start.frame));
        for ((src, priority), run) in open {
            self.finish_run(src, priority, run, run.until_ns, run.until_ns, anomalies);
        }
        for slot in 0..PRIORITY_SLOTS {
            self.close_group(slot, anomalies);
        }
    }

    fn evict(&mut self) {
        let mut ages: Vec<u64> = self.senders.values().map(|s| s.last_activity).collect();
        let cut = (ages.len() / 8).max(1);
        let (_, threshold, _) = ages.select_nth_unstable(cut - 1);
        let threshold = *threshold;
        let before = self.senders.len();
        self.senders.retain(|_, s| s.last_activity > threshold);
        self.evicted += (before - self.senders.len()) as u64;
    }

    /// Senders in order of first appearance.
    pub fn sorted_senders(&self) -> Vec<(&(Mac, u8), &SenderStats)> {
        let mut all: Vec<_> = self.senders.iter().collect();
        all.sort_by_key(|(_, s)| s.order);
        all
    }
}

/// The time during which at least two of `intervals` are in effect at once: a sweep over
/// their sorted ends.
fn overlap(intervals: &[(u64, u64)]) -> u64 {
    let mut edges: Vec<(u64, i32)> = intervals
        .iter()
        .flat_map(|&(start, end)| [(start, 1), (end, -1)])
        .collect();
    // Ends before starts at the same instant: touching pauses do not overlap.
    edges.sort_unstable();
    let mut active = 0i32;
    let mut since = 0u64;
    let mut total = 0u64;
    for (at, step) in edges {
        if active >= 2 {
            total += at - since;
        }
        active += step;
        since = at;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::overlap;

    #[test]
    fn overlap_counts_only_concurrent_pauses() {
        assert_eq!(overlap(&[(0, 100), (50, 200)]), 50);
        assert_eq!(overlap(&[(0, 100), (100, 200)]), 0);
        assert_eq!(overlap(&[(0, 300), (100, 200), (150, 400)]), 200);
        assert_eq!(overlap(&[(0, 10)]), 0);
    }
}
