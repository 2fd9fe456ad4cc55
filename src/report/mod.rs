//! The report model: what an analysis found, as plain data, ready to be written as JSON
//! (through serde) or as tables. It borrows the analyzer's state and is built once, at the
//! end: the per-packet analysis knows nothing of it. Long lists (flows, anomalies,
//! connections) are views over the analyzer's own storage, produced row by row as they are
//! written: with a million flows the document is hundreds of megabytes, which must not be
//! held on top of the flow table.
//!
//! The serialized key names are a contract (docs/json-schema.md): more may be added, none
//! renamed. One file per section of the report, and [`values`] for what they share.

pub mod anomalies;
pub mod budget;
pub mod congestion;
pub mod connections;
pub mod flows;
pub mod nvme;
pub mod pfc;
pub mod points;
pub mod priorities;
pub mod rank;
pub mod sessions;
pub mod stalls;
pub mod summary;
pub mod values;

use serde::Serialize;

use crate::analyze::{AnalyzeConfig, Analyzer, AnomalySink, CrcCounts, KindCounts};
use crate::capture::merge::InputReport;
use anomalies::Anomalies;
use congestion::Congestion;
use connections::Connections;
use flows::Flows;
use pfc::PfcSummary;
use points::CapturePoints;
use summary::{CaptureSummary, ConnectionTableSummary, FlowTableSummary, InputRow};
pub use values::{Files, Priority, Seconds};

/// The whole report of one `analyze` run.
#[derive(Serialize)]
pub struct Report<'a> {
    /// Each input's outcome, only when some input failed: its frames are missing from the
    /// rest of the report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<InputRow<'a>>>,
    pub capture: CaptureSummary<'a>,
    #[serde(serialize_with = "summary::kind_counts")]
    pub counts: &'a KindCounts,
    pub icrc: CrcCounts,
    pub vcrc: CrcCounts,
    pub ecn_ce: u64,
    pub fecn: u64,
    pub becn: u64,
    pub congestion: Congestion<'a>,
    /// QP connections, both ends paired when the capture allows.
    pub connections: Connections<'a>,
    pub connection_table: ConnectionTableSummary,
    /// Sequenced packets the capture missed although the responders acknowledged them.
    pub capture_loss: crate::analyze::capture_loss::Counts,
    /// Several capture points: their clock offsets, copies and what was lost between them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_points: Option<CapturePoints<'a>>,
    pub flows: Flows<'a>,
    pub flow_table: FlowTableSummary,
    /// What the memory budget evicted, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<budget::BudgetSummary>,
    pub pfc: PfcSummary<'a>,
    /// Per PFC priority: what it carried and how long it was paused.
    pub priorities: Vec<priorities::PriorityRow>,
    /// Per NVMe-oF queue: commands, latency, errors; absent without NVMe-oF.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nvme: Vec<nvme::QueueRow>,
    /// Per RPC-over-RDMA connection: calls, latency, errors; absent without RPC-over-RDMA.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rpcrdma: Vec<sessions::SessionRow>,
    /// Per iSER connection: iSCSI requests, latency, errors; absent without iSER.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub iser: Vec<sessions::SessionRow>,
    /// Per SMB Direct connection: SMB2 requests, latency, errors; absent without SMB Direct.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub smbd: Vec<sessions::SessionRow>,
    #[serde(serialize_with = "summary::anomaly_counts")]
    pub anomaly_counts: &'a AnomalySink,
    pub anomalies_omitted: u64,
    /// The most anomalies `anomalies` lists; `export` writes every one to its `events`.
    pub anomalies_limit: u64,
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
            // Also when an input was read past damage: what it skipped is not in the
            // packets, and a pipeline must be able to tell.
            inputs: (input.failed || input.inputs.iter().any(|i| !i.damage.is_none()))
                .then(|| InputRow::all(input)),
            capture: CaptureSummary {
                files: &input.files,
                packets: input.records,
                analyzed: analyzer.packets,
                first_ts: analyzer.first_ts.map(Seconds),
                first_ts_ns: analyzer.first_ts,
                last_ts: analyzer.last_ts.map(Seconds),
                last_ts_ns: analyzer.last_ts,
                truncated: input.truncated,
                points: analyzer.points.as_ref().map_or(1, |p| p.count()),
                seen_twice: analyzer.copies,
                seen_twice_crc_bad: analyzer.copies_crc_bad,
            },
            counts: &analyzer.counts,
            icrc: analyzer.icrc,
            vcrc: analyzer.vcrc,
            ecn_ce: analyzer.ecn_ce,
            fecn: analyzer.fecn,
            becn: analyzer.becn,
            congestion: Congestion::new(analyzer, &flows, files),
            connections: Connections::new(&analyzer.connections, files),
            connection_table: ConnectionTableSummary {
                evicted_ends: analyzer.connections.evicted,
                bytes_per_connection: crate::analyze::connections::bytes_per_connection() as u64,
            },
            capture_loss: analyzer.connections.capture_loss(),
            capture_points: analyzer.points.as_ref().map(|points| CapturePoints {
                skew_bound_ns: analyzer.config.skew_bound_ns,
                points,
                offsets: analyzer.offsets(),
                files,
            }),
            flows: Flows { rows: flows, files },
            flow_table: FlowTableSummary {
                flows: analyzer.flows.len() as u64,
                max_flows: analyzer.config.max_flows as u64,
                evicted: analyzer.flows.evicted,
                bytes_per_flow: crate::analyze::flows::bytes_per_flow() as u64,
            },
            budget: budget::BudgetSummary::of(analyzer),
            pfc: PfcSummary::new(analyzer, files),
            priorities: priorities::rows(analyzer),
            nvme: nvme::rows(analyzer),
            rpcrdma: sessions::rpcrdma_rows(analyzer),
            iser: sessions::iser_rows(analyzer),
            smbd: sessions::smbd_rows(analyzer),
            anomaly_counts: sink,
            anomalies_omitted: sink.total() - sink.kept.len() as u64,
            anomalies_limit: sink.limit() as u64,
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
