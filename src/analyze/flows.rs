//! Per-QP flow reconstruction and sequence analysis.
//!
//! A flow is (source, destination, destination QP, role). The role matters because one
//! direction between two hosts carries two PSN spaces: A's requests to B, and A's ACKs for
//! B's requests, both addressed to the same QP numbers.

use std::collections::HashMap;

/// Seeded per process, so a crafted capture cannot aim for collisions, and much faster
/// than SipHash on these small keys.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use super::budget::{self, Dropped, Order};
use super::capture_loss::Run;
use super::key::{
    FlowKey, FrameRef, PmtuSource, SeqDetail, Verdict, is_legal_pmtu, legal_pmtu_at_least,
};
use super::priorities::{Carried, Wire};
use super::psn;
use super::{Anomaly, AnomalyDetail, AnomalySink};
use crate::dissect::{Address, Packet};
use crate::wire::aeth::{NakCode, Syndrome};
use crate::wire::opcode::{self, Role};

/// Distinct opcodes counted per flow; a flow rarely uses more, and the rest are pooled.
const HISTOGRAM_SLOTS: usize = 6;

#[derive(Debug, Clone, Default)]
pub struct OpcodeHistogram {
    slots: [(u8, u32); HISTOGRAM_SLOTS],
    used: u8,
    other: u32,
}

impl OpcodeHistogram {
    fn add(&mut self, opcode: u8) {
        let used = usize::from(self.used);
        if let Some(slot) = self.slots[..used].iter_mut().find(|(op, _)| *op == opcode) {
            slot.1 += 1;
        } else if used < HISTOGRAM_SLOTS {
            self.slots[used] = (opcode, 1);
            self.used += 1;
        } else {
            self.other += 1;
        }
    }

    pub fn entries(&self) -> impl Iterator<Item = (u8, u32)> + '_ {
        self.slots[..usize::from(self.used)].iter().copied()
    }

    /// Packets whose opcode did not fit in the histogram's slots.
    pub fn other(&self) -> u32 {
        self.other
    }
}

/// Counters other than packets, bytes and missing PSNs are `u32`: none can exceed a flow's
/// packet count in practice, and a million flows must fit in memory.
#[derive(Debug, Clone, Default)]
pub struct Flow {
    /// Order of first appearance, for a stable report.
    pub order: u64,
    pub first: FrameRef,
    pub last: FrameRef,
    pub packets: u64,
    pub bytes: u64,
    pub first_psn: u32,
    pub last_psn: u32,
    pub opcodes: OpcodeHistogram,
    pub psn_gaps: u32,
    pub missing_psns: u64,
    pub retransmitted: u32,
    pub go_back_n: u32,
    /// Packets of this flow that another capture point saw too: copies, not analysed again.
    pub duplicates: u32,
    pub naks: u32,
    pub nak_seq_err: u32,
    pub rnr_naks: u32,
    pub ecn_ce: u32,
    /// InfiniBand congestion marks from the BTH; the BECN a CNP carries by definition is
    /// not counted, the CNP is.
    pub fecn: u32,
    pub becn: u32,
    pub cnps: u32,
    pub first_ce: Option<FrameRef>,
    pub max_payload: u32,
    pub pmtu_observed: Option<u32>,
    /// The PMTU READ accounting used last, and how it was learned.
    pub pmtu_used: Option<(u32, PmtuSource)>,
    /// The PCP and DSCP of its first packet: its priority, once mapped.
    pub wire: Wire,
    last_activity: u64,
}

/// A `--pmtu` that the traffic contradicts: a FIRST or MIDDLE packet of another legal size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PmtuConflict {
    pub observed: u32,
    pub at: FrameRef,
}

/// What a request's connection end made of it.
#[derive(Debug, Clone, Copy)]
pub struct SeqEvent<'c> {
    pub verdict: Verdict,
    /// Read only when the request was not simply new.
    pub detail: &'c SeqDetail,
    /// For a READ: the path MTU its PSNs were counted with, when known.
    pub pmtu: Option<(u32, PmtuSource)>,
}

/// Memory one flow costs in the table: its state, plus an index entry with the hash
/// table's control byte and spare capacity (at most 1/8 empty at full load). Growth can
/// leave up to as much again unused until the table fills.
pub fn bytes_per_flow() -> usize {
    let state = std::mem::size_of::<(FlowKey, Flow)>();
    let index = (std::mem::size_of::<(FlowKey, u32)>() + 1) * 8 / 7;
    state + index
}

/// Where a flow sat in the table when last looked up: a connection end keeps one per role,
/// so the packets it sees find their flow with one key comparison instead of a second hash
/// lookup. Eviction moves flows, and changes the generation that makes old hints stale.
#[derive(Debug, Clone, Copy, Default)]
pub struct FlowHint {
    slot: u32,
    generation: u32,
}

pub struct FlowTable {
    /// Bumped by every eviction, which moves flows to other slots.
    generation: u32,
    /// Flow state, densely packed; the map only points into it. A hash table of whole flows
    /// would keep up to twice their size in empty slots after growing.
    flows: Vec<(FlowKey, Flow)>,
    index: Map<FlowKey, u32>,
    /// The PMTU FIRST and MIDDLE packets showed between two hosts, in either direction,
    /// keyed by the pair in ascending order.
    path_mtus: Map<(Address, Address), u32>,
    max_flows: usize,
    /// Which flows an eviction drops first: the memory budget's order when its share, not
    /// `--max-flows`, bounds the table.
    order: Order,
    /// The most flows held at once.
    pub peak: usize,
    pmtu: Option<u32>,
    next_order: u64,
    clock: u64,
    pub evicted: u64,
    /// What the memory budget evicted (all of `evicted`, when it bounds the table).
    pub dropped: Dropped,
    /// What evicted flows carried, for the per-priority summary.
    evicted_carried: ByWire,
    /// The first FIRST or MIDDLE packet whose size contradicts `--pmtu`.
    pub pmtu_conflict: Option<PmtuConflict>,
}

fn host_pair(a: Address, b: Address) -> (Address, Address) {
    if a <= b { (a, b) } else { (b, a) }
}

impl FlowTable {
    pub fn new(max_flows: usize, pmtu: Option<u32>) -> Self {
        FlowTable {
            // Hints start at generation 0, which never names a valid slot.
            generation: 1,
            flows: Vec::new(),
            index: Map::default(),
            path_mtus: Map::default(),
            max_flows: max_flows.max(1),
            order: Order::Recency,
            peak: 0,
            pmtu,
            next_order: 0,
            clock: 0,
            evicted: 0,
            dropped: Dropped::default(),
            evicted_carried: ByWire::default(),
            pmtu_conflict: None,
        }
    }

    /// Holds at most `share` flows, the memory budget's share, when that is fewer than
    /// `--max-flows`; the budget then evicts the least useful flows first.
    pub fn within(mut self, share: usize) -> Self {
        if share < self.max_flows {
            self.max_flows = share.max(1);
            self.order = Order::Usefulness;
        }
        self
    }

    /// The flow `key`, if the table holds it.
    pub fn get(&self, key: &FlowKey) -> Option<&Flow> {
        let slot = *self.index.get(key)?;
        self.flows.get(slot as usize).map(|(_, flow)| flow)
    }

    /// What every flow carried, by its PCP and DSCP, evicted flows included.
    pub fn carried_by_wire(&self) -> Vec<(Wire, Carried)> {
        let mut all = self.evicted_carried.clone();
        for (key, flow) in &self.flows {
            all.add(flow.wire, carried(key, flow));
        }
        all.0
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Every flow, in order of first appearance.
    pub fn sorted(&self) -> Vec<(&FlowKey, &Flow)> {
        // Flows are appended as they appear and eviction keeps the order of the rest.
        self.flows.iter().map(|(key, flow)| (key, flow)).collect()
    }

    /// Feeds one packet of flow `key` (from [`FlowKey::of`]).
    pub fn observe(
        &mut self,
        pkt: &Packet<'_>,
        key: FlowKey,
        at: FrameRef,
        anomalies: &mut AnomalySink,
    ) {
        self.observe_hinted(pkt, key, at, None, anomalies, &mut FlowHint::default());
    }

    /// [`FlowTable::observe`] for a packet its connection end has seen: `event` is what a
    /// request did to the sequence, and `hint` is tried before the index and left pointing
    /// at the flow.
    pub fn observe_hinted(
        &mut self,
        pkt: &Packet<'_>,
        key: FlowKey,
        at: FrameRef,
        event: Option<SeqEvent<'_>>,
        anomalies: &mut AnomalySink,
        hint: &mut FlowHint,
    ) {
        let Some(bth) = pkt.bth else { return };
        self.clock += 1;
        // Only eviction moves flows, and it changes the generation: a hint of this one
        // still points at its flow, which the end's key and the role determine.
        let hinted = hint.generation == self.generation && (hint.slot as usize) < self.flows.len();
        debug_assert!(!hinted || self.flows[hint.slot as usize].0 == key);
        let slot = if hinted {
            hint.slot as usize
        } else {
            let slot = self.slot_of(key, pkt, bth.psn(), at);
            *hint = FlowHint {
                slot: slot as u32,
                generation: self.generation,
            };
            slot
        };
        self.update(slot, pkt, key, at, event, anomalies);
    }

    fn slot_of(&mut self, key: FlowKey, pkt: &Packet<'_>, psn: u32, at: FrameRef) -> usize {
        match self.index.get(&key) {
            Some(&slot) => slot as usize,
            None => {
                if self.flows.len() >= self.max_flows {
                    self.evict();
                }
                let slot = self.flows.len();
                self.flows.push((
                    key,
                    Flow {
                        order: self.next_order,
                        first: at,
                        first_psn: psn,
                        wire: Wire::of(pkt),
                        ..Flow::default()
                    },
                ));
                self.index.insert(key, slot as u32);
                self.next_order += 1;
                self.peak = self.peak.max(self.flows.len());
                slot
            }
        }
    }

    fn update(
        &mut self,
        slot: usize,
        pkt: &Packet<'_>,
        key: FlowKey,
        at: FrameRef,
        event: Option<SeqEvent<'_>>,
        anomalies: &mut AnomalySink,
    ) {
        let Some(bth) = pkt.bth else { return };
        let FlowKey { src, dst, .. } = key;
        let flow = &mut self.flows[slot].1;
        flow.last_activity = self.clock;
        flow.last = at;
        flow.packets += 1;
        flow.bytes += u64::from(pkt.len);
        flow.last_psn = bth.psn();
        flow.opcodes.add(bth.opcode());
        let payload = pkt.payload_len.unwrap_or(0);
        flow.max_payload = flow.max_payload.max(payload);
        if pkt.ecn_ce() {
            flow.ecn_ce += 1;
            flow.first_ce.get_or_insert(at);
        }
        if bth.fecn() {
            flow.fecn += 1;
        }
        if bth.becn() && key.role != Role::Cnp {
            flow.becn += 1;
        }
        // A FIRST or MIDDLE packet of a size no PMTU has is a broken or hostile packet and
        // teaches nothing.
        let full_sized = opcode::carries_one_pmtu(bth.opcode());
        // Only a change is shared with the host pair, so a long WRITE costs no map update
        // per packet.
        if full_sized && is_legal_pmtu(payload) && flow.pmtu_observed != Some(payload) {
            flow.pmtu_observed = Some(payload);
            self.path_mtus.insert(host_pair(src, dst), payload);
            if let Some(given) = self.pmtu
                && given != payload
            {
                self.pmtu_conflict.get_or_insert(PmtuConflict {
                    observed: payload,
                    at,
                });
            }
        }
        match key.role {
            Role::Request => {
                // Only connected transports number their packets in one PSN space per QP,
                // and their connection end tells what the PSN meant; UD and RD senders share
                // a destination QP, and their PSNs interleave.
                if let Some(event) = event {
                    book(flow, key, bth.psn(), at, event, anomalies);
                    if opcode::is_read_request(bth.opcode()) {
                        // A flow's `pmtu_source` names no CM (docs/json-schema.md): what the
                        // REQ said, the flow counts as observed.
                        flow.pmtu_used = Some(match event.pmtu {
                            Some((m, PmtuSource::Cm)) => (m, PmtuSource::Observed),
                            Some(known) => known,
                            None => (legal_pmtu_at_least(flow.max_payload), PmtuSource::Inferred),
                        });
                    }
                }
            }
            Role::Response => {
                if let Some(aeth) = pkt.aeth {
                    match aeth.decode() {
                        Syndrome::Nak(code) => {
                            flow.naks += 1;
                            if code == NakCode::PsnSequenceError {
                                flow.nak_seq_err += 1;
                            }
                            anomalies.push(Anomaly {
                                at,
                                detail: AnomalyDetail::Nak {
                                    flow: key,
                                    psn: bth.psn(),
                                    code,
                                },
                            });
                        }
                        Syndrome::RnrNak { timer } => {
                            flow.rnr_naks += 1;
                            anomalies.push(Anomaly {
                                at,
                                detail: AnomalyDetail::RnrNak {
                                    flow: key,
                                    psn: bth.psn(),
                                    timer,
                                },
                            });
                        }
                        _ => {}
                    }
                }
            }
            Role::Cnp => flow.cnps += 1,
            Role::Unknown => {}
        }
        if self.path_mtus.len() > self.max_flows {
            self.path_mtus.clear();
        }
    }

    /// Another capture point's copy of a packet of flow `key`, already analysed.
    pub fn count_copy(&mut self, key: &FlowKey) {
        if let Some(&slot) = self.index.get(key) {
            self.flows[slot as usize].1.duplicates += 1;
        }
    }

    /// A gap of flow `key` that its connection end found repaired: network loss, counted
    /// and reported now at the frame that showed it.
    pub fn gap_lost(
        &mut self,
        key: FlowKey,
        hint: FlowHint,
        run: &Run,
        anomalies: &mut AnomalySink,
    ) {
        let hinted = hint.generation == self.generation && (hint.slot as usize) < self.flows.len();
        let slot = if hinted {
            hint.slot as usize
        } else {
            let Some(&slot) = self.index.get(&key) else {
                return;
            };
            slot as usize
        };
        let (key, flow) = &mut self.flows[slot];
        flow.psn_gaps += 1;
        flow.missing_psns += run.missing();
        anomalies.push(Anomaly {
            at: run.at,
            detail: AnomalyDetail::PsnGap {
                flow: *key,
                psn: run.psn,
                expected: run.expected(),
                missing: u32::try_from(run.missing()).unwrap_or(u32::MAX),
            },
        });
    }

    /// Settles the PMTU of READs still counted with an inferred one when the capture ended:
    /// their responses, seen since, may have shown it.
    pub fn finish(&mut self) {
        for (key, flow) in &mut self.flows {
            if let Some((_, PmtuSource::Inferred)) = flow.pmtu_used
                && let Some(&pmtu) = self.path_mtus.get(&host_pair(key.src, key.dst))
            {
                flow.pmtu_used = Some((pmtu, PmtuSource::Observed));
            }
        }
    }

    /// Drops the eighth of the table that comes first in the eviction order: one O(n)
    /// pass that buys n/8 insertions, so eviction stays amortised O(1) per packet.
    fn evict(&mut self) {
        let order = self.order;
        let worth = |flow: &Flow| order.worth(flow.events(), flow.packets, flow.last_activity);
        let Some(threshold) =
            budget::eighth_threshold(self.flows.iter().map(|(_, f)| worth(f)).collect())
        else {
            return;
        };
        let before = self.flows.len();
        for (key, flow) in &self.flows {
            if worth(flow) <= threshold {
                self.evicted_carried.add(flow.wire, carried(key, flow));
                if order == Order::Usefulness {
                    self.dropped.add(flow.packets, flow.bytes);
                }
            }
        }
        self.flows.retain(|(_, flow)| worth(flow) > threshold);
        self.evicted += (before - self.flows.len()) as u64;
        self.generation = self.generation.wrapping_add(1).max(1);
        self.index.clear();
        for (slot, (key, _)) in self.flows.iter().enumerate() {
            self.index.insert(*key, slot as u32);
        }
    }
}

impl Flow {
    /// What the memory budget keeps a flow for first: its losses, retransmissions, NAKs
    /// and CNPs, the events the report ranks connections by.
    pub fn events(&self) -> u64 {
        u64::from(self.psn_gaps)
            + u64::from(self.retransmitted)
            + u64::from(self.naks)
            + u64::from(self.rnr_naks)
            + u64::from(self.cnps)
    }
}

/// What a flow carried, as the per-priority summary counts it.
fn carried(key: &FlowKey, flow: &Flow) -> Carried {
    Carried {
        packets: flow.packets,
        bytes: flow.bytes,
        ce: u64::from(flow.ecn_ce),
        cnps: if key.role == Role::Cnp {
            flow.packets
        } else {
            0
        },
    }
}

/// Counts by PCP and DSCP: a few dozen at most, so a list.
#[derive(Debug, Clone, Default)]
pub struct ByWire(Vec<(Wire, Carried)>);

impl ByWire {
    fn add(&mut self, wire: Wire, carried: Carried) {
        match self.0.iter_mut().find(|(w, _)| *w == wire) {
            Some((_, c)) => c.add(carried),
            None => self.0.push((wire, carried)),
        }
    }
}

/// Counts what the connection end made of a request, and reports gaps and go-backs.
fn book(
    flow: &mut Flow,
    key: FlowKey,
    p: u32,
    at: FrameRef,
    event: SeqEvent<'_>,
    anomalies: &mut AnomalySink,
) {
    let detail = event.detail;
    match event.verdict {
        // A gap is loss only once the sender repairs it: [`FlowTable::gap_lost`].
        Verdict::New | Verdict::Gap => {}
        Verdict::Retransmitted => {
            flow.retransmitted += 1;
            // Each episode once: the PSNs that go on with it start none.
            if let Some(episode) = detail.episode {
                anomalies.push(Anomaly {
                    at,
                    detail: AnomalyDetail::Retransmission {
                        flow: key,
                        psn: p,
                        episode,
                    },
                });
            }
        }
        Verdict::GoBackN | Verdict::GoBack0 => {
            flow.retransmitted += 1;
            flow.go_back_n += 1;
            let since = detail.nak.unwrap_or(detail.previous_at);
            let delay_ns = match (at.ts_ns, since.ts_ns) {
                (Some(now), Some(then)) if now >= then => Some(now - then),
                _ => None,
            };
            anomalies.push(Anomaly {
                at,
                detail: AnomalyDetail::GoBackN {
                    flow: key,
                    from_psn: detail.previous,
                    to_psn: p,
                    depth: (-psn::diff(p, detail.previous)).max(0) as u32,
                    nak: detail.nak,
                    delay_ns,
                    episode: detail.episode.unwrap_or_default(),
                },
            });
        }
    }
}
