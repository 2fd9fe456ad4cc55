//! Several capture points of the same traffic (`analyze a.pcap b.pcap`) against truth typed
//! in by hand (fixtures/points/expected.json, by fixtures/gen/make_points.py): clock offsets,
//! copies counted once, retransmissions and go-back-N once, and what was lost between points.

use serde_json::Value;

use crate::harness::{rdmadump, root, stderr, stdout};

const KEYS: &[&str] = &[
    "files",
    "offset_ns",
    "offset_tolerance_ns",
    "frames_per_file",
    "duplicates",
    "retransmitted",
    "go_back_n",
    "psn_gaps",
    "naks",
    "nak_codes",
    "lost_between",
];

fn int(v: &Value) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("integer expected, got {v}"))
}

fn sum(report: &Value, list: &str, key: &str) -> i64 {
    report[list].as_array().map_or(0, |rows| {
        rows.iter().map(|r| r[key].as_i64().unwrap_or(0)).sum()
    })
}

#[test]
fn capture_points_match_the_truth() {
    let text =
        std::fs::read_to_string(root().join("fixtures/points/expected.json")).expect("truth");
    let truth: serde_json::Map<String, Value> = serde_json::from_str(&text).expect("json");
    assert!(truth.len() >= 6, "every scenario is checked");
    for (scenario, want) in &truth {
        for key in want.as_object().expect("object").keys() {
            assert!(
                KEYS.contains(&key.as_str()),
                "{scenario}: unchecked truth key {key}"
            );
        }
        let files: Vec<String> = want["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| format!("fixtures/points/{}", f.as_str().expect("name")))
            .collect();
        let mut args = vec!["analyze", "--json"];
        args.extend(files.iter().map(String::as_str));
        let out = rdmadump(&args);
        assert!(out.status.success(), "{scenario}: {}", stderr(&out));
        let got: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
        let frames: i64 = want["frames_per_file"]
            .as_object()
            .expect("frames")
            .values()
            .map(int)
            .sum();
        assert_eq!(
            int(&got["capture"]["packets"]),
            frames,
            "{scenario}: frames"
        );

        let points = &got["capture_points"];
        let tolerance = int(&want["offset_tolerance_ns"]);
        for (file, offset) in want["offset_ns"].as_object().expect("offsets") {
            let row = points["points"]
                .as_array()
                .expect("points")
                .iter()
                .find(|p| {
                    p["file"]
                        .as_str()
                        .is_some_and(|f| f.ends_with(file.as_str()))
                })
                .unwrap_or_else(|| panic!("{scenario}: no point {file}"));
            let estimated = int(&row["offset_ns"]);
            assert!(
                (estimated - int(offset)).abs() <= tolerance,
                "{scenario}: {file} offset {estimated}, truth {offset}"
            );
            assert_eq!(row["offset_method"], "two_way", "{scenario}");
        }
        if files.len() == 1 {
            assert!(points.is_null(), "{scenario}: one file is one point");
        }

        let counts = &got["anomaly_counts"];
        assert_eq!(
            sum(&got, "flows", "duplicates"),
            int(&want["duplicates"]),
            "{scenario}: copies"
        );
        assert_eq!(
            sum(&got, "flows", "retransmitted"),
            int(&want["retransmitted"]),
            "{scenario}: retransmitted"
        );
        assert_eq!(
            int(&counts["go_back_n"]),
            int(&want["go_back_n"]),
            "{scenario}: go-back-N"
        );
        assert_eq!(
            int(&counts["psn_gap"]),
            int(&want["psn_gaps"]),
            "{scenario}: gaps"
        );
        assert_eq!(int(&counts["nak"]), int(&want["naks"]), "{scenario}: NAKs");

        // The connection counts each event once too.
        let connections = got["connections"].as_array().expect("connections");
        assert_eq!(connections.len(), 1, "{scenario}");
        let a_to_b = &connections[0]["a_to_b"];
        assert_eq!(
            int(&a_to_b["retransmitted"]),
            int(&want["retransmitted"]),
            "{scenario}"
        );
        assert_eq!(
            int(&a_to_b["go_back_n"]),
            int(&want["go_back_n"]),
            "{scenario}"
        );
        assert_eq!(a_to_b["naks"], want["nak_codes"], "{scenario}: NAK codes");

        let lost: Vec<(i64, String, String)> = got["anomalies"]
            .as_array()
            .expect("anomalies")
            .iter()
            .filter(|a| a["kind"] == "lost_between")
            .map(|a| {
                let name = |k: &str| {
                    let path = a[k].as_str().unwrap_or("");
                    path.rsplit('/').next().unwrap_or(path).to_string()
                };
                (int(&a["psn"]), name("seen_at"), name("missing_at"))
            })
            .collect();
        let want_lost: Vec<(i64, String, String)> = want["lost_between"]
            .as_array()
            .expect("lost")
            .iter()
            .map(|l| {
                let s = |k: &str| l[k].as_str().expect("name").to_string();
                (int(&l["psn"]), s("seen_at"), s("missing_at"))
            })
            .collect();
        assert_eq!(lost, want_lost, "{scenario}: lost between points");
        assert_eq!(
            int(&counts["lost_between"]),
            want_lost.len() as i64,
            "{scenario}"
        );
    }
}

/// Pieces of one capture are not points: a retransmission in the second piece is one.
#[test]
fn single_point_treats_the_files_as_one_stream() {
    let out = rdmadump(&[
        "analyze",
        "--json",
        "--single-point",
        "fixtures/points/skew10us_a.pcap",
        "fixtures/points/skew10us_b.pcap",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert!(got["capture_points"].is_null());
    assert_eq!(sum(&got, "flows", "duplicates"), 0);
    // Each request appears twice, 12 us apart: as one point, the second is a retransmission.
    assert_eq!(sum(&got, "flows", "retransmitted"), 60);
}

/// `--interval`: gbn_both sends one request every 10 us from its first, 64 in all, the
/// last four of the go-back-N (PSNs 130-133 again) at 340-370 us: 100 us buckets hold ten
/// 1024-byte requests each, the fourth with the four retransmissions, the seventh four.
#[test]
fn timelines_bucket_the_requests() {
    let out = rdmadump(&[
        "analyze",
        "--json",
        "--interval",
        "100us",
        "fixtures/points/gbn_both_a.pcap",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let timeline = &got["connections"][0]["a_to_b"]["timeline"];
    assert_eq!(int(&timeline["interval_ns"]), 100_000);
    assert_eq!(
        int(&timeline["start_ns"]),
        int(&got["connections"][0]["a_to_b"]["first_ts_ns"])
    );
    let buckets = timeline["buckets"].as_array().expect("buckets");
    let packets: Vec<i64> = buckets.iter().map(|b| int(&b["packets"])).collect();
    assert_eq!(packets, [10, 10, 10, 10, 10, 10, 4]);
    let retx: Vec<i64> = buckets.iter().map(|b| int(&b["retransmitted"])).collect();
    assert_eq!(retx, [0, 0, 0, 4, 0, 0, 0]);
    assert_eq!(int(&buckets[0]["payload_bytes"]), 10 * 1024);

    // Ten buckets at most: 1 us buckets over 630 us double until 64 us fit ten.
    let out = rdmadump(&[
        "analyze",
        "--json",
        "--interval",
        "1us",
        "--max-buckets",
        "10",
        "fixtures/points/gbn_both_a.pcap",
    ]);
    let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let timeline = &got["connections"][0]["a_to_b"]["timeline"];
    assert_eq!(int(&timeline["interval_ns"]), 64_000);
    let buckets = timeline["buckets"].as_array().expect("buckets");
    assert_eq!(buckets.len(), 10);
    assert_eq!(buckets.iter().map(|b| int(&b["packets"])).sum::<i64>(), 64);
}

/// `analyze --qp` keeps the whole connection: asked for A's QPN, which only responses are
/// sent to, it still shows B's requests and the NAK (two_qps: 10.3.0.1 QP 0x501 with
/// 10.3.0.2 QP 0x601, one NAK; the other connection, 0x502 with 0x602, is left out).
#[test]
fn qp_selects_the_whole_connection() {
    for qp in ["0x501", "0x601"] {
        let out = rdmadump(&[
            "analyze",
            "--json",
            "--qp",
            qp,
            "fixtures/connections/two_qps.pcap",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
        let connections = got["connections"].as_array().expect("connections");
        assert_eq!(connections.len(), 1, "--qp {qp}");
        assert_eq!(int(&connections[0]["a"]["qpn"]), 0x501);
        assert_eq!(int(&connections[0]["b"]["qpn"]), 0x601);
        assert_eq!(int(&got["anomaly_counts"]["nak"]), 1, "--qp {qp}");
        let roles: Vec<&str> = got["flows"]
            .as_array()
            .expect("flows")
            .iter()
            .map(|f| f["role"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(roles, ["request", "response"], "--qp {qp}");
    }
}

/// A copy of the little-endian microsecond pcap `from` with every record `usec` later: the
/// same packets seen at another point, whose clock is ahead (a byte-identical copy would be
/// the same capture given twice, which is read once).
fn shifted_copy(from: &std::path::Path, to: &std::path::Path, usec: u32) {
    shifted_copy_without(from, to, usec, None);
}

/// `shifted_copy`, with record `drop` (numbered from 1) left out: a capture that dropped it.
fn shifted_copy_without(
    from: &std::path::Path,
    to: &std::path::Path,
    usec: u32,
    drop: Option<usize>,
) {
    let mut bytes = std::fs::read(from).expect("read");
    assert_eq!(
        bytes[..4],
        [0xd4, 0xc3, 0xb2, 0xa1],
        "a little-endian microsecond pcap"
    );
    let mut out = bytes[..24].to_vec();
    let mut at = 24;
    let mut frame = 0;
    while at + 16 <= bytes.len() {
        frame += 1;
        let field = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let (secs, micros) = (field(&bytes, at), field(&bytes, at + 4) + usec);
        bytes[at..at + 4].copy_from_slice(&(secs + micros / 1_000_000).to_le_bytes());
        bytes[at + 4..at + 8].copy_from_slice(&(micros % 1_000_000).to_le_bytes());
        let end = at + 16 + field(&bytes, at + 8) as usize;
        if drop != Some(frame) {
            out.extend_from_slice(&bytes[at..end]);
        }
        at = end;
    }
    std::fs::write(to, out).expect("write");
}

/// A point whose capture dropped a request that was never sent again: the request was
/// delivered, so that point's capture missed it, and nothing was lost between points.
/// lost_ab_a's frame 11 is the WRITE of PSN 105, sent once (tshark lists PSN 105 in frames
/// 11 and 12, the WRITE and its ACK; PSN 140 alone is sent again).
#[test]
fn a_request_one_point_dropped_and_never_resent_is_that_capture_s_miss() {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("lost_ab_c.pcap");
    shifted_copy_without(
        &root().join("fixtures/points/lost_ab_a.pcap"),
        &c,
        1,
        Some(11),
    );
    let c = c.to_string_lossy().into_owned();
    let a = "fixtures/points/lost_ab_a.pcap";
    let b = "fixtures/points/lost_ab_b.pcap";
    let out = rdmadump(&["analyze", "--json", a, b, &c]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let points = &got["capture_points"]["points"];
    assert_eq!(int(&points[2]["missed_by_capture"]), 1);
    assert_eq!(int(&points[2]["capture_loss"]["missed"]), 1);
    assert_eq!(int(&points[0]["capture_loss"]["missed"]), 0);
    // PSN 140, sent again, is still the one loss between points.
    assert_eq!(int(&got["anomaly_counts"]["lost_between"]), 1);
}

/// `--order`: in lost_ab, PSN 140's first transmission reached point a and not b. A third
/// point c, a copy of a (1 us later) placed after b on the path, saw it too: b's capture dropped it, the
/// network did not, so there is no loss, and b's `missed_by_capture` is 1. Without the
/// order, it is a loss from the last point to see it. A bad order is a usage error.
#[test]
fn a_given_order_tells_capture_drops_from_losses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("lost_ab_c.pcap");
    shifted_copy(&root().join("fixtures/points/lost_ab_a.pcap"), &c, 1);
    let c = c.to_string_lossy().into_owned();
    let a = "fixtures/points/lost_ab_a.pcap";
    let b = "fixtures/points/lost_ab_b.pcap";
    let order = format!("{a},{b},{c}");
    let out = rdmadump(&["analyze", "--json", "--order", &order, a, b, &c]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let points = &got["capture_points"];
    assert_eq!(points["order"][1], b);
    let missed: Vec<i64> = points["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| int(&p["missed_by_capture"]))
        .collect();
    assert_eq!(missed, [0, 1, 0]);
    assert_eq!(points["lost_between"], serde_json::json!([]));
    assert_eq!(int(&got["anomaly_counts"]["lost_between"]), 0);

    let out = rdmadump(&["analyze", "--json", a, b, &c]);
    let got: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(int(&got["anomaly_counts"]["lost_between"]), 1);
    assert!(got["capture_points"]["order"].is_null());

    for bad in [
        a.to_string(),
        format!("{a},{a}"),
        format!("{a},nowhere.pcap"),
    ] {
        let out = rdmadump(&["analyze", "--order", &bad, a, b]);
        assert_eq!(out.status.code(), Some(2), "--order {bad}");
        assert!(stderr(&out).contains("--order"), "{}", stderr(&out));
    }
}
