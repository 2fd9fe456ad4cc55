//! The flow list: one row per (source, destination, destination QP, role).

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

use super::values::{Files, First, FlowId, Last, optional_field, serialize_rows};
use crate::analyze::flows::Flow;
use crate::analyze::key::FlowKey;
use crate::wire::opcode;

/// One row of the flow list: the flow's key and state, written under the keys
/// docs/json-schema.md gives them. The flow's counters are read where the flow table keeps
/// them, so a new counter is a field of [`Flow`] and a line of the serializer below.
#[derive(Clone, Copy)]
pub struct FlowRow<'a> {
    pub key: &'a FlowKey,
    pub flow: &'a Flow,
    pub files: Files<'a>,
}

impl<'a> FlowRow<'a> {
    pub fn new(key: &'a FlowKey, flow: &'a Flow, files: Files<'a>) -> Self {
        FlowRow { key, flow, files }
    }

    pub fn first(&self) -> First<'a> {
        First::new(self.flow.first, self.files)
    }

    pub fn last(&self) -> Last<'a> {
        Last::new(self.flow.last, self.files)
    }

    /// The path MTU READs were counted with, when the flow had READs.
    pub fn pmtu(&self) -> Option<u32> {
        self.flow.pmtu_used.map(|(pmtu, _)| pmtu)
    }

    /// How that path MTU was learned.
    pub fn pmtu_source(&self) -> Option<&'static str> {
        self.flow.pmtu_used.map(|(_, source)| source.name())
    }

    pub fn opcodes(&self) -> Opcodes<'a> {
        Opcodes(self.flow)
    }
}

/// The keys are written one by one, as a struct's: serde serializes a flattened struct
/// (`FlowId`, `First`, `Last`) through a map, which made a million-flow report markedly
/// slower, and this is the one list that grows with the capture.
impl Serialize for FlowRow<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let flow = self.flow;
        let mut row = serializer.serialize_struct("FlowRow", 31)?;
        FlowId::new(self.key).serialize_fields(&mut row)?;
        row.serialize_field("packets", &flow.packets)?;
        row.serialize_field("bytes", &flow.bytes)?;
        self.first().serialize_fields(&mut row)?;
        self.last().serialize_fields(&mut row)?;
        row.serialize_field("first_psn", &flow.first_psn)?;
        row.serialize_field("last_psn", &flow.last_psn)?;
        row.serialize_field("psn_gaps", &flow.psn_gaps)?;
        row.serialize_field("missing_psns", &flow.missing_psns)?;
        row.serialize_field("retransmitted", &flow.retransmitted)?;
        row.serialize_field("go_back_n", &flow.go_back_n)?;
        row.serialize_field("duplicates", &flow.duplicates)?;
        row.serialize_field("naks", &flow.naks)?;
        row.serialize_field("nak_seq_err", &flow.nak_seq_err)?;
        row.serialize_field("rnr_naks", &flow.rnr_naks)?;
        row.serialize_field("ecn_ce", &flow.ecn_ce)?;
        row.serialize_field("fecn", &flow.fecn)?;
        row.serialize_field("becn", &flow.becn)?;
        row.serialize_field("cnps", &flow.cnps)?;
        optional_field(&mut row, "pmtu", &self.pmtu())?;
        optional_field(&mut row, "pmtu_source", &self.pmtu_source())?;
        row.serialize_field("opcodes", &self.opcodes())?;
        row.end()
    }
}

/// A flow's packets by opcode name, in order of first appearance.
#[derive(Clone, Copy)]
pub struct Opcodes<'a>(&'a Flow);

impl<'a> Opcodes<'a> {
    /// (opcode, packets) in order of first appearance, then the packets of opcodes pooled
    /// as `other`.
    pub fn entries(self) -> (impl Iterator<Item = (u8, u32)> + 'a, u32) {
        (self.0.opcodes.entries(), self.0.opcodes.other())
    }
}

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
        serialize_rows(serializer, Some(self.rows.len()), self.iter())
    }
}
