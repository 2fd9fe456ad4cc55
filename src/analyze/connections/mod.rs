//! QP connections: the two ends (A, QPN a) ↔ (B, QPN b) of an RC, UC or XRC association,
//! gathering the four directional flows. An end is known by the packets addressed to it:
//! (its address, its QPN, the peer's address). Requests carry only the destination QPN, so
//! the two ends are paired from the CM exchange or, failing that, from the responses.

pub mod causes;
mod direction;
pub mod history;
mod index;
mod reaction;
mod select;
pub mod sequence;
mod series;
pub mod stall;
mod timeline;
mod unpaired;

use std::collections::HashMap;

pub use direction::{IDLE_NS, NAK_CODES, OPS, Requests, Responses};
pub use history::{History, HistoryEvent};
pub use reaction::{RATIO_SCALE, WINDOW_NS};
pub use select::Selection;
use sequence::Mark;
pub use series::{Series, SeriesBudget};
use timeline::Event;
pub use timeline::{Bucket, Timeline};

use super::budget::{self, Dropped, Order};
use super::capture_loss::{Counts as CaptureCounts, Decided, MissedWhat};
use super::flows::FlowHint;
use super::key::{
    Cause, FlowKey, FrameRef, PmtuSource, SeqDetail, Transport, Verdict, is_legal_pmtu,
};
use super::priorities::Class;
use super::psn;
use crate::dissect::{Address, Packet};
use crate::wire::aeth::{NakCode, Syndrome};
use crate::wire::mad::cm::CmMsg;
use crate::wire::opcode::{self, Role};
use direction::RequestInfo;
use index::{EndIndex, PackedKey};
use unpaired::Unpaired;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// CM connections waiting for their REP, at most; a flood of REQs just forgets the oldest.
const PENDING_CM: usize = 4096;
/// The share of the capture's sequenced packets it missed from which a silence a new request
/// ended is doubted on every connection (see [`stall::Silence::may_be_idle`]).
const MISSES_EVERYWHERE: f64 = 0.01;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EndKey {
    pub addr: Address,
    pub qpn: u32,
    pub peer: Address,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PairedBy {
    Cm,
    Traffic,
    #[default]
    Unpaired,
}

impl PairedBy {
    pub fn name(self) -> &'static str {
        match self {
            PairedBy::Cm => "cm",
            PairedBy::Traffic => "traffic",
            PairedBy::Unpaired => "unpaired",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum State {
    #[default]
    EstablishedBeforeCapture,
    Connected,
    Disconnected,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::EstablishedBeforeCapture => "established_before_capture",
            State::Connected => "connected",
            State::Disconnected => "disconnected",
        }
    }
}

/// One end of a connection: what arrives at (addr, qpn) from the peer.
#[derive(Debug, Clone, Default)]
pub struct End {
    pub key: Option<EndKey>,
    /// The other end, once paired.
    pub peer: Option<u32>,
    /// This end is the connection's A (the CM active side, or the first to send requests).
    pub is_a: bool,
    pub order: u64,
    pub paired_by: PairedBy,
    /// Ends that could have been the peer when paired by traffic.
    pub candidates: u8,
    pub state: State,
    pub first: FrameRef,
    pub last: FrameRef,
    pub pmtu: Option<(u32, PmtuSource)>,
    /// Where the peer's requests to this end start, from CM.
    pub cm_start_psn: Option<u32>,
    /// From CM or the first request or response; `None` until then.
    pub transport: Option<Transport>,
    /// The peer's requests to this end.
    pub req: Requests,
    /// The peer's responses to this end's requests, and CNPs it sent this end.
    pub rsp: Responses,
    pub history: History,
    last_activity: u64,
    /// Where the flows of the packets this end receives sit in the flow table, by role.
    flow_hints: [FlowHint; 3],
}

#[derive(Debug, Clone, Copy)]
struct PendingReq {
    active: Address,
    active_qpn: u32,
    passive: Address,
    /// Where the passive side's requests start.
    passive_start: u32,
    pmtu: Option<u32>,
    transport: Option<Transport>,
    at: FrameRef,
}

pub struct ConnectionTable {
    ends: Vec<End>,
    index: EndIndex,
    /// Unpaired ends that received requests, by (their address, the peer's) and by the
    /// PSNs of those requests: where a response's requester looks for its peer.
    unpaired: Unpaired,
    /// Unpaired ends whose requests went on since `unpaired` last listed their span.
    stale_unpaired: Vec<u32>,
    pending: Map<(Address, u32), PendingReq>,
    /// Established CM connections by (address, local comm ID) of each side.
    comm: Map<(Address, u32), u32>,
    max_ends: usize,
    /// Which ends an eviction drops first: the memory budget's order when its share, not
    /// `--max-flows`, bounds the table.
    order: Order,
    /// The most ends held at once.
    pub peak: usize,
    /// Ends the memory budget evicted (all of `evicted`, when it bounds the table).
    pub dropped: Dropped,
    /// What the directions' series may reserve, and what they did.
    pub series_budget: SeriesBudget,
    given_pmtu: Option<u32>,
    /// Timeline interval and most buckets, when `--interval` asks for timelines.
    timeline: Option<(u64, u32)>,
    /// `--html`: every direction records what the report draws.
    graphs: bool,
    next_order: u64,
    clock: u64,
    pub evicted: u64,
    /// Gap runs whose fate was decided, by the flow of the requests they are in, and the
    /// hint of that flow: for the analyzer to report and to count in the flow table.
    pub decided: Vec<(FlowKey, FlowHint, Decided)>,
    /// The capture-loss counts of evicted ends.
    evicted_capture: CaptureCounts,
    /// Silences shorter than this are not measured: `--stall`, or [`stall::FLOOR_NS`].
    stall_floor_ns: u64,
    /// `--stall`, which replaces the default threshold.
    stall_given: Option<u64>,
    /// Silences that just ended, by the end whose requests fell silent: for the analyzer
    /// to measure against the pauses before they are recorded.
    pub silences: Vec<(u32, stall::Silence)>,
}

fn pmtu_from_code(code: u8) -> Option<u32> {
    (1..=5).contains(&code).then(|| 128u32 << code)
}

impl ConnectionTable {
    pub fn new(max_flows: usize, given_pmtu: Option<u32>) -> Self {
        ConnectionTable {
            ends: Vec::new(),
            index: EndIndex::default(),
            unpaired: Unpaired::default(),
            stale_unpaired: Vec::new(),
            pending: Map::default(),
            comm: Map::default(),
            max_ends: max_flows.max(2),
            order: Order::Recency,
            peak: 0,
            dropped: Dropped::default(),
            series_budget: SeriesBudget::default(),
            given_pmtu: given_pmtu.filter(|&m| is_legal_pmtu(m)),
            timeline: None,
            graphs: false,
            next_order: 0,
            clock: 0,
            evicted: 0,
            decided: Vec::new(),
            evicted_capture: CaptureCounts::default(),
            stall_floor_ns: stall::FLOOR_NS,
            stall_given: None,
            silences: Vec::new(),
        }
    }

    /// Holds at most `ends`, the memory budget's share, when that is fewer than
    /// `--max-flows`, evicting the least useful first; the series may reserve
    /// `series_bytes`.
    pub fn within(mut self, ends: usize, series_bytes: u64) -> Self {
        if ends < self.max_ends {
            self.max_ends = ends.max(2);
            self.order = Order::Usefulness;
        }
        self.series_budget = SeriesBudget::new(series_bytes);
        self
    }

    /// `--stall`: silences longer than `threshold_ns` are stalls, whatever the RTT.
    pub fn with_stall(mut self, threshold_ns: Option<u64>) -> Self {
        self.stall_given = threshold_ns;
        self.stall_floor_ns = threshold_ns.unwrap_or(stall::FLOOR_NS);
        self
    }

    /// The priority of the requests end `slot` receives.
    pub fn set_class(&mut self, slot: usize, class: Option<Class>) {
        if let Some(end) = self.ends.get_mut(slot)
            && end.req.class.is_none()
        {
            end.req.class = class;
        }
    }

    /// Books a silence measured against the pauses, on the direction it belongs to.
    pub fn record_silence(&mut self, slot: u32, silence: stall::Silence) {
        if let Some(end) = self.ends.get_mut(slot as usize) {
            end.req.stalls.record(silence);
        }
    }

    /// Gives every direction a timeline of `interval_ns` buckets, at most `max_buckets`.
    pub fn with_timelines(mut self, interval_ns: u64, max_buckets: u32) -> Self {
        self.timeline = Some((interval_ns, max_buckets));
        self
    }

    /// Gives every direction the points and rates the HTML report draws.
    pub fn with_graphs(mut self) -> Self {
        self.graphs = true;
        self
    }

    pub fn ends(&self) -> &[End] {
        &self.ends
    }

    #[inline]
    fn end_slot(&mut self, key: EndKey, at: FrameRef) -> usize {
        match self.index.get(&PackedKey::from(key)) {
            Some(slot) => slot as usize,
            None => self.new_end(key, at),
        }
    }

    #[inline(never)]
    fn new_end(&mut self, key: EndKey, at: FrameRef) -> usize {
        if self.ends.len() >= self.max_ends {
            self.evict();
        }
        let slot = self.ends.len();
        self.ends.push(End {
            key: Some(key),
            order: self.next_order,
            first: at,
            last: at,
            pmtu: self.given_pmtu.map(|m| (m, PmtuSource::Given)),
            ..End::default()
        });
        self.next_order += 1;
        self.index.insert(key.into(), slot as u32);
        self.peak = self.peak.max(self.ends.len());
        slot
    }

    /// Both ends, mutably.
    fn two(&mut self, x: usize, y: usize) -> (&mut End, &mut End) {
        debug_assert_ne!(x, y);
        if x < y {
            let (lo, hi) = self.ends.split_at_mut(y);
            (&mut lo[x], &mut hi[0])
        } else {
            let (lo, hi) = self.ends.split_at_mut(x);
            (&mut hi[0], &mut lo[y])
        }
    }

    fn link(&mut self, a: usize, b: usize, by: PairedBy, candidates: u8) {
        for (x, y) in [(a, b), (b, a)] {
            if let Some(old) = self.ends[x].peer.filter(|&p| p as usize != y) {
                // Re-paired (CM after a traffic guess): the old partner is alone again.
                self.ends[old as usize].peer = None;
                self.ends[old as usize].paired_by = PairedBy::Unpaired;
            }
            self.ends[x].peer = Some(y as u32);
            self.ends[x].paired_by = by;
            self.ends[x].candidates = candidates;
            self.ends[x].is_a = x == a;
            self.forget_unpaired(x);
        }
        // What one end learnt of the PMTU holds for both.
        let pmtu = self.ends[a].pmtu.or(self.ends[b].pmtu);
        let transport = self.ends[a].transport.max(self.ends[b].transport);
        for x in [a, b] {
            if self.ends[x].pmtu.is_none() {
                self.ends[x].pmtu = pmtu;
            }
            self.ends[x].transport = transport;
        }
    }

    fn forget_unpaired(&mut self, slot: usize) {
        self.unpaired.forget(slot as u32);
    }

    /// The path MTU end `slot`'s READs are counted with, when known.
    pub fn read_pmtu(&self, slot: usize) -> Option<(u32, PmtuSource)> {
        self.given_pmtu
            .map(|m| (m, PmtuSource::Given))
            .or(self.ends.get(slot)?.pmtu)
    }

    /// End `slot`'s hint for `role`, and what its last request that was not new did.
    pub fn hint_and_detail(
        &mut self,
        slot: usize,
        role: Role,
    ) -> Option<(&mut FlowHint, &SeqDetail)> {
        let index = match role {
            Role::Request => 0,
            Role::Response => 1,
            Role::Cnp => 2,
            Role::Unknown => return None,
        };
        let end = self.ends.get_mut(slot)?;
        Some((&mut end.flow_hints[index], &end.req.detail))
    }

    /// Feeds one packet with a BTH of a connected transport, or a CM MAD; returns the end
    /// that received it, if it has one, and for a request what it did to the sequence.
    pub fn observe(
        &mut self,
        pkt: &Packet<'_>,
        flow: &FlowKey,
        at: FrameRef,
    ) -> Option<(usize, Option<Verdict>)> {
        let bth = pkt.bth?;
        let role = flow.role;
        // CNPs name the QP they slow down, whatever its transport.
        if !opcode::is_connected(bth.opcode()) && role != Role::Cnp {
            if pkt.mad.is_some() {
                self.cm(pkt, flow, at);
            }
            return None;
        }
        self.clock += 1;
        let key = EndKey {
            addr: flow.dst,
            qpn: flow.dest_qp,
            peer: flow.src,
        };
        let slot = self.end_slot(key, at);
        let clock = self.clock;
        let end = &mut self.ends[slot];
        end.last_activity = clock;
        end.last = at;
        let mut event = None;
        match role {
            Role::Request => {
                event = self.request(slot, pkt, at);
                self.take_decided(slot);
            }
            Role::Response => {
                self.response(slot, pkt, at);
                if let Some(peer) = self.ends[slot].peer {
                    self.take_decided(peer as usize);
                }
            }
            Role::Cnp => self.cnp(slot, at),
            Role::Unknown => {}
        }
        if self.series_budget.over() {
            self.evict_series();
        }
        // Only making a new end evicts, and that came before `slot` was taken (series
        // eviction moves no end).
        Some((slot, event))
    }

    /// Moves what end `slot`'s capture-loss bookkeeping decided to [`Self::decided`], and
    /// counts the gaps it found lost.
    #[inline]
    fn take_decided(&mut self, slot: usize) {
        let end = &mut self.ends[slot];
        if end.req.capture.decided.is_empty() {
            return;
        }
        // The requests this end receives come from its peer's address to its QP.
        let flow = end.key.map(|key| FlowKey {
            src: key.peer,
            dst: key.addr,
            dest_qp: key.qpn,
            role: Role::Request,
        });
        let hint = end.flow_hints[0];
        for decided in end.req.capture.decided.drain(..) {
            match decided {
                Decided::Lost(run) => {
                    end.req.psn_gaps += 1;
                    end.req.missing_psns += run.missing();
                }
                Decided::Missed {
                    at,
                    what: MissedWhat::Requests,
                    ..
                } => end.history.gap_was_missed(clock_of(at)),
                Decided::Missed { .. } => {}
            }
            if let Some(flow) = flow {
                self.decided.push((flow, hint, decided));
            }
        }
    }

    /// The capture ended (at `end_ns`): gaps still undecided are unconfirmed, the rate
    /// after a CNP is known if the capture lasted its whole window, and silences long
    /// enough are stalls.
    pub fn finish(&mut self, end_ns: Option<u64>) {
        for end in &mut self.ends {
            end.req.capture.finish();
            end.req.reaction.finish(end_ns);
        }
        // A sniffer that drops packets drops them from every connection, not only from the
        // ones whose PSNs show it.
        let capture_misses = self.capture_loss().ratio() >= MISSES_EVERYWHERE;
        for slot in 0..self.ends.len() {
            // The RTT of a direction is timed at the requester's end, its peer.
            let rtt_p99 = self.ends[slot]
                .peer
                .and_then(|p| self.ends.get(p as usize))
                .and_then(|peer| peer.rsp.rtt.quantile(0.99));
            let threshold = self
                .stall_given
                .unwrap_or_else(|| stall::default_threshold(rtt_p99));
            let misses_of = |end: &End| {
                let counts = &end.req.capture.counts;
                counts.missed + counts.unconfirmed > 0
            };
            let peer = self.ends[slot].peer.and_then(|p| self.ends.get(p as usize));
            let misses =
                capture_misses || misses_of(&self.ends[slot]) || peer.is_some_and(misses_of);
            self.ends[slot].req.stalls.settle(threshold, misses);
        }
    }

    /// Capture loss over every direction, evicted ones included.
    pub fn capture_loss(&self) -> CaptureCounts {
        let mut total = self.evicted_capture;
        for end in &self.ends {
            total.add(&end.req.capture.counts);
        }
        total
    }

    fn learn_pmtu(&mut self, slot: usize, payload: u32) {
        if !is_legal_pmtu(payload) {
            return;
        }
        let learnt = Some((payload, PmtuSource::Observed));
        // What CM or the user said stands; what packets show only fills in.
        let settled = |pmtu: Option<(u32, PmtuSource)>| {
            matches!(pmtu, Some((_, PmtuSource::Cm | PmtuSource::Given)))
        };
        let end = &mut self.ends[slot];
        if settled(end.pmtu) {
            return;
        }
        end.pmtu = learnt;
        if let Some(peer) = end.peer {
            let peer = &mut self.ends[peer as usize];
            if !settled(peer.pmtu) {
                peer.pmtu = learnt;
            }
        }
    }

    fn request(&mut self, slot: usize, pkt: &Packet<'_>, at: FrameRef) -> Option<Verdict> {
        let bth = pkt.bth?;
        let op = bth.opcode();
        let payload = pkt.payload_len.unwrap_or(0);
        if opcode::carries_one_pmtu(op) {
            self.learn_pmtu(slot, payload);
        }
        let ce = pkt.ecn_ce();
        let given = self.given_pmtu;
        let timeline = self.timeline;
        let graphs = self.graphs;
        let peer = self.ends[slot].peer;
        let nak = peer.and_then(|p| self.ends[p as usize].rsp.last_nak);
        let floor = self.stall_floor_ns;
        let end = &mut self.ends[slot];
        let silent_since = end.req.silence_before(at.ts_ns, floor);
        if end.transport.is_none() {
            end.transport = Transport::of_opcode(op);
        }
        let read = opcode::is_read_request(op);
        let atomic = opcode::is_atomic_request(op);
        let fetch_len = if read {
            pkt.reth.map(|r| r.dma_len())
        } else if atomic {
            Some(8)
        } else {
            None
        };
        let consume = match fetch_len.filter(|_| read) {
            Some(len) => {
                let pmtu = given.map(|m| (m, PmtuSource::Given)).or(end.pmtu);
                match pmtu {
                    Some((m, _)) => {
                        let n = len.div_ceil(m).max(1);
                        (n, n)
                    }
                    None => (len.div_ceil(4096).max(1), len.div_ceil(256).max(1)),
                }
            }
            None => (1, 1),
        };
        let verdict = end.req.request(
            RequestInfo {
                psn: bth.psn(),
                opcode: op,
                payload,
                at,
                consume,
                fetch_len,
                atomic,
            },
            end.cm_start_psn,
            nak,
        );
        if let Some(ts) = at.ts_ns {
            if ce {
                end.req.reaction.ce(ts);
            }
            end.req.reaction.request(ts, payload);
        }
        if (timeline.is_some() || graphs)
            && !end.req.series.as_ref().is_some_and(|s| s.is_dropped())
            && let Some(ts) = at.ts_ns
        {
            let retransmitted = !matches!(verdict, Verdict::New | Verdict::Gap);
            let before = end.req.series.as_ref().map_or(0, |s| s.bytes());
            let series = end
                .req
                .series
                .get_or_insert_with(|| Box::new(Series::new(ts, timeline, graphs)));
            series.add(
                ts,
                Event::Packet {
                    payload,
                    retransmitted,
                },
            );
            if let Some(sequence) = &mut series.sequence {
                let mark = match verdict {
                    Verdict::New => Mark::New,
                    Verdict::Gap => Mark::Gap,
                    _ if end.req.causes.current() == Some(Cause::Timeout) => Mark::RetxTimeout,
                    _ => Mark::Retransmitted,
                };
                sequence.push_with(ts, bth.psn(), at.frame, mark, payload, None);
                if ce {
                    sequence.push(ts, bth.psn(), at.frame, Mark::Ce);
                }
            }
            self.series_budget.grew(before, series.bytes());
        }
        let into = true;
        let history = &mut end.history;
        match verdict {
            Verdict::New => history.push(HistoryEvent::Data, into, clock_of(at)),
            Verdict::Gap => history.push(HistoryEvent::Gap, into, clock_of(at)),
            Verdict::Retransmitted => {
                history.push(HistoryEvent::Retransmission, into, clock_of(at))
            }
            Verdict::GoBackN => history.push(HistoryEvent::GoBackN, into, clock_of(at)),
            Verdict::GoBack0 => history.push(HistoryEvent::GoBack0, into, clock_of(at)),
        }
        if ce {
            end.req.ecn_ce += 1;
            end.req.ce_since_cnp += 1;
            if at.ts_ns.is_some() {
                end.req.last_ce_ts = at.ts_ns;
            }
            end.history.push(HistoryEvent::CeMark, into, clock_of(at));
        }
        if bth.fecn() {
            end.req.fecn += 1;
        }
        if bth.becn() {
            end.req.becn += 1;
        }
        if peer.is_none() {
            let seq = &end.req.seq;
            let span = unpaired::span(seq.first_psn, seq.highest);
            if end.req.packets == 1
                && let Some(key) = end.key
            {
                self.unpaired.list(slot as u32, (key.addr, key.peer), span);
            } else if !end.req.seq.unpaired_stale {
                end.req.seq.unpaired_stale = true;
                self.stale_unpaired.push(slot as u32);
            }
        }
        if let Some(start) = silent_since {
            let ended_by = match verdict {
                Verdict::New | Verdict::Gap => stall::Ending::Request,
                _ if nak.is_some_and(|n| n.rnr && n.psn == bth.psn()) => stall::Ending::RnrRetry,
                _ => stall::Ending::Retransmission,
            };
            let unseen = verdict == Verdict::Gap;
            self.silence_ended(slot, peer, start, at, (ended_by, unseen), None);
        }
        if matches!(verdict, Verdict::GoBackN | Verdict::GoBack0)
            && let Some(peer) = peer
        {
            // A NAK explains one go-back; a later one without a new NAK is not its answer.
            self.ends[peer as usize].rsp.last_nak = None;
        }
        Some(verdict)
    }

    fn response(&mut self, slot: usize, pkt: &Packet<'_>, at: FrameRef) {
        let Some(bth) = pkt.bth else { return };
        let op = bth.opcode();
        let p = bth.psn();
        let payload = pkt.payload_len.unwrap_or(0);
        if opcode::carries_one_pmtu(op) {
            self.learn_pmtu(slot, payload);
        }
        if self.ends[slot].peer.is_none() {
            self.pair_by_traffic(slot, p);
        }
        let end = &mut self.ends[slot];
        if end.transport.is_none() {
            end.transport = Transport::of_opcode(op);
        }
        end.rsp.packets += 1;
        // A NAK replaces the last one, which a silence it ends may have begun with.
        let mut prior_nak = None;
        end.rsp.payload_bytes += u64::from(payload);
        end.rsp.max_payload = end.rsp.max_payload.max(payload);
        let mut nak = false;
        let mut mark = Mark::Ack;
        // Events in a direction are told by the end whose requests it carries: here, this one.
        let out = false;
        if let Some(aeth) = pkt.aeth {
            match aeth.decode() {
                Syndrome::Nak(code) => {
                    prior_nak = Some(end.rsp.last_nak);
                    nak = true;
                    mark = Mark::Nak;
                    end.rsp.nak(nak_index(code), p, at);
                    end.history.push(HistoryEvent::Nak, out, clock_of(at));
                }
                Syndrome::RnrNak { timer } => {
                    prior_nak = Some(end.rsp.last_nak);
                    nak = true;
                    mark = Mark::RnrNak;
                    end.rsp.rnr(p, at, timer);
                    end.history.push(HistoryEvent::RnrNak, out, clock_of(at));
                }
                _ => {}
            }
        }
        if bth.fecn() {
            end.rsp.fecn += 1;
        }
        if bth.becn() {
            end.rsp.becn += 1;
        }
        let Some(peer_slot) = end.peer else { return };
        let floor = self.stall_floor_ns;
        let (end, peer) = self.two(slot, peer_slot as usize);
        let silent_since = peer.req.silence_before(at.ts_ns, floor);
        let unseen = silent_since.is_some() && peer.req.answers_unseen(p, nak);
        peer.req.touch_response(at.ts_ns, payload);
        let rtt = peer.req.acknowledge(p, op, at, nak, &mut end.rsp);
        let mut grew = None;
        if let (Some(series), Some(ts)) = (&mut peer.req.series, at.ts_ns) {
            let before = series.bytes();
            if payload > 0 {
                // READ data moves this way: it is the direction's payload too.
                series.add(
                    ts,
                    Event::Packet {
                        payload,
                        retransmitted: false,
                    },
                );
            }
            if let Some(sequence) = &mut series.sequence {
                sequence.push_with(ts, p, at.frame, mark, payload, rtt);
            }
            grew = Some((before, series.bytes()));
        }
        if let Some((before, after)) = grew {
            self.series_budget.grew(before, after);
        }
        if let Some(start) = silent_since {
            let ended_by = match mark {
                Mark::Nak => stall::Ending::Nak,
                Mark::RnrNak => stall::Ending::RnrNak,
                _ => stall::Ending::Ack,
            };
            self.silence_ended(
                peer_slot as usize,
                Some(slot as u32),
                start,
                at,
                (ended_by, unseen),
                prior_nak,
            );
        }
    }

    /// A silence of end `slot`'s requests ended with `at`: queued for the analyzer, with
    /// what the requester (end `requester`) last heard, a NAK or a CNP, to tell what
    /// overlapped it. `prior_nak` is the NAK it had heard when `at` is a NAK itself; `unseen`
    /// says `at` shows traffic of the direction the capture did not see.
    #[cold]
    fn silence_ended(
        &mut self,
        slot: usize,
        requester: Option<u32>,
        start: u64,
        at: FrameRef,
        (ended_by, unseen): (stall::Ending, bool),
        prior_nak: Option<Option<direction::Nak>>,
    ) {
        let Some(now) = at.ts_ns else { return };
        let heard = requester
            .and_then(|r| self.ends.get(r as usize))
            .map(|e| &e.rsp);
        let nak = prior_nak.unwrap_or_else(|| heard.and_then(|r| r.last_nak));
        let last_cnp = heard.and_then(|r| r.last_cnp_ts);
        let began_with = nak.filter(|n| n.at.ts_ns == Some(start)).map(|n| {
            if n.rnr {
                stall::Began::RnrNak
            } else {
                stall::Began::Nak
            }
        });
        self.silences.push((
            slot as u32,
            stall::Silence {
                start_ns: start,
                duration_ns: now - start,
                file: at.file,
                frame: at.frame,
                ended_by,
                began_with,
                cnp: last_cnp.is_some_and(|c| c > start && c <= now),
                priority: None,
                paused_ns: 0,
                paused_by: None,
                unseen,
            },
        ));
    }

    /// Lists the spans of the unpaired ends whose requests went on: before a response
    /// looks for its peer, so that a request costs no index update, and an end is updated
    /// at most once per response however many requests came between.
    fn refresh_unpaired(&mut self) {
        let mut stale = std::mem::take(&mut self.stale_unpaired);
        for &slot in &stale {
            let Some(end) = self.ends.get_mut(slot as usize) else {
                continue;
            };
            end.req.seq.unpaired_stale = false;
            if end.peer.is_none() {
                let seq = &end.req.seq;
                let span = unpaired::span(seq.first_psn, seq.highest);
                self.unpaired.update(slot, span);
            }
        }
        stale.clear();
        self.stale_unpaired = stale;
    }

    fn pair_by_traffic(&mut self, slot: usize, p: u32) {
        let Some(key) = self.ends[slot].key else {
            return;
        };
        self.refresh_unpaired();
        // Requests from this end's address to the responder: their ends are (peer, addr).
        let ends = &self.ends;
        let closest = self.unpaired.closest(&(key.peer, key.addr), p, |other| {
            let seq = &ends[other as usize].req.seq;
            if !seq.started || other as usize == slot {
                return None;
            }
            let ahead = psn::diff(seq.highest, p);
            let behind = psn::diff(p, seq.first_psn);
            (ahead >= 0 && behind >= 0).then_some(ahead)
        });
        if let Some((other, candidates)) = closest {
            // This end receives the responses: it belongs to the requester, A.
            self.link(slot, other as usize, PairedBy::Traffic, candidates);
        }
    }

    fn cnp(&mut self, slot: usize, at: FrameRef) {
        // The CE marks a CNP answers are on the requests of the QP it slows down: its peer,
        // or, before pairing, the one end that receives requests from this host, if alone.
        let peer = self.ends[slot].peer.or_else(|| {
            let key = self.ends[slot].key?;
            self.unpaired
                .only(&(key.peer, key.addr))
                .filter(|&only| only as usize != slot)
        });
        let answered = peer.map(|p| self.ends[p as usize].req.answered_by_cnp(at.ts_ns));
        if let (Some(p), Some(ts)) = (peer, at.ts_ns)
            && let Some(series) = &mut self.ends[p as usize].req.series
        {
            let before = series.bytes();
            series.add(ts, Event::Cnp);
            if let Some(sequence) = &mut series.sequence {
                sequence.push_at_head(ts, at.frame, Mark::Cnp);
            }
            self.series_budget.grew(before, series.bytes());
        }
        let end = &mut self.ends[slot];
        end.rsp.cnp(at.ts_ns, answered);
        end.history.push(HistoryEvent::Cnp, false, clock_of(at));
    }

    fn cm(&mut self, pkt: &Packet<'_>, flow: &FlowKey, at: FrameRef) {
        let Some(cm) = pkt.mad.and_then(|m| m.cm()) else {
            return;
        };
        // The flow's addresses are hosts, as the ends' keys are.
        let (src, dst) = (flow.src, flow.dst);
        match cm.msg() {
            CmMsg::Req => {
                let (Some(lcid), Some(qpn), Some(start)) =
                    (cm.local_comm_id(), cm.local_qpn(), cm.starting_psn())
                else {
                    return;
                };
                if self.pending.len() >= PENDING_CM {
                    self.pending.clear();
                }
                let req = cm.req();
                self.pending.insert(
                    (src, lcid),
                    PendingReq {
                        active: src,
                        active_qpn: qpn,
                        passive: dst,
                        passive_start: start,
                        pmtu: req.and_then(|r| pmtu_from_code(r.path_mtu_code())),
                        transport: req.and_then(|r| Transport::of_cm(r.transport_type())),
                        at,
                    },
                );
            }
            CmMsg::Rep => {
                let (Some(lcid), Some(rcid), Some(qpn), Some(start)) = (
                    cm.local_comm_id(),
                    cm.remote_comm_id(),
                    cm.local_qpn(),
                    cm.starting_psn(),
                ) else {
                    return;
                };
                let Some(req) = self.pending.remove(&(dst, rcid)) else {
                    return;
                };
                if req.passive != src {
                    return;
                }
                // End a receives from B; end b receives from A.
                let a_key = EndKey {
                    addr: req.active,
                    qpn: req.active_qpn,
                    peer: src,
                };
                self.end_slot(a_key, at);
                let b = self.end_slot(
                    EndKey {
                        addr: src,
                        qpn,
                        peer: req.active,
                    },
                    at,
                );
                // Making room for b may have evicted or moved a.
                let Some(a) = self.index.get(&PackedKey::from(a_key)) else {
                    return;
                };
                let a = a as usize;
                if a == b {
                    return;
                }
                self.link(a, b, PairedBy::Cm, 1);
                for (slot, start) in [(a, req.passive_start), (b, start)] {
                    let end = &mut self.ends[slot];
                    if req.at.file == end.first.file && req.at.frame < end.first.frame {
                        end.first = req.at;
                    }
                    end.state = State::Connected;
                    end.transport = req.transport;
                    if !end.req.seq.started {
                        end.cm_start_psn = Some(start);
                    }
                    if let Some(m) = req.pmtu.filter(|&m| is_legal_pmtu(m)) {
                        end.pmtu = Some((m, PmtuSource::Cm));
                    }
                }
                self.ends[a]
                    .history
                    .push(HistoryEvent::Handshake, false, clock_of(at));
                if self.comm.len() >= PENDING_CM {
                    self.comm.clear();
                }
                self.comm.insert((req.active, rcid), a as u32);
                self.comm.insert((src, lcid), b as u32);
            }
            CmMsg::Dreq | CmMsg::Drep => {
                let Some(lcid) = cm.local_comm_id() else {
                    return;
                };
                let Some(&slot) = self.comm.get(&(src, lcid)) else {
                    return;
                };
                let slot = slot as usize;
                let Some(end) = self.ends.get_mut(slot) else {
                    return;
                };
                end.last = at;
                if end.state != State::Disconnected {
                    end.state = State::Disconnected;
                    end.history
                        .push(HistoryEvent::Disconnect, false, clock_of(at));
                    if let Some(peer) = end.peer {
                        self.ends[peer as usize].state = State::Disconnected;
                    }
                }
            }
            _ => {}
        }
    }

    /// Drops the eighth of the ends that comes first in the eviction order, as the flow
    /// table does, and renumbers what points at the rest.
    fn evict(&mut self) {
        // Slots are renumbered below: the stale list names the old ones.
        self.refresh_unpaired();
        let order = self.order;
        let worth = |e: &End| order.worth(e.events(), e.packets(), e.last_activity);
        let Some(threshold) = budget::eighth_threshold(self.ends.iter().map(worth).collect())
        else {
            return;
        };
        let mut renumber = vec![u32::MAX; self.ends.len()];
        let mut next = 0u32;
        for (old, end) in self.ends.iter().enumerate() {
            if worth(end) > threshold {
                renumber[old] = next;
                next += 1;
            }
        }
        for end in &mut self.ends {
            if worth(end) <= threshold {
                end.req.capture.finish();
                self.evicted_capture.add(&end.req.capture.counts);
                if order == Order::Usefulness {
                    self.dropped.add(end.packets(), end.payload_bytes());
                }
                if let Some(series) = end.req.series.take() {
                    self.series_budget.release(series.bytes());
                }
            }
        }
        let before = self.ends.len();
        self.ends.retain(|e| worth(e) > threshold);
        self.evicted += (before - self.ends.len()) as u64;
        let map = |old: u32| {
            renumber
                .get(old as usize)
                .copied()
                .filter(|&n| n != u32::MAX)
        };
        for end in &mut self.ends {
            end.peer = end.peer.and_then(map);
            if end.peer.is_none() && end.paired_by != PairedBy::Unpaired {
                end.paired_by = PairedBy::Unpaired;
            }
        }
        self.index.clear();
        for (slot, end) in self.ends.iter().enumerate() {
            if let Some(key) = end.key {
                self.index.insert(key.into(), slot as u32);
            }
        }
        self.unpaired.renumber(map);
        self.comm.retain(|_, s| match map(*s) {
            Some(n) => {
                *s = n;
                true
            }
            None => false,
        });
    }
}

impl End {
    /// What the memory budget keeps an end for first: the losses, retransmissions and
    /// silences (stalls, before the capture's end settles which are) of the requests it
    /// receives, and the NAKs and CNPs it receives.
    pub fn events(&self) -> u64 {
        u64::from(self.req.psn_gaps)
            + u64::from(self.req.retransmitted)
            + self.req.stalls.silences.as_ref().map_or(0, |s| s.count)
            + self.rsp.naks.iter().map(|&n| u64::from(n)).sum::<u64>()
            + u64::from(self.rsp.rnr_naks)
            + u64::from(self.rsp.cnps)
    }

    /// Packets the end received: requests, responses and CNPs.
    pub fn packets(&self) -> u64 {
        self.req.packets + self.rsp.packets + u64::from(self.rsp.cnps)
    }

    /// Payload bytes the end received.
    pub fn payload_bytes(&self) -> u64 {
        self.req.payload_bytes + self.rsp.payload_bytes
    }
}

impl ConnectionTable {
    /// Drops the series of the eighth of the ends holding one that are least useful, for
    /// good: a direction whose series was dropped keeps an empty one, which records nothing
    /// (a flag on the end would make every end 8 bytes larger), so that the series left do
    /// not lose their room to new ones.
    ///
    /// Among equals the latest to appear go first, not the least recently active: the
    /// report ranks equal connections in order of appearance and draws the first.
    #[cold]
    fn evict_series(&mut self) {
        let worth = |e: &End| Order::Usefulness.worth(e.events(), e.packets(), u64::MAX - e.order);
        // An eighth of the series may hold less than the excess: the newest are the least
        // useful, and the smallest.
        while self.series_budget.over() {
            let holds = |e: &End| e.req.series.as_ref().is_some_and(|s| !s.is_dropped());
            let holding = self.ends.iter().filter(|e| holds(e));
            let Some(threshold) = budget::eighth_threshold(holding.map(worth).collect()) else {
                return;
            };
            for end in &mut self.ends {
                if holds(end) && worth(end) <= threshold {
                    let dropped = Box::new(Series::default());
                    self.series_budget.grew(0, dropped.bytes());
                    if let Some(series) = end.req.series.replace(dropped) {
                        self.series_budget.drop_series(series.bytes());
                    }
                }
            }
        }
    }
}

fn nak_index(code: NakCode) -> usize {
    match code {
        NakCode::PsnSequenceError => 0,
        NakCode::InvalidRequest => 1,
        NakCode::RemoteAccessError => 2,
        NakCode::RemoteOperationalError => 3,
        NakCode::InvalidRdRequest => 4,
        NakCode::Reserved(_) => 5,
    }
}

/// Events are ordered by file and frame number, which is capture order within a file.
fn clock_of(at: FrameRef) -> u64 {
    at.ts_ns.unwrap_or(at.frame)
}

/// Bytes an end that received requests costs among the unpaired ends, at most: its own
/// entry in their map (a full map keeps 1/8 empty), and a list with room for four.
pub fn bytes_unpaired() -> usize {
    let entry = std::mem::size_of::<((Address, Address), Vec<u32>)>() + 1;
    entry * 8 / 7 + 4 * std::mem::size_of::<u32>() + 16
}

/// Bytes one connection (two ends) costs, sketches with samples included, plus index.
pub fn bytes_per_connection() -> usize {
    let end = std::mem::size_of::<End>();
    let index = EndIndex::bytes_per_key();
    // Sketches allocate their buckets at their first sample: message sizes, RTT and READ
    // latency are the ones nearly every connection fills.
    let sketches = 4 * super::sketch::bytes_per_sketch();
    2 * (end + index + sketches)
}
