//! The upper-layer protocols beside NVMe-oF (RPC-over-RDMA), against
//! fixtures/ulp/expected.json, whose truth fixtures/gen/make_ulp.py typed by hand from the
//! messages it assembled.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, read_json, stdout};

fn expected(proto: &str) -> Value {
    let text = std::fs::read_to_string(fixture("ulp/expected.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all[proto].clone()
}

fn capture(proto: &str) -> String {
    let file = expected(proto)["file"].as_str().unwrap().to_string();
    fixture(&format!("ulp/{file}"))
        .to_str()
        .unwrap()
        .to_string()
}

/// Every key of `want` is in `got` with the same value; objects are compared key by key,
/// arrays element by element.
fn assert_subset(frame: &str, want: &Value, got: &Value, path: &str) {
    match want {
        Value::Object(map) => {
            for (key, value) in map {
                let inner = got.get(key).unwrap_or(&Value::Null);
                assert_subset(frame, value, inner, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => {
            let got_items = got.as_array().map_or(&[][..], Vec::as_slice);
            assert_eq!(got_items.len(), items.len(), "frame {frame}: {path}");
            for (i, (w, g)) in items.iter().zip(got_items).enumerate() {
                assert_subset(frame, w, g, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(got, want, "frame {frame}: {path}"),
    }
}

/// Frames as typed by hand; a null one carries no layer of the protocol.
fn check_frames(proto: &str, layer: &str, extra: &[&str]) {
    let frames = read_json(std::path::Path::new(&capture(proto)), extra);
    let truth = expected(proto);
    for (number, want) in truth["frames"].as_object().unwrap() {
        let index: usize = number.parse().unwrap();
        let frame = &frames[index - 1];
        match want {
            Value::Null => assert!(frame.get(layer).is_none(), "frame {number}: {frame}"),
            want => assert_subset(number, want, &frame[layer], layer),
        }
    }
}

#[test]
fn rpcrdma_headers_chunks_and_rpc_decode_as_assembled() {
    check_frames("rpcrdma", "rpcrdma", &[]);
}

#[test]
fn rpcrdma_text_lines_name_the_nfs_call() {
    let out = rdmadump(&["read", &capture("rpcrdma")]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[3].ends_with("| NFS GETATTR xid 0x1001"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4]
            .ends_with("| NFS GETATTR reply xid 0x1001 NFS3_OK call frame 4 latency 150.000 us"),
        "{}",
        lines[4]
    );
    assert!(
        lines[5].ends_with("| NFS READ xid 0x1002 chunks read 0 write 1 reply 0"),
        "{}",
        lines[5]
    );
    assert!(lines[9].contains("NFS3ERR_NOENT"), "{}", lines[9]);
    assert!(!lines[10].contains('|'), "{}", lines[10]);
    assert!(
        lines[12].ends_with("| NFS GETATTR xid 0x2002 (SEQUENCE PUTFH GETATTR)"),
        "{}",
        lines[12]
    );
    assert!(
        lines[13].contains("RDMA_ERROR ERR_CHUNK xid 0x2002 call frame 13"),
        "{}",
        lines[13]
    );
}

#[test]
fn rpcrdma_fields_answer_to_wiresharks_names() {
    let out = rdmadump(&[
        "read",
        "-T",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "rpcordma.xid",
        "-e",
        "rpc.program",
        "-e",
        "nfs.opcode",
        "-e",
        "rpcrdma.call.latency_ns",
        "-E",
        "occurrence=a",
        "-Y",
        "rpcordma",
        &capture("rpcrdma"),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows.contains(&"4\t4097\t100003\t\t"), "{rows:?}");
    // The reply carries its call's program, as in Wireshark.
    assert!(rows.contains(&"5\t4097\t100003\t\t150000"), "{rows:?}");
    assert!(rows.contains(&"13\t8194\t100003\t53,22,9\t"), "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("11\t")), "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("7\t")), "{rows:?}");
}

#[test]
fn rpcrdma_decode_as_names_a_connection_traffic_has_not_taught_yet() {
    // Forced on the server QP of connection 1, its first call (frame 11) is decoded too.
    let frames = read_json(
        std::path::Path::new(&capture("rpcrdma")),
        &["--decode", "qp=0x444:rpcrdma"],
    );
    assert_eq!(frames[10]["rpcrdma"]["rpc"]["name"], "READ");
    assert_eq!(frames[10]["rpcrdma"]["recognised_by"], "option");
    assert_eq!(frames[11]["rpcrdma"]["call"]["frame"], 11);
    assert_eq!(frames[11]["rpcrdma"]["call"]["latency_ns"], 400000);
}

#[test]
fn rpcrdma_analyze_times_each_connection_as_typed_by_hand() {
    let out = rdmadump(&["analyze", "--json", &capture("rpcrdma")]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let got = report["rpcrdma"].as_array().unwrap();
    let want = expected("rpcrdma")["analysis"].as_array().unwrap().clone();
    assert_eq!(got.len(), want.len());
    for (got, want) in got.iter().zip(&want) {
        let session = want["session"].as_u64().unwrap();
        for key in [
            "session",
            "recognised_by",
            "answered",
            "unanswered",
            "bytes_read",
            "bytes_written",
            "errors",
        ] {
            assert_eq!(got[key], want[key], "session {session}: {key}");
        }
        assert_eq!(got["calls"], want["commands"], "session {session}");
        let mut latencies: Vec<u64> = want["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        latencies.sort_unstable();
        // Nearest rank over the hand-typed latencies.
        let rank = |p: usize| latencies[(p * latencies.len()).div_ceil(100).max(1) - 1];
        assert_eq!(got["latency"]["p50_ns"], rank(50), "session {session}");
        assert_eq!(got["latency"]["p99_ns"], rank(99), "session {session}");
        assert_eq!(
            got["latency"]["max_ns"],
            *latencies.last().unwrap(),
            "session {session}"
        );
    }
}

#[test]
fn a_capture_without_rpcrdma_has_no_rpcrdma_section() {
    let out = rdmadump(&[
        "analyze",
        "--json",
        fixture("nvme/nvme_rdma.pcap").to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(report.get("rpcrdma").is_none());
    let frames = read_json(&fixture("nvme/nvme_rdma.pcap"), &[]);
    assert!(frames.iter().all(|f| f.get("rpcrdma").is_none()));
}
