//! `rdmadump analyze` on scenarios whose verdicts were written down when they were built
//! (fixtures/scenarios/expected.json, by fixtures/gen/make_scenarios.py).

use serde_json::Value;

use crate::harness::{fixture, rdmadump, stderr, stdout};

const FLOW_COUNTERS: &[&str] = &[
    "packets",
    "psn_gaps",
    "missing_psns",
    "retransmitted",
    "go_back_n",
    "naks",
    "nak_seq_err",
    "rnr_naks",
    "ecn_ce",
    "cnps",
    "fecn",
    "becn",
    "pmtu",
    "pmtu_source",
];

fn analyze(files: &[&str], args: &[&str]) -> Value {
    analyze_with_stderr(files, args).0
}

fn analyze_with_stderr(files: &[&str], args: &[&str]) -> (Value, String) {
    let mut argv = vec!["analyze", "--json"];
    argv.extend_from_slice(args);
    let paths: Vec<String> = files
        .iter()
        .map(|f| {
            fixture(&format!("scenarios/{f}"))
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    argv.extend(paths.iter().map(String::as_str));
    let out = rdmadump(&argv);
    assert!(out.status.success(), "{}", stderr(&out));
    (
        serde_json::from_str(&stdout(&out)).expect("one JSON document"),
        stderr(&out),
    )
}

fn truth() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("scenarios/expected.json")).unwrap())
        .unwrap()
}

fn same_flow(a: &Value, b: &Value) -> bool {
    ["src", "dst", "dest_qp", "role"]
        .iter()
        .all(|k| a[k] == b[k])
}

fn check_flows(name: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    let Some(want) = want.as_array() else { return };
    let got = got.as_array().unwrap();
    if want.len() != got.len() {
        problems.push(format!(
            "{name}: {} flows expected, got {}",
            want.len(),
            got.len()
        ));
    }
    for w in want {
        let Some(g) = got.iter().find(|g| same_flow(w, g)) else {
            problems.push(format!("{name}: flow missing: {w}"));
            continue;
        };
        for key in FLOW_COUNTERS {
            if w.get(*key).is_some() && w[key] != g[key] {
                problems.push(format!(
                    "{name}: {} {key}: expected {}, got {}",
                    w["src"], w[key], g[key]
                ));
            }
        }
    }
}

fn anomalies<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
    doc["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == kind)
        .collect()
}

fn expect_eq(problems: &mut Vec<String>, what: String, want: &Value, got: &Value) {
    if want != got {
        problems.push(format!("{what}: expected {want}, got {got}"));
    }
}

fn check_pfc(name: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    if let Some(storms) = want["storms"].as_array() {
        let got_storms = got["storms"].as_array().unwrap();
        expect_eq(
            problems,
            format!("{name} storm count"),
            &storms.len().into(),
            &got_storms.len().into(),
        );
        for (w, g) in storms.iter().zip(got_storms) {
            if let Some(kind) = w.get("kind") {
                expect_eq(problems, format!("{name} storm kind"), kind, &g["kind"]);
            }
            for (ours, theirs) in [
                ("src", "src"),
                ("priority", "priority"),
                ("start_ns", "start_ns"),
                ("duration_ns", "duration_ns"),
                ("frames", "frames"),
            ] {
                expect_eq(
                    problems,
                    format!("{name} storm {ours}"),
                    &w[theirs],
                    &g[ours],
                );
            }
        }
    }
    if let Some(cascades) = want["cascades"].as_array() {
        let got_cascades = got["cascades"].as_array().unwrap();
        expect_eq(
            problems,
            format!("{name} cascade count"),
            &cascades.len().into(),
            &got_cascades.len().into(),
        );
        for (w, g) in cascades.iter().zip(got_cascades) {
            for key in ["priority", "senders", "start_ns", "duration_ns"] {
                expect_eq(problems, format!("{name} cascade {key}"), &w[key], &g[key]);
            }
            if let Some(overlap) = w.get("overlap_ns") {
                expect_eq(
                    problems,
                    format!("{name} cascade overlap_ns"),
                    overlap,
                    &g["overlap_ns"],
                );
            }
            if let Some(members) = w["members"].as_array() {
                let got_members = g["members"].as_array().unwrap();
                expect_eq(
                    problems,
                    format!("{name} cascade members"),
                    &members.len().into(),
                    &got_members.len().into(),
                );
                for (wm, gm) in members.iter().zip(got_members) {
                    for key in ["src", "joined_ns", "joined_after_ns", "frame"] {
                        expect_eq(
                            problems,
                            format!("{name} cascade member {key}"),
                            &wm[key],
                            &gm[key],
                        );
                    }
                }
            }
        }
    }
    if let Some(senders) = want["senders"].as_array() {
        for w in senders {
            let found = got["senders"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["src"] == w["src"] && g["priority"] == w["priority"]);
            match found {
                None => problems.push(format!("{name}: PFC sender missing: {w}")),
                Some(g) => {
                    for key in ["frames", "pause_frames", "xon_frames", "paused_ns"] {
                        expect_eq(
                            problems,
                            format!("{name} sender {} {key}", w["src"]),
                            &w[key],
                            &g[key],
                        );
                    }
                }
            }
        }
    }
    if let Some(pause) = want.get("pause_8023x").filter(|p| !p.is_null()) {
        let g = got["senders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["src"] == pause["src"] && g["priority"] == "all");
        match g {
            None => problems.push(format!("{name}: 802.3x sender missing")),
            Some(g) => {
                for key in ["frames", "pause_frames", "xon_frames", "paused_ns"] {
                    expect_eq(
                        problems,
                        format!("{name} 802.3x {key}"),
                        &pause[key],
                        &g[key],
                    );
                }
                expect_eq(
                    problems,
                    format!("{name} pause_8023x"),
                    &pause["frames"],
                    &got["pause_8023x"],
                );
            }
        }
    }
}

fn check(name: &str, files: &[&str], want: &Value, problems: &mut Vec<String>) {
    let args: Vec<&str> = want["args"].as_array().map_or(Vec::new(), |a| {
        a.iter().map(|v| v.as_str().unwrap()).collect()
    });
    let (got, stderr_text) = analyze_with_stderr(files, &args);
    if let Some(needle) = want.get("stderr_contains").and_then(Value::as_str)
        && !stderr_text.contains(needle)
    {
        problems.push(format!("{name}: stderr lacks {needle:?}: {stderr_text}"));
    }
    for key in ["fecn", "becn"] {
        if let Some(count) = want.get(key) {
            expect_eq(problems, format!("{name} {key}"), count, &got[key]);
        }
    }
    if let Some(counts) = want["anomaly_counts"].as_object() {
        for (kind, count) in counts {
            expect_eq(
                problems,
                format!("{name} anomaly count {kind}"),
                count,
                &got["anomaly_counts"][kind],
            );
        }
    }
    if let Some(crc) = want["crc_anomalies"].as_array() {
        let mut got_crc = anomalies(&got, "icrc_bad");
        got_crc.extend(anomalies(&got, "vcrc_bad"));
        expect_eq(
            problems,
            format!("{name} CRC anomalies"),
            &crc.len().into(),
            &got_crc.len().into(),
        );
        for (w, g) in crc.iter().zip(got_crc) {
            for (key, value) in w.as_object().unwrap() {
                expect_eq(problems, format!("{name} CRC {key}"), value, &g[key]);
            }
        }
    }
    if let Some(frames) = want.get("frames") {
        expect_eq(
            problems,
            format!("{name} packets"),
            frames,
            &got["capture"]["packets"],
        );
    }
    if let Some(ce) = want.get("ecn_ce") {
        expect_eq(problems, format!("{name} ecn_ce"), ce, &got["ecn_ce"]);
    }
    if let Some(cnp) = want.get("cnp") {
        expect_eq(problems, format!("{name} cnp"), cnp, &got["counts"]["cnp"]);
    }
    check_flows(name, &want["flows"], &got["flows"], problems);
    if let Some(gaps) = want["psn_gap_events"].as_array() {
        let got_gaps = anomalies(&got, "psn_gap");
        expect_eq(
            problems,
            format!("{name} gap events"),
            &gaps.len().into(),
            &got_gaps.len().into(),
        );
        for (w, g) in gaps.iter().zip(got_gaps) {
            for (theirs, ours) in [
                ("frame", "frame"),
                ("psn", "psn"),
                ("expected_psn", "expected_psn"),
                ("missing", "missing"),
            ] {
                expect_eq(
                    problems,
                    format!("{name} gap {theirs}"),
                    &w[theirs],
                    &g[ours],
                );
            }
        }
    }
    if let Some(episodes) = want["go_back_n_episodes"].as_array() {
        let got_episodes = anomalies(&got, "go_back_n");
        expect_eq(
            problems,
            format!("{name} go-back-N episodes"),
            &episodes.len().into(),
            &got_episodes.len().into(),
        );
        for (w, g) in episodes.iter().zip(got_episodes) {
            for (theirs, ours) in [
                ("frame", "frame"),
                ("from_psn", "from_psn"),
                ("to_psn", "to_psn"),
                ("depth", "depth"),
                ("nak_frame", "nak_frame"),
                ("nak_to_retx_ns", "delay_ns"),
            ] {
                if w.get(theirs).is_some() {
                    expect_eq(
                        problems,
                        format!("{name} go-back-N {theirs}"),
                        &w[theirs],
                        &g[ours],
                    );
                }
            }
        }
    }
    if let Some(naks) = want["naks"].as_array() {
        let mut got_naks = anomalies(&got, "nak");
        got_naks.extend(anomalies(&got, "rnr_nak"));
        got_naks.sort_by_key(|a| a["frame"].as_u64());
        expect_eq(
            problems,
            format!("{name} NAK events"),
            &naks.len().into(),
            &got_naks.len().into(),
        );
        for (w, g) in naks.iter().zip(got_naks) {
            expect_eq(
                problems,
                format!("{name} NAK frame"),
                &w["frame"],
                &g["frame"],
            );
            expect_eq(problems, format!("{name} NAK kind"), &w["kind"], &g["kind"]);
            expect_eq(problems, format!("{name} NAK psn"), &w["psn"], &g["psn"]);
        }
    }
    if let Some(targets) = want["cnp_targets"].as_array() {
        let got_targets = got["congestion"]["cnp_targets"].as_array().unwrap();
        expect_eq(
            problems,
            format!("{name} CNP targets"),
            &targets.len().into(),
            &got_targets.len().into(),
        );
        for (w, g) in targets.iter().zip(got_targets) {
            for (theirs, ours) in [
                ("dst", "dst"),
                ("dest_qp", "dest_qp"),
                ("cnps", "cnps"),
                ("first_frame", "first_frame"),
                ("ce_flows", "ce_flows"),
                ("ce_dest_qp", "ce_dest_qp"),
                ("ce_paired_by", "ce_paired_by"),
                ("ce_to_cnp_ns", "ce_to_cnp_ns"),
            ] {
                expect_eq(
                    problems,
                    format!("{name} CNP target {theirs}"),
                    &w[theirs],
                    &g[ours],
                );
            }
        }
    }
    if let Some(first_ce) = want.get("first_ce") {
        expect_eq(
            problems,
            format!("{name} first CE"),
            &first_ce["frame"],
            &got["congestion"]["first_ce"]["frame"],
        );
    }
    if let Some(first_cnp) = want.get("first_cnp") {
        expect_eq(
            problems,
            format!("{name} first CNP"),
            &first_cnp["frame"],
            &got["congestion"]["first_cnp"]["frame"],
        );
    }
    if let Some(delay) = want.get("ce_to_cnp_ns") {
        expect_eq(
            problems,
            format!("{name} CE to CNP"),
            delay,
            &got["congestion"]["ce_to_cnp_ns"],
        );
    }
    if want.get("pfc").is_some() {
        check_pfc(name, &want["pfc"], &got["pfc"], problems);
    }
}

#[test]
fn every_scenario_matches_the_truth_written_when_it_was_built() {
    let truth = truth();
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, want) in truth.as_object().unwrap() {
        let files: Vec<&str> = name.split('+').collect();
        check(name, &files, want, &mut problems);
        checked += 1;
        if let Some(variants) = want["variants"].as_object() {
            for (label, variant) in variants {
                check(&format!("{name} {label}"), &files, variant, &mut problems);
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} scenario runs");
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn pmtu_must_be_one_infiniband_defines() {
    let capture = fixture("scenarios/read_pmtu_from_responses.pcap");
    for bad in ["1000", "500", "8192", "0"] {
        let out = rdmadump(&["analyze", "--pmtu", bad, capture.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "--pmtu {bad} was accepted");
        assert!(stderr(&out).contains("256, 512, 1024, 2048 or 4096"));
    }
    let (_, warnings) =
        analyze_with_stderr(&["read_pmtu_from_responses.pcap"], &["--pmtu", "1024"]);
    assert!(
        !warnings.contains("contradicts"),
        "a --pmtu the capture agrees with draws no warning: {warnings}"
    );
}

#[test]
fn text_and_json_count_naks_alike() {
    let capture = fixture("scenarios/read_atomic_rnr.pcap");
    let out = rdmadump(&["analyze", capture.to_str().unwrap()]);
    let text = stdout(&out);
    let header = text.lines().find(|l| l.starts_with("flow ")).unwrap();
    let columns: Vec<&str> = header.split_whitespace().collect();
    let nak = columns.iter().position(|c| *c == "nak").unwrap();
    let rnr = columns.iter().position(|c| *c == "rnr").unwrap();
    let json = analyze(&["read_atomic_rnr.pcap"], &[]);
    for flow in json["flows"].as_array().unwrap() {
        let row = text
            .lines()
            .find(|l| {
                l.starts_with(&format!(
                    "{} > {}",
                    flow["src"].as_str().unwrap(),
                    flow["dst"].as_str().unwrap()
                )) && l.contains(&format!("{:#x}", flow["dest_qp"].as_u64().unwrap()))
                    && l.contains(if flow["role"] == "request" {
                        " req "
                    } else {
                        " rsp "
                    })
            })
            .unwrap();
        // "a > b" spans three columns of the header's one.
        let cells: Vec<&str> = row.split_whitespace().skip(2).collect();
        assert_eq!(cells[nak], flow["naks"].to_string(), "{row}");
        assert_eq!(cells[rnr], flow["rnr_naks"].to_string(), "{row}");
    }
}

#[test]
fn storm_threshold_changes_the_verdict() {
    let storms = |threshold: &str| {
        analyze(&["pfc_storm.pcap"], &["--storm-threshold", threshold])["pfc"]["storms"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(storms("100ms"), 1);
    assert_eq!(storms("300ms"), 0);
    assert_eq!(storms("1ms"), 2);
}

/// The real capture rdma-cm-rxe.pcap: a READ of 4096 bytes whose responses carry 1024
/// bytes each, and no request after it. Its PMTU is the responses' 1024, not a number
/// inferred from the 18-byte WRITE before it.
#[test]
fn real_read_takes_its_pmtu_from_its_responses() {
    let Some(path) = crate::harness::real_capture("rdma-cm-rxe.pcap") else {
        return;
    };
    let out = rdmadump(&["analyze", "--json", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let requests = doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["dest_qp"] == 0x11 && f["role"] == "request")
        .expect("the requests to QP 0x11");
    assert_eq!(requests["pmtu"], 1024);
    assert_eq!(requests["pmtu_source"], "observed");
    assert_eq!(requests["psn_gaps"], 0);
}
