//! Per-QP flow reconstruction and sequence analysis.
//!
//! A flow is (source, destination, destination QP, role). The role matters because one
//! direction between two hosts carries two PSN spaces: A's requests to B, and A's ACKs for
//! B's requests, both addressed to the same QP numbers.

use std::collections::HashMap;

/// Seeded per process, so a crafted capture cannot aim for collisions, and much faster
/// than SipHash on these small keys.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use super::psn;
use super::{Anomaly, AnomalySink, What};
use crate::dissect::{Address, Packet};
use crate::wire::aeth::{NakCode, Syndrome};
use crate::wire::opcode::{self, Role};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: Address,
    pub dst: Address,
    pub dest_qp: u32,
    pub role: Role,
}

impl FlowKey {
    /// The flow a packet belongs to: every packet with a BTH and addresses has one.
    pub fn of(pkt: &Packet<'_>) -> Option<FlowKey> {
        let bth = pkt.bth?;
        Some(FlowKey {
            src: pkt.src_addr()?,
            dst: pkt.dst_addr()?,
            dest_qp: bth.dest_qp(),
            role: opcode::info(bth.opcode()).role,
        })
    }
}

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

/// How the PMTU used for READ accounting was learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PmtuSource {
    /// `--pmtu`.
    Given,
    /// From the payload of a FIRST or MIDDLE packet, which is exactly one PMTU.
    Observed,
    /// From the largest payload seen: a lower bound only.
    Inferred,
}

impl PmtuSource {
    pub fn name(self) -> &'static str {
        match self {
            PmtuSource::Given => "given",
            PmtuSource::Observed => "observed",
            PmtuSource::Inferred => "inferred",
        }
    }
}

/// Where a frame sits: input file and frame number within it, plus its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameRef {
    pub file: u16,
    pub frame: u64,
    pub ts_ns: Option<u64>,
}

/// Recently seen PSNs of a request flow, to recognise the same packet captured at a second
/// point (another input file) rather than counting it as a retransmission.
const RECENT: usize = 4;

#[derive(Debug, Clone, Default)]
struct Sequence {
    started: bool,
    /// Highest PSN consumed so far (a READ consumes several).
    highest: u32,
    previous: u32,
    previous_at: FrameRef,
    /// The next new request must land in `next_lo ..= next_hi`; the two differ only after a
    /// READ whose PMTU is not known exactly.
    next_lo: u32,
    next_hi: u32,
    recent: [(u32, u16); RECENT],
    recent_len: u8,
    recent_pos: u8,
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
    /// The same request seen again from another capture point.
    pub duplicates: u32,
    pub naks: u32,
    pub nak_seq_err: u32,
    pub rnr_naks: u32,
    pub ecn_ce: u32,
    pub cnps: u32,
    pub first_ce: Option<FrameRef>,
    pub max_payload: u32,
    pub pmtu_observed: Option<u32>,
    /// The PMTU READ accounting used last, and how it was learned.
    pub pmtu_used: Option<(u32, PmtuSource)>,
    seq: Sequence,
    last_activity: u64,
}

/// What a host pair's responses told us, looked up by the requester's flows.
#[derive(Debug, Clone, Copy, Default)]
struct PairState {
    last_nak: Option<LastNak>,
    pmtu_observed: Option<u32>,
}

#[derive(Debug, Clone, Copy)]
struct LastNak {
    psn: u32,
    rnr: bool,
    at: FrameRef,
}

pub struct FlowTable {
    /// Flow state, densely packed; the map only points into it. A hash table of whole flows
    /// would keep up to twice their size in empty slots after growing.
    flows: Vec<(FlowKey, Flow)>,
    index: Map<FlowKey, u32>,
    /// Keyed by (requester, responder).
    pairs: Map<(Address, Address), PairState>,
    max_flows: usize,
    pmtu: Option<u32>,
    next_order: u64,
    clock: u64,
    pub evicted: u64,
}

/// IBA path MTUs span 256 to 4096 bytes.
const MIN_PMTU: u32 = 256;
const MAX_PMTU: u32 = 4096;

impl FlowTable {
    pub fn new(max_flows: usize, pmtu: Option<u32>) -> Self {
        FlowTable {
            flows: Vec::new(),
            index: Map::default(),
            pairs: Map::default(),
            max_flows: max_flows.max(1),
            pmtu,
            next_order: 0,
            clock: 0,
            evicted: 0,
        }
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
        let Some(bth) = pkt.bth else { return };
        let info = opcode::info(bth.opcode());
        let FlowKey { src, dst, .. } = key;
        self.clock += 1;
        let slot = match self.index.get(&key) {
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
                        first_psn: bth.psn(),
                        ..Flow::default()
                    },
                ));
                self.index.insert(key, slot as u32);
                self.next_order += 1;
                slot
            }
        };
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
        let op = bth.opcode() & 0x1f;
        // FIRST and MIDDLE packets carry exactly one PMTU of payload.
        let full_sized = matches!(op, 0x00 | 0x01 | 0x06 | 0x07 | 0x0d | 0x0e);
        match info.role {
            Role::Request => {
                if full_sized && payload > 0 {
                    flow.pmtu_observed = Some(payload);
                }
                // Only connected transports number their packets in one PSN space per QP;
                // UD and RD senders share a destination QP, and their PSNs interleave.
                if opcode::is_connected(bth.opcode()) {
                    let pair = self.pairs.get(&(src, dst)).copied().unwrap_or_default();
                    sequence(flow, key, pkt, at, pair, self.pmtu, anomalies);
                }
            }
            Role::Response => {
                if let Some(aeth) = pkt.aeth {
                    let pair = self.pairs.entry((dst, src)).or_default();
                    match aeth.decode() {
                        Syndrome::Nak(code) => {
                            flow.naks += 1;
                            if code == NakCode::PsnSequenceError {
                                flow.nak_seq_err += 1;
                            }
                            pair.last_nak = Some(LastNak {
                                psn: bth.psn(),
                                rnr: false,
                                at,
                            });
                            anomalies.push(Anomaly {
                                at,
                                what: What::Nak {
                                    flow: key,
                                    psn: bth.psn(),
                                    code,
                                },
                            });
                        }
                        Syndrome::RnrNak { timer } => {
                            flow.rnr_naks += 1;
                            pair.last_nak = Some(LastNak {
                                psn: bth.psn(),
                                rnr: true,
                                at,
                            });
                            anomalies.push(Anomaly {
                                at,
                                what: What::RnrNak {
                                    flow: key,
                                    psn: bth.psn(),
                                    timer,
                                },
                            });
                        }
                        _ => {}
                    }
                }
                if full_sized && payload > 0 {
                    // READ responses reveal the requester's PMTU.
                    self.pairs.entry((dst, src)).or_default().pmtu_observed = Some(payload);
                }
            }
            Role::Cnp => flow.cnps += 1,
            Role::Unknown => {}
        }
        if self.pairs.len() > self.max_flows {
            // Pair state is a hint for NAK timing and PMTU; dropping it is safe.
            self.pairs.clear();
        }
    }

    /// Drops the least recently active eighth of the table: one O(n) pass that buys n/8
    /// insertions, so eviction stays amortised O(1) per packet.
    fn evict(&mut self) {
        let mut ages: Vec<u64> = self.flows.iter().map(|(_, f)| f.last_activity).collect();
        let cut = (ages.len() / 8).max(1);
        let (_, threshold, _) = ages.select_nth_unstable(cut - 1);
        let threshold = *threshold;
        let before = self.flows.len();
        self.flows
            .retain(|(_, flow)| flow.last_activity > threshold);
        self.evicted += (before - self.flows.len()) as u64;
        self.index.clear();
        for (slot, (key, _)) in self.flows.iter().enumerate() {
            self.index.insert(*key, slot as u32);
        }
    }
}

/// The request-side PSN bookkeeping for one packet.
fn sequence(
    flow: &mut Flow,
    key: FlowKey,
    pkt: &Packet<'_>,
    at: FrameRef,
    pair: PairState,
    given_pmtu: Option<u32>,
    anomalies: &mut AnomalySink,
) {
    let Some(bth) = pkt.bth else { return };
    let p = bth.psn();
    let seq = &mut flow.seq;
    if seq.started && is_duplicate_observation(seq, p, at.file) {
        flow.duplicates += 1;
        return;
    }
    remember(seq, p, at.file);
    // PSNs this packet consumes: one, or one per READ response packet.
    let (consume_lo, consume_hi) = if opcode::is_read_request(bth.opcode()) {
        let len = pkt.reth.map_or(0, |r| r.dma_len());
        let exact = given_pmtu
            .map(|m| (m, PmtuSource::Given))
            .or(flow.pmtu_observed.map(|m| (m, PmtuSource::Observed)))
            .or(pair.pmtu_observed.map(|m| (m, PmtuSource::Observed)));
        match exact {
            Some((pmtu, source)) => {
                flow.pmtu_used = Some((pmtu, source));
                let n = packets_for(len, pmtu);
                (n, n)
            }
            None => {
                // Only a lower bound: the largest payload seen. Accept any PSN the
                // possible PMTUs allow rather than invent a gap.
                let lower = flow.max_payload.clamp(MIN_PMTU, MAX_PMTU);
                flow.pmtu_used = Some((flow.max_payload.max(1), PmtuSource::Inferred));
                (packets_for(len, MAX_PMTU), packets_for(len, lower))
            }
        }
    } else {
        (1, 1)
    };
    if !seq.started {
        seq.started = true;
        seq.highest = psn::add(p, consume_lo - 1);
    } else if psn::diff(p, seq.highest) <= 0 {
        flow.retransmitted += 1;
        if psn::diff(p, seq.previous) < 0 {
            go_back(flow, key, p, at, pair, anomalies);
        }
        flow.seq.previous = p;
        flow.seq.previous_at = at;
        return;
    } else {
        let beyond = psn::diff(p, seq.next_hi);
        if beyond > 0 {
            flow.psn_gaps += 1;
            flow.missing_psns += beyond as u64;
            anomalies.push(Anomaly {
                at,
                what: What::PsnGap {
                    flow: key,
                    psn: p,
                    expected: seq.next_hi,
                    missing: beyond as u32,
                },
            });
        }
        seq.highest = psn::add(p, consume_lo - 1);
    }
    let seq = &mut flow.seq;
    seq.next_lo = psn::add(p, consume_lo);
    seq.next_hi = psn::add(p, consume_hi);
    seq.previous = p;
    seq.previous_at = at;
}

fn go_back(
    flow: &mut Flow,
    key: FlowKey,
    p: u32,
    at: FrameRef,
    pair: PairState,
    anomalies: &mut AnomalySink,
) {
    let seq = &flow.seq;
    let nak = pair.last_nak.filter(|nak| nak.psn == p);
    if nak.is_some_and(|nak| nak.rnr) {
        // Retrying after "receiver not ready" is flow control, not loss recovery.
        return;
    }
    flow.go_back_n += 1;
    let depth = (-psn::diff(p, seq.previous)) as u32;
    let since = nak.map(|n| n.at).unwrap_or(seq.previous_at);
    let delay_ns = match (at.ts_ns, since.ts_ns) {
        (Some(now), Some(then)) if now >= then => Some(now - then),
        _ => None,
    };
    anomalies.push(Anomaly {
        at,
        what: What::GoBackN {
            flow: key,
            from_psn: seq.previous,
            to_psn: p,
            depth,
            nak: nak.map(|n| n.at),
            delay_ns,
        },
    });
}

fn packets_for(len: u32, pmtu: u32) -> u32 {
    len.div_ceil(pmtu.max(1)).max(1)
}

fn is_duplicate_observation(seq: &Sequence, p: u32, file: u16) -> bool {
    seq.recent[..usize::from(seq.recent_len)]
        .iter()
        .any(|&(psn, seen_in)| psn == p && seen_in != file)
}

fn remember(seq: &mut Sequence, p: u32, file: u16) {
    seq.recent[usize::from(seq.recent_pos)] = (p, file);
    seq.recent_pos = (seq.recent_pos + 1) % RECENT as u8;
    seq.recent_len = (seq.recent_len + 1).min(RECENT as u8);
}
