//! `rdmadump analyze`: one streaming pass over decoded packets that rebuilds per-QP flows,
//! finds PSN gaps, go-back-N episodes, NAKs, congestion marks, CRC failures, PFC storms
//! and pause cascades. What the analysis says is the report layer, built from it at the end.

pub mod budget;
pub mod capture_loss;
pub mod command_table;
pub mod connections;
pub mod crc_lanes;
pub mod flows;
pub mod halve;
pub mod hosts;
pub mod key;
pub mod nvme;
pub mod pause_lanes;
pub mod pause_overlap;
pub mod pfc;
pub mod points;
pub mod priorities;
pub mod psn;
pub mod sessions;
pub mod sketch;

use crate::crc::{CrcCheck, CrcStatus};
use crate::dissect::{Address, Kind, Packet};
use crate::wire::DecodeError;
use crate::wire::aeth::NakCode;
use crate::wire::ethernet::Mac;
use crate::wire::opcode::{self, Role};

use connections::ConnectionTable;
use flows::FlowTable;
use key::{FlowKey, FrameRef};
use pfc::{Cascade, PfcTracker, Storm};

#[derive(Debug, Clone)]
pub struct AnalyzeConfig {
    pub pmtu: Option<u32>,
    pub link_speed_bps: u64,
    pub storm_threshold_ns: u64,
    pub max_flows: usize,
    /// `--memory`: bytes for everything the analysis keeps, shared out between its tables.
    pub memory: u64,
    pub max_pfc_senders: usize,
    /// Anomalies kept for the report; all are counted.
    pub max_anomalies: usize,
    /// Which inputs are separate capture points of the same traffic, and their clock
    /// offsets; `None` when every input is one point.
    pub plan: Option<points::plan::Plan>,
    /// The user said the files are one capture point (`--single-point`).
    pub single_point: bool,
    /// The most two points' clocks (after correction) may differ for one packet.
    pub skew_bound_ns: u64,
    /// The capture points' order along the path (point indices), when the user gave it.
    pub order: Option<Vec<usize>>,
    /// Width of a connection timeline's buckets, when timelines are asked for.
    pub interval_ns: Option<u64>,
    /// Most buckets a timeline keeps; wider buckets beyond.
    pub max_buckets: u32,
    /// Record what the HTML report draws: time-sequence points, rates, pause intervals and
    /// CRC failures over time. Off, the analysis does none of that work.
    pub graphs: bool,
    /// `--qp`: the QPN whose connections alone were analysed, of all the capture holds.
    pub qp: Option<u32>,
    /// `--stall`: silences longer than this are stalls; by default 4 × the direction's p99
    /// RTT, and at least 20 µs.
    pub stall_ns: Option<u64>,
    /// `--dscp-map`: the priority of untagged traffic by DSCP.
    pub dscp_map: priorities::DscpMap,
}

impl Default for AnalyzeConfig {
    fn default() -> Self {
        AnalyzeConfig {
            pmtu: None,
            link_speed_bps: 100_000_000_000,
            storm_threshold_ns: 100_000_000,
            max_flows: 1_000_000,
            memory: budget::DEFAULT_BYTES,
            max_pfc_senders: 65_536,
            max_anomalies: 10_000,
            plan: None,
            single_point: false,
            skew_bound_ns: 100_000_000,
            order: None,
            interval_ns: None,
            max_buckets: 1000,
            graphs: false,
            qp: None,
            stall_ns: None,
            dscp_map: priorities::DscpMap::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnomalyKind {
    PsnGap,
    GoBackN,
    /// A request sent again alone, not by going back: an episode as a go-back is.
    Retransmission,
    Nak,
    RnrNak,
    IcrcBad,
    VcrcBad,
    PfcStorm,
    PauseCascade,
    Malformed,
    /// A long 802.3x PAUSE, which stops the whole link: not PFC, so not a PFC storm.
    PauseStorm,
    /// A request seen at one capture point and missing at another further along.
    LostBetween,
}

impl AnomalyKind {
    pub const ALL: [AnomalyKind; 12] = [
        AnomalyKind::PsnGap,
        AnomalyKind::GoBackN,
        AnomalyKind::Retransmission,
        AnomalyKind::Nak,
        AnomalyKind::RnrNak,
        AnomalyKind::IcrcBad,
        AnomalyKind::VcrcBad,
        AnomalyKind::PfcStorm,
        AnomalyKind::PauseCascade,
        AnomalyKind::Malformed,
        AnomalyKind::PauseStorm,
        AnomalyKind::LostBetween,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AnomalyKind::PsnGap => "psn_gap",
            AnomalyKind::GoBackN => "go_back_n",
            AnomalyKind::Retransmission => "retransmission",
            AnomalyKind::Nak => "nak",
            AnomalyKind::RnrNak => "rnr_nak",
            AnomalyKind::IcrcBad => "icrc_bad",
            AnomalyKind::VcrcBad => "vcrc_bad",
            AnomalyKind::PfcStorm => "pfc_storm",
            AnomalyKind::PauseCascade => "pause_cascade",
            AnomalyKind::Malformed => "malformed",
            AnomalyKind::PauseStorm => "pause_storm",
            AnomalyKind::LostBetween => "lost_between",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What went wrong, with what the user needs to find it.
#[derive(Debug, Clone)]
pub enum AnomalyDetail {
    PsnGap {
        flow: FlowKey,
        psn: u32,
        expected: u32,
        missing: u32,
    },
    GoBackN {
        flow: FlowKey,
        from_psn: u32,
        to_psn: u32,
        depth: u32,
        /// The NAK that asked for the retransmission, when it was captured.
        nak: Option<FrameRef>,
        /// From the NAK, or else from the packet before the jump, to the retransmission.
        delay_ns: Option<u64>,
        /// Its cause, and how long the sender waited.
        episode: key::Episode,
    },
    /// A single retransmission that starts an episode: the PSN sent again, its cause and
    /// how long the sender waited. The PSNs after it that go on with it are not listed.
    Retransmission {
        flow: FlowKey,
        psn: u32,
        episode: key::Episode,
    },
    Nak {
        flow: FlowKey,
        psn: u32,
        code: NakCode,
    },
    RnrNak {
        flow: FlowKey,
        psn: u32,
        timer: u8,
    },
    IcrcBad(CrcCheck, Endpoints),
    VcrcBad(CrcCheck, Endpoints),
    /// A PFC storm, or an 802.3x pause storm when its priority is [`pfc::ALL_PRIORITIES`].
    PfcStorm(Storm),
    PauseCascade(Cascade),
    Malformed(DecodeError),
    /// Seen last at capture point `from` (an input index), missed at `to`.
    LostBetween {
        flow: FlowKey,
        psn: u32,
        from: u16,
        to: u16,
    },
}

impl AnomalyDetail {
    pub fn kind(&self) -> AnomalyKind {
        match self {
            AnomalyDetail::PsnGap { .. } => AnomalyKind::PsnGap,
            AnomalyDetail::GoBackN { .. } => AnomalyKind::GoBackN,
            AnomalyDetail::Retransmission { .. } => AnomalyKind::Retransmission,
            AnomalyDetail::Nak { .. } => AnomalyKind::Nak,
            AnomalyDetail::RnrNak { .. } => AnomalyKind::RnrNak,
            AnomalyDetail::IcrcBad(..) => AnomalyKind::IcrcBad,
            AnomalyDetail::VcrcBad(..) => AnomalyKind::VcrcBad,
            AnomalyDetail::PfcStorm(storm) if storm.priority == pfc::ALL_PRIORITIES => {
                AnomalyKind::PauseStorm
            }
            AnomalyDetail::PfcStorm(_) => AnomalyKind::PfcStorm,
            AnomalyDetail::PauseCascade(_) => AnomalyKind::PauseCascade,
            AnomalyDetail::Malformed(_) => AnomalyKind::Malformed,
            AnomalyDetail::LostBetween { .. } => AnomalyKind::LostBetween,
        }
    }
}

/// Where a packet came from and went, to find the link that corrupted it. Held inline, not
/// boxed: a capture of corrupt frames must not cost an allocation per frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct Endpoints {
    pub src: Option<Address>,
    pub dst: Option<Address>,
    pub dest_qp: Option<u32>,
    pub src_mac: Option<Mac>,
    pub dst_mac: Option<Mac>,
    /// The outermost VLAN tag's ID.
    pub vlan: Option<u16>,
}

impl Endpoints {
    fn of(pkt: &Packet<'_>, hosts: &hosts::Hosts) -> Endpoints {
        Endpoints {
            src: pkt.src_addr().map(|a| hosts.host(a)),
            dst: pkt.dst_addr().map(|a| hosts.host(a)),
            dest_qp: pkt.bth.map(|b| b.dest_qp()),
            src_mac: pkt.eth.map(|e| e.src()),
            dst_mac: pkt.eth.map(|e| e.dst()),
            vlan: pkt.vlans.iter().next().map(|tag| tag.vid()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Anomaly {
    pub at: FrameRef,
    pub detail: AnomalyDetail,
}

/// Keeps the first anomalies in full and counts all of them, so a hostile capture cannot
/// grow the report without bound.
#[derive(Debug, Default)]
pub struct AnomalySink {
    pub kept: Vec<Anomaly>,
    pub counts: [u64; AnomalyKind::ALL.len()],
    limit: usize,
}

impl AnomalySink {
    fn new(limit: usize) -> Self {
        AnomalySink {
            limit,
            ..AnomalySink::default()
        }
    }

    pub fn push(&mut self, anomaly: Anomaly) {
        self.counts[anomaly.detail.kind().index()] += 1;
        if self.kept.len() < self.limit {
            self.kept.push(anomaly);
        }
    }

    pub fn count(&self, kind: AnomalyKind) -> u64 {
        self.counts[kind.index()]
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The most anomalies kept in [`Self::kept`]; the others are only counted.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct CrcCounts {
    pub ok: u64,
    pub bad: u64,
    pub unverifiable: u64,
}

impl CrcCounts {
    fn add(&mut self, check: Option<CrcCheck>) {
        match check.map(|c| c.status) {
            Some(CrcStatus::Ok) => self.ok += 1,
            Some(CrcStatus::Bad) => self.bad += 1,
            Some(CrcStatus::Unverifiable) => self.unverifiable += 1,
            None => {}
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct KindCounts {
    pub by_kind: [u64; 7],
    pub cnp: u64,
}

impl KindCounts {
    pub fn get(&self, kind: Kind) -> u64 {
        self.by_kind[kind as usize]
    }
}

// Counts are indexed by `kind as usize`, which is the kind's place in `Kind::ALL`.
const _: () = {
    let mut i = 0;
    while i < Kind::ALL.len() {
        assert!(Kind::ALL[i] as usize == i);
        i += 1;
    }
};

/// A PFC or PAUSE frame's identity across capture points: its sender and its contents. A
/// refresh repeats the same frame; the k-th sight at one point is the k-th frame sent.
fn pause_identity(pkt: &Packet<'_>) -> Option<points::Identity> {
    use std::hash::{BuildHasher, Hasher};
    let body: &[u8] = match (pkt.pfc, pkt.pause) {
        (Some(pfc), _) => pfc.bytes(),
        (None, Some(pause)) => pause.bytes(),
        (None, None) => return None,
    };
    let mut hasher = foldhash::quality::FixedState::with_seed(0).build_hasher();
    let sender = pkt
        .eth
        .map(|e| e.src().0)
        .or_else(|| pkt.sll.and_then(|s| s.sender.map(|m| m.0)));
    hasher.write(&sender.unwrap_or_default());
    hasher.write(body);
    Some(points::Identity::frame(hasher.finish()))
}

/// The streaming analysis state.
pub struct Analyzer {
    pub config: AnalyzeConfig,
    pub flows: FlowTable,
    pub connections: ConnectionTable,
    pub pfc: PfcTracker,
    pub anomalies: AnomalySink,
    pub counts: KindCounts,
    pub icrc: CrcCounts,
    pub vcrc: CrcCounts,
    pub ecn_ce: u64,
    /// BTH congestion marks; a CNP's BECN is not counted (it is counted as a CNP).
    pub fecn: u64,
    pub becn: u64,
    pub packets: u64,
    pub first_ts: Option<u64>,
    pub last_ts: Option<u64>,
    pub first_ce: Option<(FrameRef, FlowKey)>,
    pub first_cnp: Option<(FrameRef, FlowKey)>,
    /// Several capture points: which packets are copies, and what was lost between points.
    pub points: Option<points::Points>,
    /// Each input's clock offset from the first input's (its point's offset).
    offsets_ns: Vec<i64>,
    /// Frames analysed at another point first: counted once, there.
    pub copies: u64,
    /// Copies whose ICRC or VCRC failed: a frame counted bad once, seen bad again.
    pub copies_crc_bad: u64,
    /// With `graphs`: the CRC failures over time, by source.
    pub crc_lanes: Option<crc_lanes::CrcLanes>,
    /// Which link-local GIDs are IPv4 hosts, from the RoCE v2 traffic of their MACs.
    pub hosts: hosts::Hosts,
    /// Runs of PSNs the capture missed, the first `max_anomalies` of them; all are counted.
    pub capture_missed: Vec<capture_loss::MissedRun>,
    pub capture_missed_runs: u64,
    /// What each PFC priority carried, from the flows, once finished.
    pub priorities: priorities::PriorityCounts,
    /// NVMe-oF commands per queue.
    pub nvme: nvme::NvmeQueues,
    /// RPC-over-RDMA connections: calls and replies.
    pub rpcrdma: sessions::Sessions,
    /// iSER connections: iSCSI requests and responses.
    pub iser: sessions::Sessions,
    /// SMB Direct connections: SMB2 requests and responses.
    pub smbd: sessions::Sessions,
    /// What the command tables of the four protocols above hold, against their share.
    pub command_budget: command_table::CommandBudget,
}

impl Analyzer {
    pub fn new(mut config: AnalyzeConfig) -> Self {
        let series = config.graphs || config.interval_ns.is_some();
        let shares = budget::Shares::of(config.memory, config.max_anomalies, series);
        // A small budget keeps fewer anomalies in full; all are still counted.
        config.max_anomalies = shares.anomalies;
        let points = config.plan.as_ref().filter(|p| p.points() > 1).map(|plan| {
            let points = points::Points::new(
                plan.points(),
                plan.point_of.clone(),
                config.skew_bound_ns,
                config.max_flows,
            );
            match &config.order {
                Some(order) => points.with_order(order),
                None => points,
            }
        });
        let offsets_ns = config
            .plan
            .as_ref()
            .map_or_else(Vec::new, |p| p.file_offsets_ns());
        let mut connections = ConnectionTable::new(config.max_flows, config.pmtu)
            .with_stall(config.stall_ns)
            .within(shares.ends, shares.series_bytes);
        if let Some(interval) = config.interval_ns {
            connections = connections.with_timelines(interval, config.max_buckets);
        }
        if config.graphs {
            connections = connections.with_graphs();
        }
        let mut pfc = PfcTracker::new(
            config.link_speed_bps,
            config.storm_threshold_ns,
            config.max_pfc_senders,
        );
        if config.graphs {
            pfc.lanes = Some(pause_lanes::PauseLanes::default());
        }
        Analyzer {
            flows: FlowTable::new(config.max_flows, config.pmtu).within(shares.flows),
            connections,
            pfc,
            crc_lanes: config.graphs.then(crc_lanes::CrcLanes::default),
            anomalies: AnomalySink::new(config.max_anomalies),
            config,
            counts: KindCounts::default(),
            icrc: CrcCounts::default(),
            vcrc: CrcCounts::default(),
            ecn_ce: 0,
            fecn: 0,
            becn: 0,
            packets: 0,
            first_ts: None,
            last_ts: None,
            first_ce: None,
            first_cnp: None,
            points,
            offsets_ns,
            copies: 0,
            copies_crc_bad: 0,
            hosts: hosts::Hosts::default(),
            capture_missed: Vec::new(),
            capture_missed_runs: 0,
            priorities: priorities::PriorityCounts::default(),
            nvme: nvme::NvmeQueues::default(),
            rpcrdma: sessions::Sessions::default(),
            iser: sessions::Sessions::default(),
            smbd: sessions::Sessions::default(),
            command_budget: command_table::CommandBudget::new(shares.commands_bytes),
        }
    }

    /// Each capture point's clock offset, when there are several points.
    pub fn offsets(&self) -> &[points::skew::Offset] {
        self.config.plan.as_ref().map_or(&[], |p| &p.offsets)
    }

    /// Feeds one packet; `file` is the index of its input.
    pub fn observe(&mut self, file: usize, pkt: &Packet<'_>) {
        // Several capture points are analysed on the first one's clock.
        let offset = self.offsets_ns.get(file).copied().unwrap_or(0);
        let mut at = FrameRef::of(file, pkt);
        at.ts_ns = at.ts_ns.map(|t| t.saturating_add_signed(-offset));
        self.packets += 1;
        if let Some(ts) = at.ts_ns {
            self.first_ts = Some(self.first_ts.map_or(ts, |t| t.min(ts)));
            self.last_ts = Some(self.last_ts.map_or(ts, |t| t.max(ts)));
        }
        let mut key = FlowKey::of(pkt);
        if let Some(key) = &mut key {
            self.hosts.rekey(pkt, key);
        }
        if self.points.is_some() && self.is_copy(pkt, key, at) {
            return;
        }
        // `Kind::ALL` lists the kinds in declaration order.
        self.counts.by_kind[pkt.kind as usize] += 1;
        self.icrc.add(pkt.icrc);
        self.vcrc.add(pkt.vcrc);
        if let Some(check) = pkt.icrc.filter(|c| c.status == CrcStatus::Bad) {
            self.anomalies.push(Anomaly {
                at,
                detail: AnomalyDetail::IcrcBad(check, Endpoints::of(pkt, &self.hosts)),
            });
            self.crc_lane(pkt, at, crc_lanes::Check::Icrc);
        }
        if let Some(check) = pkt.vcrc.filter(|c| c.status == CrcStatus::Bad) {
            self.anomalies.push(Anomaly {
                at,
                detail: AnomalyDetail::VcrcBad(check, Endpoints::of(pkt, &self.hosts)),
            });
            self.crc_lane(pkt, at, crc_lanes::Check::Vcrc);
        }
        if let Some(err) = pkt.error {
            self.anomalies.push(Anomaly {
                at,
                detail: AnomalyDetail::Malformed(err),
            });
        }
        let rdma = matches!(pkt.kind, Kind::RoceV1 | Kind::RoceV2 | Kind::Ib);
        let ce = rdma && pkt.ecn_ce();
        self.ecn_ce += u64::from(ce);
        if let Some(bth) = pkt.bth {
            self.fecn += u64::from(bth.fecn());
            let cnp = match key {
                Some(key) => key.role == Role::Cnp,
                None => opcode::info(bth.opcode()).role == Role::Cnp,
            };
            self.becn += u64::from(bth.becn() && !cnp);
        }
        if let Some(key) = key {
            if key.role == Role::Cnp {
                self.counts.cnp += 1;
                self.first_cnp.get_or_insert((at, key));
            }
            if pkt.ecn_ce() {
                self.first_ce.get_or_insert((at, key));
            }
            let end = self.connections.observe(pkt, &key, at);
            if !self.connections.silences.is_empty() {
                self.measure_silences();
            }
            let read = pkt.bth.is_some_and(|b| opcode::is_read_request(b.opcode()));
            let pmtu = match end {
                Some((slot, _)) if read => self.connections.read_pmtu(slot),
                _ => None,
            };
            let hinted = end
                .and_then(|(slot, v)| Some((self.connections.hint_and_detail(slot, key.role)?, v)));
            match hinted {
                Some(((hint, detail), verdict)) => {
                    let event = verdict.map(|verdict| flows::SeqEvent {
                        verdict,
                        detail,
                        pmtu,
                    });
                    self.flows
                        .observe_hinted(pkt, key, at, event, &mut self.anomalies, hint);
                }
                None => self.flows.observe(pkt, key, at, &mut self.anomalies),
            }
            if !self.connections.decided.is_empty() {
                self.report_decided();
            }
        }
        if pkt.pfc.is_some() || pkt.pause.is_some() {
            self.pfc.observe(pkt, at, &mut self.anomalies);
        }
        let budget = &mut self.command_budget;
        match &pkt.ulp {
            Some(crate::dissect::Ulp::Nvme(nvme)) => self.observe_nvme(file, pkt, at, key, nvme),
            Some(crate::dissect::Ulp::Rpc(rpc)) => {
                self.rpcrdma.observe(file, at.frame, at.ts_ns, rpc, budget)
            }
            Some(crate::dissect::Ulp::Iser(iser)) => {
                self.iser.observe(file, at.frame, at.ts_ns, iser, budget)
            }
            Some(crate::dissect::Ulp::Smbd(smbd)) => {
                self.smbd.observe(file, at.frame, at.ts_ns, smbd, budget)
            }
            None => return,
        }
        if self.command_budget.open_over() {
            self.evict_open_commands();
        }
    }

    /// The open commands passed their share: the oldest eighth of all four protocols' go.
    #[inline(never)]
    fn evict_open_commands(&mut self) {
        let mut tables: Vec<&mut dyn command_table::OpenAges> = Vec::new();
        tables.extend(
            self.nvme
                .queues
                .values_mut()
                .map(|q| &mut q.table as &mut dyn command_table::OpenAges),
        );
        for protocol in [&mut self.rpcrdma, &mut self.iser, &mut self.smbd] {
            tables.extend(
                protocol
                    .sessions
                    .values_mut()
                    .map(|s| &mut s.table as &mut dyn command_table::OpenAges),
            );
        }
        command_table::evict_oldest(tables, &mut self.command_budget);
    }

    /// Counts an NVMe-oF frame once its flow is known; a response also measures the PFC
    /// pauses of its priority over its command's lifetime, while they are still recent.
    #[inline(never)]
    fn observe_nvme(
        &mut self,
        file: usize,
        pkt: &Packet<'_>,
        at: FrameRef,
        key: Option<FlowKey>,
        nvme: &crate::dissect::Nvme<'_>,
    ) {
        use crate::dissect::{NvmeMsg, Transfer};
        // A READ's data is in its responses; a WRITE's first packet names the whole length.
        let moved = match nvme.msg {
            NvmeMsg::Data {
                transfer: Transfer::ReadResponse,
                ..
            } => pkt.payload_len.unwrap_or(0),
            NvmeMsg::Data {
                transfer: Transfer::Write,
                ..
            } => pkt.reth.map_or(0, |r| r.dma_len()),
            _ => 0,
        };
        let (flows, pfc, dscp_map) = (&self.flows, &self.pfc, &self.config.dscp_map);
        let measure = |timed: &mut nvme::Timed| {
            let class = key
                .and_then(|k| flows.get(&k))
                .and_then(|f| f.wire.class(dscp_map));
            if let (Some(class), Some(start), Some(end)) = (class, timed.start_ns, timed.end_ns) {
                timed.priority = Some(class.priority);
                timed.paused = pfc.recent.overlap(class.priority, start, end);
            }
        };
        let moved = u64::from(moved);
        let budget = &mut self.command_budget;
        self.nvme
            .observe(file, at.frame, at.ts_ns, key, moved, nvme, budget, measure);
    }

    /// Whether `pkt` is another point's sight of a frame already analysed: its counts,
    /// marks, NAK, CNP or pause are the same events, counted once.
    #[inline(never)]
    fn is_copy(&mut self, pkt: &Packet<'_>, key: Option<FlowKey>, at: FrameRef) -> bool {
        let Some(points) = &mut self.points else {
            return false;
        };
        let id = match (key, pkt.bth) {
            (Some(key), Some(bth)) => {
                points::Identity::new(&key, bth.psn(), bth.opcode(), pkt.payload_len.unwrap_or(0))
            }
            _ => match pause_identity(pkt) {
                Some(id) => id,
                None => return false,
            },
        };
        if points.observe(id, at, &mut self.anomalies) == points::Observation::Transmission {
            return false;
        }
        if let Some(key) = key {
            self.flows.count_copy(&key);
        }
        self.copies += 1;
        let bad = |c: Option<CrcCheck>| c.is_some_and(|c| c.status == CrcStatus::Bad);
        self.copies_crc_bad += u64::from(bad(pkt.icrc) || bad(pkt.vcrc));
        true
    }

    /// Reports the gaps found lost and records the runs the capture missed.
    #[inline(never)]
    fn report_decided(&mut self) {
        for (flow, hint, decided) in self.connections.decided.drain(..) {
            match decided {
                capture_loss::Decided::Lost(run) => {
                    self.flows.gap_lost(flow, hint, &run, &mut self.anomalies);
                }
                capture_loss::Decided::Missed {
                    first,
                    count,
                    at,
                    what,
                } => {
                    self.capture_missed_runs += 1;
                    if self.capture_missed.len() < self.config.max_anomalies {
                        self.capture_missed.push(capture_loss::MissedRun {
                            flow,
                            first,
                            count,
                            at,
                            what,
                        });
                    }
                }
            }
        }
    }

    /// Measures the silences that just ended against the pauses of their priority.
    #[inline(never)]
    fn measure_silences(&mut self) {
        let mut silences = std::mem::take(&mut self.connections.silences);
        for (slot, mut silence) in silences.drain(..) {
            let priority = self.class_of_end(slot as usize);
            if let Some(class) = priority {
                let overlap =
                    self.pfc
                        .recent
                        .overlap(class.priority, silence.start_ns, silence.end_ns());
                silence.priority = Some(class.priority);
                silence.paused_ns = overlap.paused_ns;
                silence.paused_by = overlap.by;
            }
            self.connections.record_silence(slot, silence);
        }
        // The vector's room is kept for the next ones.
        self.connections.silences = silences;
    }

    /// The priority of the requests end `slot` receives: its request flow's first packet's,
    /// looked up once and kept on the end.
    fn class_of_end(&mut self, slot: usize) -> Option<priorities::Class> {
        let end = self.connections.ends().get(slot)?;
        if end.req.class.is_some() {
            return end.req.class;
        }
        let key = end.key?;
        let flow = FlowKey {
            src: key.peer,
            dst: key.addr,
            dest_qp: key.qpn,
            role: Role::Request,
        };
        let class = self.flows.get(&flow)?.wire.class(&self.config.dscp_map);
        self.connections.set_class(slot, class);
        class
    }

    fn crc_lane(&mut self, pkt: &Packet<'_>, at: FrameRef, check: crc_lanes::Check) {
        if let (Some(lanes), Some(ts_ns)) = (&mut self.crc_lanes, at.ts_ns) {
            let bad = crc_lanes::Bad {
                ts_ns,
                frame: at.frame,
                check,
                count: 1,
            };
            lanes.push(pkt.src_addr().map(|a| self.hosts.host(a)), bad);
        }
    }

    /// Closes what is still open at the end of the capture.
    pub fn finish(&mut self) {
        if let Some(points) = &mut self.points {
            points.finish(&mut self.anomalies);
        }
        self.flows.finish();
        self.connections.finish(self.last_ts);
        for slot in 0..self.connections.ends().len() {
            self.class_of_end(slot);
        }
        for (wire, carried) in self.flows.carried_by_wire() {
            if let Some(class) = wire.class(&self.config.dscp_map) {
                self.priorities.add(class, carried);
            }
        }
        self.pfc.finish(&mut self.anomalies);
        self.nvme.finish();
        self.rpcrdma.finish();
        self.iser.finish();
        self.smbd.finish();
        self.anomalies
            .kept
            .sort_by_key(|a| (a.at.ts_ns.unwrap_or(0), a.at.file, a.at.frame));
    }
}
