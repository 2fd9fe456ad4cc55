//! `analyze --json` connections against truth typed in by hand (fixtures/connections/
//! expected.json, by fixtures/gen/make_connections.py), and against the real captures with
//! CM, by path.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, stderr, stdout};

/// Every key the truth may hold; anything else fails, so the generator cannot record a fact
/// that nobody checks.
const CONNECTION_KEYS: &[&str] = &[
    "transport",
    "a",
    "b",
    "paired_by",
    "pairing_candidates",
    "path_mtu",
    "path_mtu_source",
    "state",
    "first_frame",
    "last_frame",
    "history",
    "a_to_b",
    "b_to_a",
];

const DIRECTION_KEYS: &[&str] = &[
    "packets",
    "payload_bytes",
    "messages",
    "message_bytes",
    "rtt_ns",
    "read_latency_ns",
    "psn_gaps",
    "missing_psns",
    "retransmitted",
    "go_back_n",
    "go_back_0",
    "naks",
    "nak_to_retx_ns",
    "max_outstanding_psns",
    "ecn_ce",
    "fecn",
    "becn",
    "capture_loss",
];

fn analyze(path: &str) -> Value {
    let out = rdmadump(&["analyze", "--json", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("one JSON document")
}

/// Every member of `want` equals `got`'s, recursively; objects may hold more in `got`,
/// except `messages` and `naks`, which must match exactly.
fn subset(path: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            let exact = path.ends_with("messages") || path.ends_with("naks");
            if exact && w.len() != g.len() {
                problems.push(format!("{path}: want {want}, got {got}"));
            }
            for (k, v) in w {
                subset(
                    &format!("{path}.{k}"),
                    v,
                    g.get(k).unwrap_or(&Value::Null),
                    problems,
                );
            }
        }
        _ if want != got => problems.push(format!("{path}: want {want}, got {got}")),
        _ => {}
    }
}

fn find<'a>(conns: &'a [Value], a: &Value, b: &Value) -> Option<&'a Value> {
    conns.iter().find(|c| &c["a"] == a && &c["b"] == b)
}

#[test]
fn generated_connections_match_their_truth() {
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("connections/expected.json")).unwrap(),
    )
    .unwrap();
    let mut problems = Vec::new();
    for (file, want) in truth.as_object().unwrap() {
        let path = fixture(&format!("connections/{file}"));
        let report = analyze(path.to_str().unwrap());
        let got = report["connections"].as_array().unwrap();
        let want = want["connections"].as_array().unwrap();
        if got.len() != want.len() {
            problems.push(format!(
                "{file}: {} connections expected, got {}",
                want.len(),
                got.len()
            ));
        }
        for w in want {
            for key in w.as_object().unwrap().keys() {
                assert!(CONNECTION_KEYS.contains(&key.as_str()), "unknown key {key}");
            }
            for dir in ["a_to_b", "b_to_a"] {
                for key in w[dir].as_object().into_iter().flat_map(|o| o.keys()) {
                    assert!(DIRECTION_KEYS.contains(&key.as_str()), "unknown key {key}");
                }
            }
            match find(got, &w["a"], &w["b"]) {
                Some(g) => subset(file, w, g, &mut problems),
                None => problems.push(format!("{file}: no connection {} ↔ {}", w["a"], w["b"])),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn real(name: &str) -> Option<Value> {
    let path = crate::harness::real_capture(name)?;
    Some(analyze(path.to_str().unwrap()))
}

fn end(addr: &str, qpn: u32) -> Value {
    serde_json::json!({"addr": addr, "qpn": qpn})
}

#[test]
fn rxe_capture_has_one_cm_connection_with_a_write_and_a_read() {
    let Some(report) = real("rdma-cm-rxe.pcap") else {
        return;
    };
    let conns = report["connections"].as_array().unwrap();
    assert_eq!(conns.len(), 1, "{conns:?}");
    let c = find(
        conns,
        &end("192.168.2.25", 0x17),
        &end("192.168.2.24", 0x11),
    )
    .expect("192.168.2.25 QPN 0x17 ↔ 192.168.2.24 QPN 0x11");
    assert_eq!(c["paired_by"], "cm");
    assert_eq!(c["transport"], "rc");
    assert_eq!(c["path_mtu"], 1024);
    assert_eq!(c["path_mtu_source"], "cm");
    assert_eq!(c["state"], "disconnected");
    let ab = &c["a_to_b"];
    assert_eq!(ab["messages"], serde_json::json!({"write": 1, "read": 1}));
    assert_eq!(ab["message_bytes"]["max"], 4096);
    // The READ's four responses, 1024 bytes each, after the 18-byte WRITE.
    assert_eq!(ab["payload_bytes"], 18 + 4096);
    assert_eq!(ab["psn_gaps"], 0);
    assert_eq!(ab["read_latency_ns"]["first"]["samples"], 1);
    assert_eq!(ab["read_latency_ns"]["last"]["samples"], 1);
}

#[test]
fn infiniband_capture_has_the_three_cm_connections() {
    let Some(report) = real("infiniband-erf.pcap") else {
        return;
    };
    let conns = report["connections"].as_array().unwrap();
    let lids = |c: &Value| {
        (
            c["a"]["addr"].as_str().unwrap().to_string(),
            c["b"]["addr"].as_str().unwrap().to_string(),
        )
    };
    let cm: Vec<&Value> = conns.iter().filter(|c| c["paired_by"] == "cm").collect();
    assert_eq!(cm.len(), 3, "{conns:?}");
    let mut pairs: Vec<(String, String)> = cm
        .iter()
        .map(|c| {
            let (a, b) = lids(c);
            if a < b { (a, b) } else { (b, a) }
        })
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            ("lid 1".to_string(), "lid 4".to_string()),
            ("lid 2".to_string(), "lid 4".to_string()),
            ("lid 2".to_string(), "lid 4".to_string()),
        ]
    );
    for c in cm {
        assert_eq!(c["transport"], "rc");
        assert_eq!(c["a_to_b"]["psn_gaps"], 0, "{c}");
        assert!(c["a_to_b"]["packets"].as_u64().unwrap() > 0, "{c}");
    }
}

#[test]
fn text_table_leads_and_fits_100_columns() {
    let path = fixture("connections/two_qps.pcap");
    let out = rdmadump(&["analyze", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let table = text
        .split("\nConnections (2)")
        .nth(1)
        .expect("a connection table");
    assert!(text.find("Connections (").unwrap() < text.find("Flows (").unwrap());
    for line in table.lines().take_while(|l| !l.is_empty()) {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(table.contains(".1:0x501 ↔ .2:0x601"), "{table}");
    assert!(table.contains(".1:0x502 ↔ .2:0x602"), "{table}");
}
