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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: Address,
    pub dst: Address,
    pub dest_qp: u32,
    pub role: Role,
}

/// One word for the hasher, as for connection ends: hashing the fields one by one was a
/// fifth of a packet's flow bookkeeping.
impl std::hash::Hash for FlowKey {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let (src, s) = self.src.packed();
        let (dst, d) = self.dst.packed();
        let rest = u128::from(self.dest_qp) << 96 | u128::from(self.role as u8) << 88;
        state.write_u128(src ^ dst.rotate_left(47) ^ rest ^ u128::from(s << 4 | d) << 120);
    }
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
    /// From the largest payload seen, rounded up to the next legal PMTU: a lower bound only.
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
    /// The last READ's first PSN and length while its PSN span is known only as a range:
    /// its responses, which usually arrive before the next request, can still tell the PMTU.
    unsettled_read: Option<(u32, u32)>,
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
    seq: Sequence,
    last_activity: u64,
}

/// NAKs remembered per (requester, responder) until a retransmission answers them. Several
/// QPs between the same two hosts can be NAKed at once; each go-back-N is matched to the NAK
/// of its own PSN, so one QP's NAK never times another's recovery.
const PENDING_NAKS: usize = 8;

#[derive(Debug, Clone, Copy, Default)]
struct PairState {
    naks: [Option<PendingNak>; PENDING_NAKS],
    next: u8,
}

impl PairState {
    fn push(&mut self, nak: PendingNak) {
        self.naks[usize::from(self.next)] = Some(nak);
        self.next = (self.next + 1) % PENDING_NAKS as u8;
    }

    /// The most recent NAK of PSN `psn`, removed so that a later episode at the same PSN
    /// is not timed from it again.
    fn take(&mut self, psn: u32) -> Option<PendingNak> {
        let slot = self
            .naks
            .iter_mut()
            .filter(|n| n.is_some_and(|n| n.psn == psn))
            .max_by_key(|n| n.map(|n| (n.at.ts_ns, n.at.frame)))?;
        slot.take()
    }
}

#[derive(Debug, Clone, Copy)]
struct PendingNak {
    psn: u32,
    rnr: bool,
    at: FrameRef,
}

/// A `--pmtu` that the traffic contradicts: a FIRST or MIDDLE packet of another legal size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PmtuConflict {
    pub observed: u32,
    pub at: FrameRef,
}

pub struct FlowTable {
    /// Flow state, densely packed; the map only points into it. A hash table of whole flows
    /// would keep up to twice their size in empty slots after growing.
    flows: Vec<(FlowKey, Flow)>,
    index: Map<FlowKey, u32>,
    /// Outstanding NAKs, keyed by (requester, responder).
    pairs: Map<(Address, Address), PairState>,
    /// The PMTU FIRST and MIDDLE packets showed between two hosts, in either direction,
    /// keyed by the pair in ascending order.
    path_mtus: Map<(Address, Address), u32>,
    max_flows: usize,
    pmtu: Option<u32>,
    next_order: u64,
    clock: u64,
    pub evicted: u64,
    /// The first FIRST or MIDDLE packet whose size contradicts `--pmtu`.
    pub pmtu_conflict: Option<PmtuConflict>,
}

/// The path MTUs IBA defines; no other exists.
pub const LEGAL_PMTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];
const MAX_PMTU: u32 = 4096;

pub fn is_legal_pmtu(bytes: u32) -> bool {
    LEGAL_PMTUS.contains(&bytes)
}

/// The smallest legal PMTU that can carry `payload` bytes in one packet.
fn legal_pmtu_at_least(payload: u32) -> u32 {
    LEGAL_PMTUS
        .into_iter()
        .find(|&m| m >= payload)
        .unwrap_or(MAX_PMTU)
}

fn host_pair(a: Address, b: Address) -> (Address, Address) {
    if a <= b { (a, b) } else { (b, a) }
}

impl FlowTable {
    pub fn new(max_flows: usize, pmtu: Option<u32>) -> Self {
        FlowTable {
            flows: Vec::new(),
            index: Map::default(),
            pairs: Map::default(),
            path_mtus: Map::default(),
            max_flows: max_flows.max(1),
            pmtu,
            next_order: 0,
            clock: 0,
            evicted: 0,
            pmtu_conflict: None,
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
        if bth.fecn() {
            flow.fecn += 1;
        }
        if bth.becn() && info.role != Role::Cnp {
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
        match info.role {
            Role::Request => {
                // Only connected transports number their packets in one PSN space per QP;
                // UD and RD senders share a destination QP, and their PSNs interleave.
                if opcode::is_connected(bth.opcode()) {
                    let context = Context {
                        given_pmtu: self.pmtu,
                        path_mtus: &self.path_mtus,
                        pairs: &mut self.pairs,
                    };
                    sequence(flow, key, pkt, at, context, anomalies);
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
                            self.pairs.entry((dst, src)).or_default().push(PendingNak {
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
                            self.pairs.entry((dst, src)).or_default().push(PendingNak {
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
            }
            Role::Cnp => flow.cnps += 1,
            Role::Unknown => {}
        }
        if self.pairs.len() > self.max_flows {
            // Pair state is a hint for NAK timing; dropping it is safe.
            self.pairs.clear();
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

    /// Settles the PMTU of READs still counted with an inferred one when the capture ended:
    /// their responses, seen since, may have shown it.
    pub fn finish(&mut self) {
        for (key, flow) in &mut self.flows {
            if flow.seq.unsettled_read.take().is_some()
                && let Some(&pmtu) = self.path_mtus.get(&host_pair(key.src, key.dst))
            {
                flow.pmtu_used = Some((pmtu, PmtuSource::Observed));
            }
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

/// What request bookkeeping needs from the table beyond the flow itself.
struct Context<'t> {
    given_pmtu: Option<u32>,
    path_mtus: &'t Map<(Address, Address), u32>,
    pairs: &'t mut Map<(Address, Address), PairState>,
}

impl Context<'_> {
    /// The PMTU a flow's READs are counted with, when it is known exactly.
    fn exact_pmtu(&self, flow: &Flow, key: FlowKey) -> Option<(u32, PmtuSource)> {
        self.given_pmtu
            .map(|m| (m, PmtuSource::Given))
            .or(flow.pmtu_observed.map(|m| (m, PmtuSource::Observed)))
            .or(self
                .path_mtus
                .get(&host_pair(key.src, key.dst))
                .map(|&m| (m, PmtuSource::Observed)))
    }
}

/// The request-side PSN bookkeeping for one packet.
fn sequence(
    flow: &mut Flow,
    key: FlowKey,
    pkt: &Packet<'_>,
    at: FrameRef,
    context: Context<'_>,
    anomalies: &mut AnomalySink,
) {
    let Some(bth) = pkt.bth else { return };
    let p = bth.psn();
    if let Some((read_psn, len)) = flow.seq.unsettled_read
        && let Some((pmtu, source)) = context.exact_pmtu(flow, key)
    {
        // The READ's responses have shown the PMTU since: its span is now exact.
        let n = packets_for(len, pmtu);
        flow.pmtu_used = Some((pmtu, source));
        let seq = &mut flow.seq;
        seq.unsettled_read = None;
        seq.next_lo = psn::add(read_psn, n);
        seq.next_hi = seq.next_lo;
        if psn::diff(psn::add(read_psn, n - 1), seq.highest) > 0 {
            seq.highest = psn::add(read_psn, n - 1);
        }
    }
    // PSNs this packet consumes: one, or one per READ response packet.
    let (consume_lo, consume_hi) = if opcode::is_read_request(bth.opcode()) {
        let len = pkt.reth.map_or(0, |r| r.dma_len());
        match context.exact_pmtu(flow, key) {
            Some((pmtu, source)) => {
                flow.pmtu_used = Some((pmtu, source));
                flow.seq.unsettled_read = None;
                let n = packets_for(len, pmtu);
                (n, n)
            }
            None => {
                // Only a lower bound: the largest payload seen, as a legal PMTU. Accept any
                // PSN the possible PMTUs allow rather than invent a gap.
                let lower = legal_pmtu_at_least(flow.max_payload);
                flow.pmtu_used = Some((lower, PmtuSource::Inferred));
                flow.seq.unsettled_read = Some((p, len));
                (packets_for(len, MAX_PMTU), packets_for(len, lower))
            }
        }
    } else {
        flow.seq.unsettled_read = None;
        (1, 1)
    };
    let seq = &mut flow.seq;
    if !seq.started {
        seq.started = true;
        seq.highest = psn::add(p, consume_lo - 1);
    } else if psn::diff(p, seq.highest) <= 0 {
        flow.retransmitted += 1;
        if psn::diff(p, seq.previous) < 0 {
            let nak = context
                .pairs
                .get_mut(&(key.src, key.dst))
                .and_then(|pair| pair.take(p));
            go_back(flow, key, p, at, nak, anomalies);
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
    nak: Option<PendingNak>,
    anomalies: &mut AnomalySink,
) {
    let seq = &flow.seq;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn nak(psn: u32, frame: u64) -> PendingNak {
        PendingNak {
            psn,
            rnr: false,
            at: FrameRef {
                file: 0,
                frame,
                ts_ns: Some(frame * 1000),
            },
        }
    }

    #[test]
    fn each_psn_finds_its_own_nak() {
        let mut pair = PairState::default();
        pair.push(nak(102, 7));
        pair.push(nak(502, 8));
        assert_eq!(pair.take(102).map(|n| n.at.frame), Some(7));
        assert_eq!(pair.take(502).map(|n| n.at.frame), Some(8));
        assert!(pair.take(102).is_none(), "a NAK times one episode only");
    }

    #[test]
    fn the_latest_nak_of_a_psn_wins_and_old_ones_age_out() {
        let mut pair = PairState::default();
        pair.push(nak(5, 1));
        pair.push(nak(5, 2));
        assert_eq!(pair.take(5).map(|n| n.at.frame), Some(2));
        for i in 0..PENDING_NAKS as u64 {
            pair.push(nak(100 + i as u32, 10 + i));
        }
        assert!(pair.take(5).is_none(), "pushed out by newer NAKs");
        assert!(pair.take(100).is_some());
    }

    #[test]
    fn only_legal_pmtus_exist() {
        assert!(is_legal_pmtu(1024) && !is_legal_pmtu(1000) && !is_legal_pmtu(0));
        assert_eq!(legal_pmtu_at_least(18), 256);
        assert_eq!(legal_pmtu_at_least(500), 512);
        assert_eq!(legal_pmtu_at_least(1024), 1024);
        assert_eq!(legal_pmtu_at_least(9000), 4096);
    }
}
