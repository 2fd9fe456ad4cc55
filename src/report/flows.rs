//! The flow list: one row per (source, destination, destination QP, role).

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::values::{Files, Seconds, display, role_name};
use crate::analyze::flows::Flow;
use crate::analyze::key::FlowKey;
use crate::wire::opcode::{self, Role};

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
    pub files: Files<'a>,
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
