//! The report model: what an analysis found, as plain data, ready to be written as JSON
//! (through serde) or as tables. Long lists (flows, anomalies) are views over the
//! analyzer's own storage, produced row by row as they are written: with a million flows
//! the document is hundreds of megabytes, which must not be held on top of the flow table.
//!
//! The serialized key names are a contract (docs/json-schema.md): more may be added, none
//! renamed.

use std::collections::HashMap;
use std::fmt::Display;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::flows::{Flow, FlowKey, FrameRef};
use super::pfc::{ALL_PRIORITIES, Cascade, Join, SenderStats, Storm};
use super::{AnalyzeConfig, Analyzer, Anomaly, AnomalyKind, CrcCounts, Endpoints, What};
use crate::capture::merge::InputReport;
use crate::dissect::Address;
use crate::dissect::Kind;
use crate::wire::ethernet::Mac;
use crate::wire::opcode::{self, Role};

/// Memory one flow costs in the table: its state, plus an index entry with the hash
/// table's control byte and spare capacity (at most 1/8 empty at full load). Growth can
/// leave up to as much again unused until the table fills.
pub fn bytes_per_flow() -> usize {
    let state = std::mem::size_of::<(FlowKey, Flow)>();
    let index = (std::mem::size_of::<(FlowKey, u32)>() + 1) * 8 / 7;
    state + index
}

/// The whole report of one `analyze` run.
#[derive(Serialize)]
pub struct Report<'a> {
    pub capture: CaptureSummary<'a>,
    #[serde(serialize_with = "kind_counts")]
    pub counts: &'a super::KindCounts,
    pub icrc: CrcCounts,
    pub vcrc: CrcCounts,
    pub ecn_ce: u64,
    pub fecn: u64,
    pub becn: u64,
    pub congestion: Congestion<'a>,
    /// QP connections, both ends paired when the capture allows.
    pub connections: super::connections::Connections<'a>,
    pub connection_table: ConnectionTableSummary,
    /// Sequenced packets the capture missed although the responders acknowledged them.
    pub capture_loss: super::capture_loss::Counts,
    /// Several capture points: their clock offsets, copies and what was lost between them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_points: Option<CapturePoints<'a>>,
    pub flows: Flows<'a>,
    pub flow_table: FlowTableSummary,
    pub pfc: PfcSummary<'a>,
    #[serde(serialize_with = "anomaly_counts")]
    pub anomaly_counts: &'a super::AnomalySink,
    pub anomalies_omitted: u64,
    pub anomalies: Anomalies<'a>,
    /// What the analysis was asked to assume.
    #[serde(skip)]
    pub config: &'a AnalyzeConfig,
}

impl<'a> Report<'a> {
    /// The model of a finished analysis of the inputs that `input` describes.
    pub fn new(analyzer: &'a Analyzer, input: &'a InputReport) -> Self {
        let files = Files(&input.files);
        let flows = analyzer.flows.sorted();
        let sink = &analyzer.anomalies;
        Report {
            capture: CaptureSummary {
                files: &input.files,
                packets: input.records,
                analyzed: analyzer.packets,
                first_ts: analyzer.first_ts.map(Seconds),
                first_ts_ns: analyzer.first_ts,
                last_ts: analyzer.last_ts.map(Seconds),
                last_ts_ns: analyzer.last_ts,
                truncated: input.truncated,
            },
            counts: &analyzer.counts,
            icrc: analyzer.icrc,
            vcrc: analyzer.vcrc,
            ecn_ce: analyzer.ecn_ce,
            fecn: analyzer.fecn,
            becn: analyzer.becn,
            congestion: Congestion::new(analyzer, &flows, files),
            connections: super::connections::Connections {
                table: &analyzer.connections,
                files,
            },
            connection_table: ConnectionTableSummary {
                evicted_ends: analyzer.connections.evicted,
                bytes_per_connection: super::connections::bytes_per_connection() as u64,
            },
            capture_loss: analyzer.connections.capture_loss(),
            capture_points: analyzer.points.as_ref().map(|points| CapturePoints {
                skew_bound_ns: analyzer.config.skew_bound_ns,
                points,
                offsets: &analyzer.offsets,
                files,
            }),
            flows: Flows { rows: flows, files },
            flow_table: FlowTableSummary {
                flows: analyzer.flows.len() as u64,
                max_flows: analyzer.config.max_flows as u64,
                evicted: analyzer.flows.evicted,
                bytes_per_flow: bytes_per_flow() as u64,
            },
            pfc: PfcSummary::new(analyzer, files),
            anomaly_counts: sink,
            anomalies_omitted: sink.total() - sink.kept.len() as u64,
            anomalies: Anomalies {
                list: &sink.kept,
                files,
            },
            config: &analyzer.config,
        }
    }

    /// The inputs' names, as given.
    pub fn files(&self) -> &'a [String] {
        self.capture.files
    }
}

#[derive(Serialize)]
pub struct CaptureSummary<'a> {
    pub files: &'a [String],
    /// Records read, before filtering.
    pub packets: u64,
    /// Records that passed the filter and were analyzed.
    pub analyzed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts: Option<Seconds>,
    /// Every time in seconds has its twin in integer nanoseconds, which a reader that
    /// parses numbers as doubles cannot round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts: Option<Seconds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts_ns: Option<u64>,
    pub truncated: bool,
}

#[derive(Serialize)]
pub struct ConnectionTableSummary {
    pub evicted_ends: u64,
    pub bytes_per_connection: u64,
}

#[derive(Serialize)]
pub struct FlowTableSummary {
    pub flows: u64,
    pub max_flows: u64,
    pub evicted: u64,
    pub bytes_per_flow: u64,
}

/// Nanoseconds since the epoch (or a duration), written as seconds with all nine decimals,
/// `S.NNNNNNNNN`, in the report's JSON and tables alike: a float would lose the nanoseconds
/// of an epoch time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub u64);

impl Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}.{:09}",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use std::io::Write;
        // u64::MAX is 20 digits: 11 before the point, the point, 9 after.
        let mut buf = [0u8; 24];
        let capacity = buf.len();
        let mut cursor = &mut buf[..];
        let _ = write!(cursor, "{self}");
        let len = capacity - cursor.len();
        let text = std::str::from_utf8(&buf[..len]).map_err(serde::ser::Error::custom)?;
        // A raw number is the one way to hand serde_json exact digits; it borrows the
        // stack buffer, so writing a time allocates nothing.
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(text).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

fn display<S: Serializer>(value: &impl Display, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

fn kind_counts<S: Serializer>(
    counts: &&super::KindCounts,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(Kind::ALL.len() + 1))?;
    for kind in Kind::ALL {
        map.serialize_entry(kind.name(), &counts.get(kind))?;
    }
    map.serialize_entry("cnp", &counts.cnp)?;
    map.end()
}

fn anomaly_counts<S: Serializer>(
    sink: &&super::AnomalySink,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(AnomalyKind::ALL.len()))?;
    for kind in AnomalyKind::ALL {
        map.serialize_entry(kind.name(), &sink.count(kind))?;
    }
    map.end()
}

/// The inputs' names, to name the file of a frame when there are several.
#[derive(Debug, Clone, Copy)]
pub struct Files<'a>(pub &'a [String]);

impl<'a> Files<'a> {
    /// The name of input `index`, when naming it is needed (several inputs).
    pub fn name(self, index: u16) -> Option<&'a str> {
        (self.0.len() > 1).then(|| self.0.get(usize::from(index)).map_or("", |s| s.as_str()))
    }
}

/// A frame reference as written under key names with a prefix (`first_frame`, `nak_ts`...).
macro_rules! located {
    ($(#[$doc:meta])* $name:ident, $frame:literal, $ts:literal, $ts_ns:literal, $file:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Serialize)]
        pub struct $name<'a> {
            #[serde(rename = $frame)]
            pub frame: u64,
            #[serde(rename = $ts, skip_serializing_if = "Option::is_none")]
            pub ts: Option<Seconds>,
            #[serde(rename = $ts_ns, skip_serializing_if = "Option::is_none")]
            pub ts_ns: Option<u64>,
            #[serde(rename = $file, skip_serializing_if = "Option::is_none")]
            pub file: Option<&'a str>,
        }

        impl<'a> $name<'a> {
            pub fn new(at: FrameRef, files: Files<'a>) -> Self {
                $name {
                    frame: at.frame,
                    ts: at.ts_ns.map(Seconds),
                    ts_ns: at.ts_ns,
                    file: files.name(at.file),
                }
            }
        }
    };
}

located!(
    /// Where an event happened: `frame`, `ts`, `ts_ns`, `file`.
    At, "frame", "ts", "ts_ns", "file"
);
located!(
    First,
    "first_frame",
    "first_ts",
    "first_ts_ns",
    "first_file"
);
located!(Last, "last_frame", "last_ts", "last_ts_ns", "last_file");
located!(
    Start,
    "start_frame",
    "start_ts",
    "start_ts_ns",
    "start_file"
);
located!(NakAt, "nak_frame", "nak_ts", "nak_ts_ns", "nak_file");

/// The keys that name a flow.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FlowId<'a> {
    #[serde(serialize_with = "display")]
    pub src: &'a crate::dissect::Address,
    #[serde(serialize_with = "display")]
    pub dst: &'a crate::dissect::Address,
    pub dest_qp: u32,
    #[serde(serialize_with = "role_name")]
    pub role: Role,
}

impl<'a> FlowId<'a> {
    pub fn new(key: &'a FlowKey) -> Self {
        FlowId {
            src: &key.src,
            dst: &key.dst,
            dest_qp: key.dest_qp,
            role: key.role,
        }
    }
}

fn role_name<S: Serializer>(role: &Role, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(role.name())
}

/// One row of the flow list. Its keys are written out rather than flattened from
/// `FlowId`, `First` and `Last`: serde serializes a flattened struct through a map, which
/// made a million-flow report markedly slower, and this is the one list that grows with
/// the capture.
#[derive(Serialize)]
pub struct FlowRow<'a> {
    #[serde(serialize_with = "display")]
    pub src: &'a crate::dissect::Address,
    #[serde(serialize_with = "display")]
    pub dst: &'a crate::dissect::Address,
    pub dest_qp: u32,
    #[serde(serialize_with = "role_name")]
    pub role: Role,
    pub packets: u64,
    pub bytes: u64,
    pub first_frame: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts: Option<Seconds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ts_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_file: Option<&'a str>,
    pub last_frame: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts: Option<Seconds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ts_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_file: Option<&'a str>,
    pub first_psn: u32,
    pub last_psn: u32,
    pub psn_gaps: u32,
    pub missing_psns: u64,
    pub retransmitted: u32,
    pub go_back_n: u32,
    pub duplicates: u32,
    pub naks: u32,
    pub nak_seq_err: u32,
    pub rnr_naks: u32,
    pub ecn_ce: u32,
    pub fecn: u32,
    pub becn: u32,
    pub cnps: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pmtu: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pmtu_source: Option<&'static str>,
    pub opcodes: Opcodes<'a>,
}

impl<'a> FlowRow<'a> {
    pub fn new(key: &'a FlowKey, flow: &'a Flow, files: Files<'a>) -> Self {
        FlowRow {
            src: &key.src,
            dst: &key.dst,
            dest_qp: key.dest_qp,
            role: key.role,
            packets: flow.packets,
            bytes: flow.bytes,
            first_frame: flow.first.frame,
            first_ts: flow.first.ts_ns.map(Seconds),
            first_ts_ns: flow.first.ts_ns,
            first_file: files.name(flow.first.file),
            last_frame: flow.last.frame,
            last_ts: flow.last.ts_ns.map(Seconds),
            last_ts_ns: flow.last.ts_ns,
            last_file: files.name(flow.last.file),
            first_psn: flow.first_psn,
            last_psn: flow.last_psn,
            psn_gaps: flow.psn_gaps,
            missing_psns: flow.missing_psns,
            retransmitted: flow.retransmitted,
            go_back_n: flow.go_back_n,
            duplicates: flow.duplicates,
            naks: flow.naks,
            nak_seq_err: flow.nak_seq_err,
            rnr_naks: flow.rnr_naks,
            ecn_ce: flow.ecn_ce,
            fecn: flow.fecn,
            becn: flow.becn,
            cnps: flow.cnps,
            pmtu: flow.pmtu_used.map(|(pmtu, _)| pmtu),
            pmtu_source: flow.pmtu_used.map(|(_, source)| source.name()),
            opcodes: Opcodes(flow),
        }
    }
}

/// A flow's packets by opcode name, in order of first appearance.
pub struct Opcodes<'a>(&'a Flow);

impl Serialize for Opcodes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let histogram = &self.0.opcodes;
        let mut map = serializer.serialize_map(None)?;
        for (op, count) in histogram.entries() {
            map.serialize_entry(opcode::info(op).name, &count)?;
        }
        if histogram.other() > 0 {
            map.serialize_entry("other", &histogram.other())?;
        }
        map.end()
    }
}

/// Every flow, in order of first appearance.
pub struct Flows<'a> {
    pub rows: Vec<(&'a FlowKey, &'a Flow)>,
    files: Files<'a>,
}

impl<'a> Flows<'a> {
    pub fn iter(&self) -> impl Iterator<Item = FlowRow<'a>> + '_ {
        self.rows
            .iter()
            .map(|&(key, flow)| FlowRow::new(key, flow, self.files))
    }
}

impl Serialize for Flows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.rows.len()))?;
        for row in self.iter() {
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
pub struct CeFlow<'a> {
    #[serde(flatten)]
    pub id: FlowId<'a>,
    pub ecn_ce: u32,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub first: Option<First<'a>>,
}

#[derive(Serialize)]
pub struct CnpTarget<'a> {
    #[serde(flatten)]
    pub id: FlowId<'a>,
    pub cnps: u32,
    #[serde(flatten)]
    pub first: First<'a>,
    /// Request flows from the CNP's target host to its sender that carry CE marks: the
    /// candidates for the flow whose marks caused the CNPs.
    pub ce_flows: u32,
    /// The destination QP of the candidate the CNPs answer, when it is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_dest_qp: Option<u32>,
    /// How it is known: `only_ce_flow`, or `acknowledged_psn` when the last ACK to the
    /// CNP's QP carries the last PSN of exactly one candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_paired_by: Option<&'static str>,
    /// From the first CE mark of that flow to the first CNP. RoCE does not say which QP of
    /// the target host a CNP's QP talks to, so without a known pairing there is no delay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_to_cnp_ns: Option<u64>,
}

/// CE-marked request flows of one host pair, to pair CNPs with.
#[derive(Clone, Copy, Default)]
struct MarkedFlows {
    count: u32,
    /// The one flow when `count` is 1: its destination QP and first CE time.
    only: Option<(u32, Option<u64>)>,
}

#[derive(Serialize)]
pub struct FlowEvent<'a> {
    #[serde(flatten)]
    pub id: FlowId<'a>,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Congestion<'a> {
    pub ce_flows: Vec<CeFlow<'a>>,
    pub cnp_targets: Vec<CnpTarget<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ce: Option<FlowEvent<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_cnp: Option<FlowEvent<'a>>,
    /// From the first CE mark to the first CNP of the capture, whatever their flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_to_cnp_ns: Option<u64>,
}

impl<'a> Congestion<'a> {
    fn new(analyzer: &'a Analyzer, flows: &[(&'a FlowKey, &'a Flow)], files: Files<'a>) -> Self {
        let ce_flows = flows
            .iter()
            .filter(|(_, f)| f.ecn_ce > 0)
            .map(|&(key, flow)| CeFlow {
                id: FlowId::new(key),
                ecn_ce: flow.ecn_ce,
                first: flow.first_ce.map(|at| First::new(at, files)),
            })
            .collect();
        // One pass indexes the CE-marked request flows, by host pair and by last PSN, and the
        // responses by the QP they go to, so pairing every CNP flow stays linear.
        type Index<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
        let mut marked: Index<(Address, Address), MarkedFlows> = Index::default();
        let mut by_last_psn: Index<(Address, Address, u32), MarkedFlows> = Index::default();
        let mut last_ack: Index<(Address, Address, u32), u32> = Index::default();
        let any_cnp = flows.iter().any(|(k, _)| k.role == Role::Cnp);
        for (key, flow) in flows.iter().filter(|_| any_cnp) {
            match key.role {
                Role::Request if flow.ecn_ce > 0 => {
                    let this = (key.dest_qp, flow.first_ce.and_then(|at| at.ts_ns));
                    for entry in [
                        marked.entry((key.src, key.dst)).or_default(),
                        by_last_psn
                            .entry((key.src, key.dst, flow.last_psn))
                            .or_default(),
                    ] {
                        entry.count += 1;
                        entry.only = (entry.count == 1).then_some(this);
                    }
                }
                Role::Response => {
                    last_ack.insert((key.src, key.dst, key.dest_qp), flow.last_psn);
                }
                _ => {}
            }
        }
        let cnp_targets = flows
            .iter()
            .filter(|(k, _)| k.role == Role::Cnp)
            .map(|&(key, flow)| {
                // The CE marks that caused these CNPs travelled the other way: requests from
                // the CNP's destination to its source.
                let candidates = marked.get(&(key.dst, key.src)).copied().unwrap_or_default();
                let paired = match candidates.only {
                    Some(only) => Some((only, "only_ce_flow")),
                    None => last_ack
                        .get(&(key.src, key.dst, key.dest_qp))
                        .and_then(|psn| by_last_psn.get(&(key.dst, key.src, *psn)))
                        .and_then(|m| m.only)
                        .map(|only| (only, "acknowledged_psn")),
                };
                let ce_to_cnp_ns = match (paired.and_then(|((_, ce), _)| ce), flow.first.ts_ns) {
                    (Some(ce), Some(cnp)) if cnp >= ce => Some(cnp - ce),
                    _ => None,
                };
                CnpTarget {
                    id: FlowId::new(key),
                    cnps: flow.cnps,
                    first: First::new(flow.first, files),
                    ce_flows: candidates.count,
                    ce_dest_qp: paired.map(|((qp, _), _)| qp),
                    ce_paired_by: paired.map(|(_, by)| by),
                    ce_to_cnp_ns,
                }
            })
            .collect();
        let event = |found: &'a Option<(FrameRef, FlowKey)>| {
            found.as_ref().map(|(at, key)| FlowEvent {
                id: FlowId::new(key),
                at: At::new(*at, files),
            })
        };
        let ce_to_cnp_ns = match (analyzer.first_ce, analyzer.first_cnp) {
            (Some((ce, _)), Some((cnp, _))) => match (ce.ts_ns, cnp.ts_ns) {
                (Some(ce), Some(cnp)) if cnp >= ce => Some(cnp - ce),
                _ => None,
            },
            _ => None,
        };
        Congestion {
            ce_flows,
            cnp_targets,
            first_ce: event(&analyzer.first_ce),
            first_cnp: event(&analyzer.first_cnp),
            ce_to_cnp_ns,
        }
    }
}

/// A PFC priority, or `all` for 802.3x PAUSE, which stops every priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priority(pub u8);

impl Priority {
    pub fn name(self) -> String {
        if self.0 == ALL_PRIORITIES {
            "all".to_string()
        } else {
            self.0.to_string()
        }
    }
}

impl Serialize for Priority {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 == ALL_PRIORITIES {
            serializer.serialize_str("all")
        } else {
            serializer.serialize_u8(self.0)
        }
    }
}

#[derive(Serialize)]
pub struct SenderRow<'a> {
    #[serde(serialize_with = "display")]
    pub src: &'a Mac,
    pub priority: Priority,
    pub frames: u64,
    pub pause_frames: u64,
    pub xon_frames: u64,
    pub paused_ns: u64,
}

#[derive(Serialize)]
pub struct StormRow<'a> {
    /// `pfc_storm`, or `pause_storm` for 802.3x PAUSE (priority `all`). Left out of an
    /// anomaly, whose own `kind` says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(serialize_with = "display")]
    pub src: &'a Mac,
    pub priority: Priority,
    pub start: Seconds,
    pub start_ns: u64,
    pub duration: Seconds,
    pub duration_ns: u64,
    pub frames: u64,
    #[serde(flatten)]
    pub at: Start<'a>,
}

impl<'a> StormRow<'a> {
    pub fn new(storm: &'a Storm, files: Files<'a>) -> Self {
        StormRow {
            kind: Some(if storm.priority == ALL_PRIORITIES {
                AnomalyKind::PauseStorm.name()
            } else {
                AnomalyKind::PfcStorm.name()
            }),
            src: &storm.src,
            priority: Priority(storm.priority),
            start: Seconds(storm.start_ns),
            start_ns: storm.start_ns,
            duration: Seconds(storm.duration_ns),
            duration_ns: storm.duration_ns,
            frames: storm.frames,
            at: Start::new(storm.start, files),
        }
    }
}

#[derive(Serialize)]
pub struct CascadeRow<'a> {
    pub priority: Priority,
    #[serde(serialize_with = "macs")]
    pub senders: &'a [Mac],
    #[serde(skip_serializing_if = "is_zero")]
    pub more_senders: u64,
    pub start: Seconds,
    pub start_ns: u64,
    /// From the first sender's pause to the end of the last overlapping one.
    pub duration: Seconds,
    pub duration_ns: u64,
    /// How long at least two senders were paused at once.
    pub overlap_ns: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlap_partial: bool,
    pub members: Members<'a>,
    #[serde(flatten)]
    pub at: Start<'a>,
}

/// Each sender of a cascade with the time it joined.
pub struct Members<'a> {
    joins: &'a [Join],
    start_ns: u64,
    files: Files<'a>,
}

#[derive(Serialize)]
struct MemberRow<'a> {
    #[serde(serialize_with = "display")]
    src: &'a Mac,
    joined_ns: u64,
    /// After the cascade's first pause.
    joined_after_ns: u64,
    #[serde(flatten)]
    at: At<'a>,
}

impl Serialize for Members<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.joins.len()))?;
        for join in self.joins {
            seq.serialize_element(&MemberRow {
                src: &join.src,
                joined_ns: join.ns,
                joined_after_ns: join.ns.saturating_sub(self.start_ns),
                at: At::new(join.at, self.files),
            })?;
        }
        seq.end()
    }
}

impl<'a> CascadeRow<'a> {
    pub fn new(cascade: &'a Cascade, files: Files<'a>) -> Self {
        CascadeRow {
            priority: Priority(cascade.priority),
            senders: &cascade.senders,
            more_senders: cascade.more_senders,
            start: Seconds(cascade.start_ns),
            start_ns: cascade.start_ns,
            duration: Seconds(cascade.duration_ns),
            duration_ns: cascade.duration_ns,
            overlap_ns: cascade.overlap_ns,
            overlap_partial: cascade.overlap_partial,
            members: Members {
                joins: &cascade.joins,
                start_ns: cascade.start_ns,
                files,
            },
            at: Start::new(cascade.start, files),
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn macs<S: Serializer>(macs: &&[Mac], serializer: S) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(macs.len()))?;
    for mac in macs.iter() {
        seq.serialize_element(&Shown(mac))?;
    }
    seq.end()
}

/// A value serialized as the string its `Display` writes, without an allocation.
struct Shown<'a, T: Display>(&'a T);

impl<T: Display> Serialize for Shown<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

#[derive(Serialize)]
pub struct PfcSummary<'a> {
    pub frames: u64,
    pub pause_8023x: u64,
    pub link_speed_bps: u64,
    pub storm_threshold_ns: u64,
    pub evicted: u64,
    pub storm_count: u64,
    pub cascade_count: u64,
    pub senders: Vec<SenderRow<'a>>,
    pub storms: Vec<StormRow<'a>>,
    pub cascades: Vec<CascadeRow<'a>>,
}

impl<'a> PfcSummary<'a> {
    fn new(analyzer: &'a Analyzer, files: Files<'a>) -> Self {
        let tracker = &analyzer.pfc;
        let senders = tracker
            .sorted_senders()
            .into_iter()
            .map(
                |((mac, priority), stats): (&'a (Mac, u8), &'a SenderStats)| SenderRow {
                    src: mac,
                    priority: Priority(*priority),
                    frames: stats.frames,
                    pause_frames: stats.pause_frames,
                    xon_frames: stats.xon_frames,
                    paused_ns: stats.paused_ns,
                },
            )
            .collect();
        let mut storms: Vec<&Storm> = tracker.storms.iter().collect();
        storms.sort_by_key(|s| (s.start_ns, s.priority));
        PfcSummary {
            frames: tracker.pfc_frames,
            pause_8023x: tracker.pause_frames,
            link_speed_bps: analyzer.config.link_speed_bps,
            storm_threshold_ns: analyzer.config.storm_threshold_ns,
            evicted: tracker.evicted,
            storm_count: tracker.storm_count,
            cascade_count: tracker.cascade_count,
            senders,
            storms: storms
                .into_iter()
                .map(|s| StormRow::new(s, files))
                .collect(),
            cascades: tracker
                .cascades
                .iter()
                .map(|c| CascadeRow::new(c, files))
                .collect(),
        }
    }
}

/// What one anomaly says beyond its kind and place.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Details<'a> {
    PsnGap {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        expected_psn: u32,
        missing: u32,
    },
    GoBackN {
        #[serde(flatten)]
        flow: FlowId<'a>,
        from_psn: u32,
        to_psn: u32,
        depth: u32,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        nak: Option<NakAt<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        delay_ns: Option<u64>,
        /// `nak`, or `previous_packet` when no NAK was captured.
        #[serde(skip_serializing_if = "Option::is_none")]
        delay_from: Option<&'static str>,
    },
    Nak {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        code: &'static str,
    },
    RnrNak {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        timer: u8,
    },
    Crc {
        #[serde(skip_serializing_if = "Option::is_none")]
        stored: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        computed: Option<u32>,
        #[serde(flatten)]
        endpoints: EndpointsRow<'a>,
    },
    Storm(StormRow<'a>),
    Cascade(CascadeRow<'a>),
    Malformed {
        layer: &'static str,
        offset: u32,
        #[serde(serialize_with = "display")]
        message: &'a crate::wire::DecodeError,
    },
    LostBetween {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        /// The input that saw the packet last, and the one further along that missed it.
        seen_at: Option<&'a str>,
        missing_at: Option<&'a str>,
    },
}

/// The addresses of a packet whose CRC failed, to find the link that corrupted it.
#[derive(Serialize)]
pub struct EndpointsRow<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    src: Option<Shown<'a, Address>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dst: Option<Shown<'a, Address>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dest_qp: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    src_mac: Option<Shown<'a, Mac>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dst_mac: Option<Shown<'a, Mac>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vlan: Option<u16>,
}

impl<'a> EndpointsRow<'a> {
    fn new(e: &'a Endpoints) -> Self {
        EndpointsRow {
            src: e.src.as_ref().map(Shown),
            dst: e.dst.as_ref().map(Shown),
            dest_qp: e.dest_qp,
            src_mac: e.src_mac.as_ref().map(Shown),
            dst_mac: e.dst_mac.as_ref().map(Shown),
            vlan: e.vlan,
        }
    }
}

/// The capture points, in input order; the first is the reference clock.
pub struct CapturePoints<'a> {
    pub skew_bound_ns: u64,
    pub points: &'a super::points::Points,
    pub offsets: &'a [super::points::skew::Offset],
    pub files: Files<'a>,
}

#[derive(Serialize)]
pub struct PointRow<'a> {
    pub file: &'a str,
    pub offset_ns: Option<i64>,
    pub offset_method: &'static str,
    pub offset_samples: u64,
    /// Delay from the reference point to this one for packets whose source address sorts
    /// before their destination's; positive when the reference point is upstream for them.
    pub forward_delay_ns: Option<i64>,
    /// Transmissions this point saw first, and copies of ones another point saw first.
    pub first_seen: u64,
    pub copies: u64,
    /// With `--order`: transmissions points on both sides of this one saw and it missed.
    pub missed_by_capture: u64,
}

#[derive(Serialize)]
pub struct LostRow<'a> {
    pub seen_at: &'a str,
    pub missing_at: &'a str,
    pub packets: u64,
}

impl<'a> CapturePoints<'a> {
    pub fn rows(&self) -> Vec<PointRow<'a>> {
        let points = self.points;
        (0..points.count())
            .map(|i| {
                let offset = self.offsets.get(i);
                let known =
                    offset.is_some_and(|o| o.method != super::points::skew::Method::Unknown);
                PointRow {
                    file: self.files.0.get(i).map_or("", |s| s.as_str()),
                    offset_ns: offset.filter(|_| known).map(|o| o.offset_ns),
                    offset_method: offset.map_or("unknown", |o| o.method.name()),
                    offset_samples: offset.map_or(0, |o| o.samples),
                    forward_delay_ns: offset.and_then(|o| o.forward_delay_ns),
                    first_seen: points.first_seen.get(i).copied().unwrap_or(0),
                    copies: points.copies.get(i).copied().unwrap_or(0),
                    missed_by_capture: points.missed_by_capture.get(i).copied().unwrap_or(0),
                }
            })
            .collect()
    }

    pub fn lost(&self) -> Vec<LostRow<'a>> {
        let name = |i: u16| self.files.0.get(usize::from(i)).map_or("", |s| s.as_str());
        let mut rows: Vec<_> = self.points.lost_between.iter().collect();
        rows.sort();
        rows.into_iter()
            .map(|(pair, &packets)| LostRow {
                seen_at: name(pair.from),
                missing_at: name(pair.to),
                packets,
            })
            .collect()
    }
}

impl Serialize for CapturePoints<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("skew_bound_ns", &self.skew_bound_ns)?;
        let order: Option<Vec<&str>> = self.points.order().map(|order| {
            order
                .iter()
                .map(|&i| self.files.0.get(i).map_or("", |s| s.as_str()))
                .collect()
        });
        map.serialize_entry("order", &order)?;
        map.serialize_entry("points", &self.rows())?;
        map.serialize_entry("lost_between", &self.lost())?;
        map.end()
    }
}

#[derive(Serialize)]
pub struct AnomalyRow<'a> {
    pub kind: &'static str,
    #[serde(flatten)]
    pub at: At<'a>,
    #[serde(flatten)]
    pub details: Details<'a>,
}

impl<'a> AnomalyRow<'a> {
    pub fn new(anomaly: &'a Anomaly, files: Files<'a>) -> Self {
        let details = match &anomaly.what {
            What::PsnGap {
                flow,
                psn,
                expected,
                missing,
            } => Details::PsnGap {
                flow: FlowId::new(flow),
                psn: *psn,
                expected_psn: *expected,
                missing: *missing,
            },
            What::GoBackN {
                flow,
                from_psn,
                to_psn,
                depth,
                nak,
                delay_ns,
            } => Details::GoBackN {
                flow: FlowId::new(flow),
                from_psn: *from_psn,
                to_psn: *to_psn,
                depth: *depth,
                nak: nak.map(|at| NakAt::new(at, files)),
                delay_ns: *delay_ns,
                delay_from: delay_ns.map(|_| {
                    if nak.is_some() {
                        "nak"
                    } else {
                        "previous_packet"
                    }
                }),
            },
            What::Nak { flow, psn, code } => Details::Nak {
                flow: FlowId::new(flow),
                psn: *psn,
                code: code.name(),
            },
            What::RnrNak { flow, psn, timer } => Details::RnrNak {
                flow: FlowId::new(flow),
                psn: *psn,
                timer: *timer,
            },
            What::IcrcBad(check, endpoints) | What::VcrcBad(check, endpoints) => Details::Crc {
                stored: check.stored,
                computed: check.computed,
                endpoints: EndpointsRow::new(endpoints),
            },
            What::PfcStorm(storm) => Details::Storm(StormRow {
                kind: None,
                ..StormRow::new(storm, files)
            }),
            What::PauseCascade(cascade) => Details::Cascade(CascadeRow::new(cascade, files)),
            What::Malformed(err) => Details::Malformed {
                layer: err.layer.name(),
                offset: err.offset,
                message: err,
            },
            What::LostBetween {
                flow,
                psn,
                from,
                to,
            } => Details::LostBetween {
                flow: FlowId::new(flow),
                psn: *psn,
                seen_at: files.name(*from),
                missing_at: files.name(*to),
            },
        };
        AnomalyRow {
            kind: anomaly.what.kind().name(),
            at: At::new(anomaly.at, files),
            details,
        }
    }
}

/// The anomalies kept, in time order.
pub struct Anomalies<'a> {
    pub list: &'a [Anomaly],
    files: Files<'a>,
}

impl<'a> Anomalies<'a> {
    pub fn iter(&self) -> impl Iterator<Item = AnomalyRow<'a>> + '_ {
        self.list.iter().map(|a| AnomalyRow::new(a, self.files))
    }
}

impl Serialize for Anomalies<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.list.len()))?;
        for row in self.iter() {
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_keep_every_nanosecond() {
        assert_eq!(Seconds(1_000_000_001).to_string(), "1.000000001");
        let json = serde_json::to_string(&Seconds(1_700_000_000_123_456_789)).expect("json");
        assert_eq!(json, "1700000000.123456789");
    }
}

/// A run of PSNs the capture missed, as the export's `events` lists it: `kind`
/// `capture_missed`, the frame that showed it, the flow, the first PSN and how many.
#[derive(Serialize)]
pub struct MissedRunRow<'a> {
    pub kind: &'static str,
    #[serde(flatten)]
    pub at: At<'a>,
    #[serde(flatten)]
    pub flow: FlowId<'a>,
    pub psn: u32,
    pub missing: u32,
    /// requests, read_responses or retransmissions.
    pub missed: &'static str,
}

impl<'a> MissedRunRow<'a> {
    pub fn new(run: &'a super::capture_loss::MissedRun, files: Files<'a>) -> Self {
        MissedRunRow {
            kind: "capture_missed",
            at: At::new(run.at, files),
            flow: FlowId::new(&run.flow),
            psn: run.first,
            missing: run.count,
            missed: run.what.name(),
        }
    }
}
