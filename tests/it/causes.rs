//! Retransmission causes against truth typed in by hand (fixtures/causes/expected.json, by
//! fixtures/gen/make_causes.py): each episode's cause and wait in the JSON anomalies and
//! per direction, the inferred ACK timeout and backoff, the text table's `retx`, the HTML
//! marks of a timeout, and the Parquet columns.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, stderr, stdout};

const FILES: [&str; 5] = [
    "timeout_backoff.pcap",
    "rnr.pcap",
    "nak.pcap",
    "implied.pcap",
    "mixed.pcap",
];

fn truth() -> Value {
    let text = std::fs::read_to_string(fixture("causes/expected.json")).expect("truth");
    serde_json::from_str(&text).expect("truth JSON")
}

fn path(name: &str) -> String {
    fixture(&format!("causes/{name}"))
        .to_string_lossy()
        .into_owned()
}

fn analyze(name: &str) -> Value {
    let out = rdmadump(&["analyze", "--json", &path(name)]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("one JSON document")
}

/// Every key of `want` is in `got` with the same value (nulls included).
fn assert_subset(what: &str, want: &Value, got: &Value) {
    for (key, value) in want.as_object().expect("truth object") {
        assert_eq!(&got[key], value, "{what}: {key}");
    }
}

#[test]
fn every_direction_counts_its_episodes_by_cause_with_their_waits() {
    let truth = truth();
    for name in FILES {
        let report = analyze(name);
        let want = truth[name]["connections"].as_array().unwrap();
        let got = report["connections"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{name}: connections");
        for (w, g) in want.iter().zip(got) {
            assert_eq!(g["a"], w["a"], "{name}: a");
            assert_eq!(g["b"], w["b"], "{name}: b");
            assert_subset(name, &w["a_to_b"], &g["a_to_b"]);
        }
    }
}

#[test]
fn every_go_back_names_its_cause_and_its_wait() {
    let truth = truth();
    for name in FILES {
        check_anomalies(name, &analyze(name), &truth, "go_back_n");
    }
}

/// The anomalies of `kind` are those of the truth's list of that name, in order.
fn check_anomalies(name: &str, report: &Value, truth: &Value, kind: &str) {
    let got: Vec<&Value> = report["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == kind)
        .collect();
    let want = truth[name][kind].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: {kind} anomalies");
    for (w, g) in want.iter().zip(got) {
        assert_subset(name, w, g);
    }
    assert_eq!(report["anomaly_counts"][kind], want.len(), "{name}: count");
}

/// A single retransmission is an episode as a go-back is: an anomaly of its own, with the
/// same cause and wait, once per episode (not per PSN that goes on with it).
#[test]
fn every_single_retransmission_names_its_cause_and_its_wait() {
    let truth = truth();
    for name in FILES {
        check_anomalies(name, &analyze(name), &truth, "retransmission");
        let want = truth[name]["retransmission"].as_array().unwrap();
        // The text's anomaly list says the same.
        let out = rdmadump(&["analyze", &path(name)]);
        let text = stdout(&out);
        for w in want {
            let line = format!(
                "psn {} sent again after {} us ({})",
                w["psn"],
                w["waited_ns"].as_u64().unwrap() / 1000,
                w["cause"].as_str().unwrap()
            );
            let list = text.split("\nAnomalies (").nth(1).unwrap_or_default();
            let row = list
                .lines()
                .find(|l| l.contains(" retransmission  "))
                .unwrap_or_else(|| panic!("{name}: no retransmission row in\n{text}"));
            assert!(
                row.trim_start().starts_with(&w["frame"].to_string()) && row.contains(&line),
                "{name}: {line:?} not in {row:?}"
            );
        }
    }
}

#[test]
fn the_text_table_gives_episodes_with_their_causes() {
    let truth = truth();
    for name in FILES {
        let out = rdmadump(&["analyze", &path(name)]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let want = truth[name]["text_retx"].as_str().unwrap();
        let row = text
            .lines()
            .find(|l| l.contains(" ↔ "))
            .unwrap_or_else(|| panic!("{name}: no connection row in\n{text}"));
        assert!(
            row.contains(&format!("  {want}  ")),
            "{name}: retx {want:?} not in {row:?}"
        );
    }
}

#[test]
fn the_time_sequence_marks_a_timeout_apart_from_a_nak() {
    let truth = truth();
    let scratch = tempfile::tempdir().expect("tempdir");
    for name in FILES {
        let html = scratch.path().join(format!("{name}.html"));
        let out = rdmadump(&["analyze", "--html", html.to_str().unwrap(), &path(name)]);
        assert!(out.status.success(), "{}", stderr(&out));
        let page = std::fs::read_to_string(&html).expect("html");
        for (mark, want) in truth[name]["html_marks"].as_object().unwrap() {
            let needle = format!("data-mark=\"{mark}\"");
            let got = page.matches(&needle).count() as u64;
            assert_eq!(Some(got), want.as_u64(), "{name}: {mark} marks");
        }
        // The legend names the kind of retransmission each shows.
        let timeouts = truth[name]["html_marks"]["retransmitted_timeout"]
            .as_u64()
            .unwrap();
        assert_eq!(
            page.contains("retransmitted after timeout"),
            timeouts > 0,
            "{name}: legend"
        );
    }
}

#[cfg(feature = "export")]
#[test]
fn parquet_events_and_connections_carry_the_causes() {
    use crate::export::{export, files_under, rows_of};
    let truth = truth();
    let scratch = tempfile::tempdir().expect("tempdir");
    for (n, name) in FILES.iter().enumerate() {
        let out = scratch.path().join(n.to_string());
        let capture = fixture(&format!("causes/{name}"));
        let result = export(&out, &["--partition", "none"], &[&capture]);
        assert!(result.status.success(), "{}", stderr(&result));
        let events = rows_of(&files_under(&out.join("events")));
        let go_backs: Vec<_> = events.iter().filter(|e| e["kind"] == "go_back_n").collect();
        let want = truth[*name]["go_back_n"].as_array().unwrap();
        assert_eq!(go_backs.len(), want.len(), "{name}: events");
        for (w, g) in want.iter().zip(go_backs) {
            assert_eq!(g["cause"], w["cause"], "{name}: cause");
            assert_eq!(g["waited_ns"], w["waited_ns"], "{name}: waited_ns");
        }
        let singles: Vec<_> = events
            .iter()
            .filter(|e| e["kind"] == "retransmission")
            .collect();
        let want = truth[*name]["retransmission"].as_array().unwrap();
        assert_eq!(singles.len(), want.len(), "{name}: retransmission events");
        for (w, g) in want.iter().zip(singles) {
            for key in ["frame", "psn", "cause", "waited_ns"] {
                assert_eq!(g[key], w[key], "{name}: retransmission {key}");
            }
            assert_eq!(
                g.get("rnr_timer_ns").unwrap_or(&Value::Null),
                w.get("rnr_timer_ns").unwrap_or(&Value::Null),
                "{name}: rnr_timer_ns"
            );
        }
        let rows = rows_of(&files_under(&out.join("connections")));
        let row = rows
            .iter()
            .find(|r| r["direction"] == "a_to_b")
            .unwrap_or_else(|| panic!("{name}: no a_to_b row"));
        let direction = &truth[*name]["connections"][0]["a_to_b"];
        for (cause, count) in direction["retransmissions_by_cause"].as_object().unwrap() {
            assert_eq!(
                row[&format!("retransmissions_by_cause_{cause}")],
                *count,
                "{name}: {cause}"
            );
        }
        assert_eq!(row["retx_wait_ns"], direction["retx_wait_ns"], "{name}");
        let timeout = &direction["timeout"];
        for key in [
            "count",
            "inferred_timeout_ns",
            "k",
            "backoff",
            "max_retries",
        ] {
            assert_eq!(
                row.get(&format!("timeout_{key}")).unwrap_or(&Value::Null),
                &timeout.get(key).cloned().unwrap_or(Value::Null),
                "{name}: timeout {key}"
            );
        }
    }
}
