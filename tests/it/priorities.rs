//! The per-priority summary in the export's `priorities` dataset, against the truth
//! fixtures/gen/make_stalls.py typed in for its two-priority capture: one row per priority,
//! with the figures `analyze --json` `priorities` gives.

use serde_json::Value;

use crate::export::{export, files_under, rows_of};
use crate::harness::{fixture, stderr};

#[test]
fn each_priority_is_a_row_with_its_traffic_its_dscps_and_its_pauses() {
    let all: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("stalls/expected.json")).expect("stalls truth"),
    )
    .unwrap();
    let truth = &all["two_priorities.pcap"];
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = fixture("stalls/two_priorities.pcap");
    let out = export(scratch.path(), &["--partition", "none"], &[&capture]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows_of(&files_under(&scratch.path().join("priorities")));
    let want = truth["priorities"].as_array().unwrap();
    assert_eq!(rows.len(), want.len(), "{rows:#?}");
    let span = truth["span_ns"].as_u64().unwrap();
    let null = Value::Null;
    for (row, w) in rows.iter().zip(want) {
        let at = |key: &str| row.get(key).unwrap_or(&null);
        assert_eq!(at("capture"), "two_priorities.pcap");
        for key in [
            "priority",
            "sources",
            "packets",
            "bytes",
            "ce",
            "cnps",
            "paused_ns",
            "paused_by",
            "pausing_senders",
        ] {
            assert_eq!(at(key), &w[key], "priority {}: {key}", w["priority"]);
        }
        // The DSCPs, as aligned lists.
        for (column, key) in [
            ("dscp", "dscp"),
            ("dscp_packets", "packets"),
            ("dscp_bytes", "bytes"),
            ("dscp_ce", "ce"),
            ("dscp_cnps", "cnps"),
        ] {
            let items: Vec<Value> = w["dscp"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d[key].clone())
                .collect();
            assert_eq!(
                at(column),
                &Value::from(items),
                "priority {}: {column}",
                w["priority"]
            );
        }
        // 30 us of 200 us for priority 5 is 150,000 millionths; none paused is 0.
        let paused = w["paused_ns"].as_u64().unwrap();
        assert_eq!(
            at("pause_fraction_ppm"),
            &Value::from(paused * 1_000_000 / span),
            "priority {}",
            w["priority"]
        );
    }
}
