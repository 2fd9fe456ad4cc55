//! DCQCN as `analyze` sees it (issue 30): each CNP paired with the CE mark it answered,
//! the sender's rate around each CNP, and goodput per direction, against the truth
//! fixtures/gen/make_dcqcn.py typed in when it built fixtures/dcqcn/.

use serde_json::Value;

use crate::harness::{fixture, rdmadump_ok, stdout};

fn truth(file: &str) -> Value {
    let all: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("dcqcn/expected.json")).expect("dcqcn truth"),
    )
    .unwrap();
    all[file].clone()
}

fn analyze(file: &str, args: &[&str]) -> String {
    let path = fixture(&format!("dcqcn/{file}"));
    let mut argv = vec!["analyze"];
    argv.extend_from_slice(args);
    argv.push(path.to_str().unwrap());
    stdout(&rdmadump_ok(&argv))
}

fn analyze_json(file: &str) -> Value {
    serde_json::from_str(&analyze(file, &["--json"])).expect("one JSON document")
}

/// The only connection's A→B direction.
fn a_to_b(report: &Value) -> &Value {
    let connections = report["connections"].as_array().unwrap();
    assert_eq!(connections.len(), 1);
    &connections[0]["a_to_b"]
}

#[test]
fn each_cnp_is_paired_with_the_mark_it_answered_not_the_first_since_the_last() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let d = a_to_b(&report);
    assert_eq!(d["ecn_ce"], t["ecn_ce"]);
    assert_eq!(d["cnps"], t["cnps"]);
    // The rate-limited NIC reacts in 1.3 µs; the marks it did not answer are not delay.
    assert_eq!(d["ce_to_cnp_ns"], t["ce_to_cnp_ns"]);
    assert_eq!(d["ce_per_cnp"], t["ce_per_cnp"]);
    // min_time_between_cnps shows as the minimum interval.
    assert_eq!(d["cnp_interval_ns"], t["cnp_interval_ns"]);
}

#[test]
fn the_senders_rate_is_measured_each_side_of_every_cnp() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let d = a_to_b(&report);
    let (before, want) = (&d["rate_before_cnp_bps"], &t["rate_before_cnp_bps"]);
    for key in ["samples", "min", "max"] {
        assert_eq!(before[key], want[key], "rate_before_cnp_bps.{key}");
    }
    // A median of different values comes from the sketch, within 1%.
    let (got, exact) = (
        before["p50"].as_f64().unwrap(),
        want["p50"].as_f64().unwrap(),
    );
    assert!((got - exact).abs() <= exact / 100.0, "p50 {got} vs {exact}");
    let (after, want) = (&d["rate_after_cnp_bps"], &t["rate_after_cnp_bps"]);
    for key in ["samples", "min", "max"] {
        assert_eq!(after[key], want[key], "rate_after_cnp_bps.{key}");
    }
    assert_eq!(d["rate_cut_after_cnp"], t["rate_cut_after_cnp"]);
}

#[test]
fn goodput_is_per_direction_in_bits_per_second() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let c = &report["connections"][0];
    assert_eq!(c["a_to_b"]["goodput_bps"], t["goodput_bps"]["a_to_b"]);
    // B sent no requests: the direction has no numbers at all.
    assert!(c["b_to_a"].is_null());
    assert!(t["goodput_bps"]["b_to_a"].is_null());
}

/// The export's `connections` rows carry the same figures, the ratio in millionths.
#[cfg(feature = "export")]
#[test]
fn the_export_has_the_dcqcn_columns() {
    use crate::export::{export, files_under, rows_of};
    let t = truth("rate_limited_cnp.pcap");
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = fixture("dcqcn/rate_limited_cnp.pcap");
    let out = export(scratch.path(), &["--partition", "none"], &[&capture]);
    assert!(out.status.success());
    let rows = rows_of(&files_under(&scratch.path().join("connections")));
    let a_to_b = rows
        .iter()
        .find(|r| r.get("direction").is_some_and(|d| d == "a_to_b"))
        .expect("the a_to_b row");
    assert_eq!(a_to_b["ce_to_cnp_ns_p50"], t["ce_to_cnp_ns"]["p50"]);
    assert_eq!(a_to_b["ce_per_cnp_max"], t["ce_per_cnp"]["max"]);
    assert_eq!(a_to_b["cnp_interval_ns_min"], t["cnp_interval_ns"]["min"]);
    assert_eq!(
        a_to_b["rate_after_cnp_bps_min"],
        t["rate_after_cnp_bps"]["min"]
    );
    assert_eq!(
        a_to_b["rate_before_cnp_bps_max"],
        t["rate_before_cnp_bps"]["max"]
    );
    assert_eq!(a_to_b["rate_cut_after_cnp_p50_ppm"], 500_000);
    assert_eq!(a_to_b["goodput_bps"], t["goodput_bps"]["a_to_b"]);
}

#[test]
fn the_text_names_the_reaction_and_gives_goodput_per_direction_in_gbps() {
    let t = truth("rate_limited_cnp.pcap");
    let text = analyze("rate_limited_cnp.pcap", &[]);
    let delay_us = t["ce_to_cnp_ns"]["p50"].as_f64().unwrap() / 1000.0;
    let line = format!(
        "CNPs to 10.0.0.1 qp 0x1a1: {}; CE mark to CNP p50 {delay_us:.1} us, max {delay_us:.1} \
         us; CE marks per CNP p50 {}; interval min {:.1} us; rate after/before p50 {:.2}",
        t["cnps"],
        t["ce_per_cnp"]["p50"],
        t["cnp_interval_ns"]["min"].as_f64().unwrap() / 1000.0,
        t["rate_cut_after_cnp"]["p50"].as_f64().unwrap(),
    );
    assert!(text.contains(&line), "{line}\n{text}");
    assert!(text.contains("goodput Gb/s"), "{text}");
    // a→b, then b→a, which sent no requests.
    let a_to_b = t["goodput_bps"]["a_to_b"].as_f64().unwrap() / 1e9;
    assert!(text.contains(&format!(" {a_to_b:.2}/- ")), "{text}");
}
