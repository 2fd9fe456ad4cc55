//! NVMe over Fabrics on RDMA, against fixtures/nvme/expected.json, whose truth
//! fixtures/gen/make_nvme.py typed by hand from the capsules it assembled.

use serde_json::Value;

use crate::export::{export, files_under, rows_of};
use crate::harness::{fixture, rdmadump, read_json, stderr, stdout};

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("nvme/expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `analyze --json` of a fixture: the report, and the run (for its standard error).
fn analyze_json(capture: &str) -> (Value, std::process::Output) {
    let out = rdmadump(&["analyze", "--json", fixture(capture).to_str().unwrap()]);
    (serde_json::from_str(&stdout(&out)).unwrap(), out)
}

/// Every key of `want` is in `got` with the same value; objects are compared key by key.
fn assert_subset(frame: &str, want: &Value, got: &Value, path: &str) {
    match want {
        Value::Object(map) => {
            for (key, value) in map {
                let inner = got.get(key).unwrap_or(&Value::Null);
                assert_subset(frame, value, inner, &format!("{path}.{key}"));
            }
        }
        _ => assert_eq!(got, want, "frame {frame}: {path}"),
    }
}

#[test]
fn capsules_cm_and_data_links_decode_as_assembled() {
    let frames = read_json(&fixture("nvme/nvme_rdma.pcap"), &[]);
    let truth = expected();
    for (number, want) in truth["frames"].as_object().unwrap() {
        let index: usize = number.parse().unwrap();
        let frame = &frames[index - 1];
        match want {
            // Before its queue is known, a frame is not NVMe-oF.
            Value::Null => assert!(frame.get("nvme").is_none(), "frame {number}: {frame}"),
            want => assert_subset(number, want, &frame["nvme"], "nvme"),
        }
    }
}

#[test]
fn the_text_line_reads_like_tsharks_info() {
    let out = rdmadump(&["read", fixture("nvme/nvme_rdma.pcap").to_str().unwrap()]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[3].ends_with("| NVMeOF Connect cid 1 sgl len 1024 key 0xa001"),
        "{}",
        lines[3]
    );
    assert!(
        lines[7].contains("| NVMeOF CQE for Connect cid 1 sqhd 1 cmd frame 4 latency 250.000 us")
    );
    assert!(
        lines[25].contains("| NVMe Read cid 17 nsid 1 slba 2048 nlb 8 "),
        "{}",
        lines[25]
    );
    assert!(lines[33].contains("LBA Out of Range DNR"), "{}", lines[33]);
}

#[test]
fn fields_reach_nvme_values_under_wireshark_names() {
    let out = rdmadump(&[
        "read",
        "-T",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "nvme.cmd.opc",
        "-e",
        "nvme.command.latency_ns",
        "-Y",
        "nvme",
        fixture("nvme/nvme_rdma.pcap").to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows.contains(&"10\t6\t"), "{rows:?}");
    assert!(rows.contains(&"30\t\t500000"), "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("20\t")), "{rows:?}");
}

#[test]
fn decode_as_names_a_queue_tshark_and_traffic_cannot() {
    // Forced on the controller QP of queue 1, its first command (frame 20) is decoded too.
    let frames = read_json(
        &fixture("nvme/nvme_rdma.pcap"),
        &["--decode", "qp=0x404:nvme-rdma"],
    );
    assert_eq!(frames[19]["nvme"]["name"], "Write");
    assert_eq!(frames[19]["nvme"]["recognised_by"], "option");
}

#[test]
fn analyze_times_each_queue_as_typed_by_hand() {
    let (report, _) = analyze_json("nvme/nvme_rdma.pcap");
    let truth = expected();
    let queues = report["nvme"].as_array().unwrap();
    let want = truth["analysis"]["queues"].as_array().unwrap();
    assert_eq!(queues.len(), want.len());
    for (got, want) in queues.iter().zip(want) {
        let queue = want["queue"].as_u64().unwrap();
        assert_eq!(got["queue"], want["queue"]);
        assert_eq!(got["recognised_by"], want["recognised_by"], "queue {queue}");
        assert_eq!(got["commands"], want["commands"], "queue {queue}");
        assert_eq!(got["answered"], want["answered"], "queue {queue}");
        assert_eq!(got["unanswered"], want["unanswered"], "queue {queue}");
        assert_eq!(got["latency"]["max_ns"], want["max_ns"], "queue {queue}");
        let mut latencies: Vec<u64> = want["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        latencies.sort_unstable();
        // Nearest rank over the hand-typed latencies.
        let p50 = latencies[latencies.len().div_ceil(2) - 1];
        assert_eq!(got["latency"]["p50_ns"], p50, "queue {queue}");
        let slowest: Vec<u64> = got["slowest"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["latency_ns"].as_u64().unwrap())
            .collect();
        assert_eq!(slowest, latencies.iter().rev().copied().collect::<Vec<_>>());
        if let Some(bytes) = want.get("bytes_read") {
            assert_eq!(&got["bytes_read"], bytes, "queue {queue}");
            assert_eq!(
                &got["bytes_written"], &want["bytes_written"],
                "queue {queue}"
            );
        }
        if let Some(errors) = want.get("errors_by_status") {
            assert_eq!(&got["errors"], errors, "queue {queue}");
        }
        // Each slow command lists what the transport did in its lifetime; the truth names
        // the commands (by frame) that saw something, and every other one saw nothing.
        let during = want.get("during").and_then(Value::as_object);
        for slow in got["slowest"].as_array().unwrap() {
            let frame = slow["frame"].to_string();
            match during.and_then(|d| d.get(&frame)) {
                Some(want) => assert_eq!(&slow["during"], want, "queue {queue} frame {frame}"),
                None => {
                    let d = &slow["during"];
                    assert_eq!(d["retransmissions"], serde_json::json!([]), "{frame}");
                    assert_eq!(d["stalls"], serde_json::json!([]), "{frame}");
                    assert_eq!(d["pause"]["paused_ns"], 0, "{frame}");
                }
            }
        }
    }
}

#[test]
fn a_slow_command_says_why_in_text() {
    let out = rdmadump(&["analyze", fixture("nvme/nvme_rdma.pcap").to_str().unwrap()]);
    let text = stdout(&out);
    let row = text
        .lines()
        .find(|l| l.starts_with("Write    20   38"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.ends_with(
            "retransmission psn 1541 (timeout) frame 43; controller stalled 590 us; \
             prio 0 paused 200 us"
        ),
        "{row}"
    );
}

/// The fixture's CM REQ names the PSN the controller sends from, its REP the host's (as
/// Linux's cm.c reads them), and every request is acknowledged: the transport analysis must
/// find no capture loss in NVMe-oF's READs, WRITEs and SENDs, and only the one stall and
/// retransmission built in.
#[test]
fn the_transport_analysis_finds_only_what_was_built() {
    let (report, out) = analyze_json("nvme/nvme_rdma.pcap");
    let want = &expected()["analysis"]["transport"];
    assert_eq!(
        report["capture_loss"]["missed"], want["capture_missed"],
        "{}",
        report["capture_loss"]
    );
    let stalls: u64 = report["connections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| [&c["a_to_b"], &c["b_to_a"]])
        .map(|d| d["stall_count"].as_u64().unwrap())
        .sum();
    assert_eq!(stalls, want["stall_count"]);
    assert_eq!(
        report["anomalies"].as_array().unwrap().len() as u64,
        want["anomalies"]
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_capture_without_nvme_has_no_nvme_section() {
    let (report, _) = analyze_json("roce_v2_opcodes.pcap");
    assert!(report.get("nvme").is_none());
}

/// The export's `commands` table, read back with the parquet crate: one row per command,
/// as typed by hand, with the unanswered Flush flagged and untimed.
#[test]
fn export_writes_one_row_per_command() {
    let truth = expected();
    let base_ns: u64 = 1_700_000_000 * 1_000_000_000;
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = fixture("nvme/nvme_rdma.pcap");
    let out = export(scratch.path(), &["--partition", "none"], &[&capture]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows_of(&files_under(&scratch.path().join("commands")));
    let want = truth["commands"].as_array().unwrap();
    assert_eq!(rows.len(), want.len(), "{rows:#?}");
    let null = Value::Null;
    for (row, w) in rows.iter().zip(want) {
        let at = |key: &str| row.get(key).unwrap_or(&null);
        let cid = &w["cid"];
        assert_eq!(at("capture"), "nvme_rdma.pcap");
        // The columns every protocol shares: a queue is NVMe-oF's session, a CID its key.
        assert_eq!(at("protocol"), "nvme");
        assert_eq!(at("session"), &w["queue"], "cid {cid}");
        assert_eq!(at("key"), cid);
        for key in [
            "queue",
            "cid",
            "name",
            "opcode",
            "command_frame",
            "response_frame",
            "latency_ns",
            "sct",
            "sc",
            "dnr",
            "bytes",
        ] {
            assert_eq!(at(key), &w[key], "cid {cid}: {key}");
        }
        assert_eq!(
            at("unanswered"),
            w.get("unanswered").unwrap_or(&Value::from(false))
        );
        let ns = |us: &Value| us.as_u64().map(|us| Value::from(base_ns + us * 1000));
        assert_eq!(
            Some(at("start_ts_ns").clone()),
            ns(&w["start_us"]),
            "cid {cid}"
        );
        assert_eq!(
            at("end_ts_ns").clone(),
            ns(&w["end_us"]).unwrap_or(Value::Null),
            "cid {cid}"
        );
        // The timestamp columns are set exactly when their nanosecond twins are.
        assert_eq!(at("start_ts").is_null(), at("start_ts_ns").is_null());
        assert_eq!(at("end_ts").is_null(), at("end_ts_ns").is_null());
    }
    // The queue ID is known for the CM-started queue only.
    assert_eq!(rows[0]["qid"], 0);
    assert!(!rows[3].contains_key("qid"));
}

/// `analyze --html`: per queue a latency histogram and a latency-over-time graph, whose
/// marks carry the hand-typed latencies; a capture without NVMe-oF has no such section.
#[test]
fn the_html_report_draws_each_queue_latencies() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let page = |capture: &str| {
        let html = scratch.path().join("report.html");
        let out = rdmadump(&[
            "analyze",
            "--html",
            html.to_str().unwrap(),
            fixture(capture).to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(&html).unwrap()
    };
    let html = page("nvme/nvme_rdma.pcap");
    assert!(html.contains(r#"<section id="nvme">"#));
    let attr = |tag: &str, name: &str| -> Option<u64> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    let marks = |kind: &str| -> Vec<String> {
        html.split('<')
            .filter(|t| t.contains(&format!("data-mark=\"{kind}\"")))
            .map(str::to_string)
            .collect()
    };
    let truth = expected();
    for want in truth["analysis"]["queues"].as_array().unwrap() {
        let queue = want["queue"].as_u64().unwrap();
        let of_queue = |kind: &str| -> Vec<String> {
            marks(kind)
                .into_iter()
                .filter(|t| attr(t, "data-queue") == Some(queue))
                .collect()
        };
        let mut latencies: Vec<u64> = want["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        latencies.sort_unstable();
        // The time graph: one mark per answered command, at its latency.
        let mut drawn: Vec<u64> = of_queue("nvme_latency")
            .iter()
            .map(|t| attr(t, "data-latency-ns").unwrap())
            .collect();
        drawn.sort_unstable();
        assert_eq!(drawn, latencies, "queue {queue}");
        // The histogram: every latency in the bin that holds it.
        let bins: Vec<(u64, u64, u64)> = of_queue("nvme_bin")
            .iter()
            .map(|t| {
                let get = |name| attr(t, name).unwrap();
                (get("data-lo-ns"), get("data-hi-ns"), get("data-count"))
            })
            .collect();
        for (lo, hi, count) in &bins {
            let inside = latencies.iter().filter(|l| (*lo..*hi).contains(l)).count();
            assert_eq!(inside as u64, *count, "queue {queue} bin {lo}..{hi}");
        }
        let total: u64 = bins.iter().map(|b| b.2).sum();
        assert_eq!(total, latencies.len() as u64, "queue {queue}");
    }
    assert!(html.contains("chart-nvme-histogram") && html.contains("chart-nvme-latency"));
    assert!(!page("roce_v2_opcodes.pcap").contains(r#"id="nvme""#));
}
