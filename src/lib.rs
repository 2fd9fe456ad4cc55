//! rdmadump: decode and analyse captures of RDMA traffic (InfiniBand, RoCE v1/v2, PFC).
//!
//! The modules are layers, and data flows one way through them; none imports from a layer
//! above its own:
//!
//! | layer | what it does |
//! |---|---|
//! | [`wire`] | one typed, zero-copy view per header; [`crc`] verifies ICRC and VCRC |
//! | [`capture`] | pcap and pcapng readers, and the merge of several captures by time |
//! | [`dissect`] | a capture record becomes a [`dissect::Packet`] of header views |
//! | [`fields`] | the field catalogue: each field's accessor, type, description, Wireshark name and export column |
//! | [`filter`] | `-Y` expressions, compiled once and evaluated per packet |
//! | [`analyze`] | per-QP flow state, PFC tracking, anomalies: one streaming pass |
//! | [`report`] | what the analysis found, as plain data: built once at the end, written by `output` |
//! | [`pipeline`] | the threaded input loop: inputs merged, decoded in batches, consumed in order |
//! | [`output`] | packets as JSON Lines or text lines; the report as JSON or tables |
//! | `commands`, `cli` | the command-line program (feature `cli`, on by default) |
//!
//! # Using the library
//!
//! Open a capture, walk its records, dissect each into a [`dissect::Packet`], feed the
//! packets to an [`analyze::Analyzer`], and build the [`report::Report`] from it:
//!
//! ```
//! use rdmadump::report::Report;
//! use rdmadump::analyze::{AnalyzeConfig, Analyzer};
//! use rdmadump::capture::merge::InputReport;
//! use rdmadump::capture::{CaptureReader, SliceInput};
//! use rdmadump::dissect::{DecodeOptions, Kind, dissect};
//!
//! let bytes = std::fs::read("fixtures/roce_v2_crc_cases.pcap")?;
//! let mut reader = CaptureReader::new(SliceInput::new(&bytes))?;
//! let options = DecodeOptions::default();
//! let mut analyzer = Analyzer::new(AnalyzeConfig::default());
//! let mut frame = 0;
//! while reader.advance()? {
//!     let Some(record) = reader.current() else { break };
//!     frame += 1;
//!     let packet = dissect(&record, frame, &options);
//!     assert_eq!(packet.kind, Kind::RoceV2);
//!     analyzer.observe(0, &packet);
//! }
//! analyzer.finish();
//!
//! let input = InputReport {
//!     files: vec!["roce_v2_crc_cases.pcap".into()],
//!     records: frame,
//!     ..InputReport::default()
//! };
//! let report = Report::new(&analyzer, &input);
//! // What the fixture's generator built (fixtures/expected/roce_v2_crc_cases.pcap.json):
//! // frames 2 and 8 corrupted after their ICRC was computed, frames 5 and 6 cut by the
//! // snaplen, so that their ICRC cannot be checked.
//! assert_eq!(report.icrc.bad, 2);
//! assert_eq!(report.icrc.unverifiable, 2);
//! // Every case reuses one PSN per QP, so the later frames also show as retransmissions.
//! let bad: Vec<u64> = report
//!     .anomalies
//!     .list
//!     .iter()
//!     .filter(|a| matches!(a.detail, rdmadump::analyze::AnomalyDetail::IcrcBad(..)))
//!     .map(|a| a.at.frame)
//!     .collect();
//! assert_eq!(bad, [2, 8]);
//! let json = serde_json::to_string(&report)?;
//! assert!(json.starts_with(r#"{"capture":{"files":["roce_v2_crc_cases.pcap"]"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(unsafe_code)]

pub mod analyze;
pub mod capture;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod commands;
pub mod crc;
pub mod dissect;
pub mod fields;
pub mod filter;
pub mod output;
pub mod pipeline;
pub mod report;
pub mod wire;
