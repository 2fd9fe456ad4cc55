//! What the command line cannot sensibly ask is refused up front (exit 2), what it asks
//! beyond the machine is brought down to it, and what a report leaves out says where the
//! rest is.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::harness::{fixture, rdmadump, stderr, stdout};

const CAPTURE: &str = "fixtures/roce_v2_crc_cases.pcap";

fn refused(args: &[&str], says: &str) {
    let out = rdmadump(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert!(out.stdout.is_empty(), "{args:?} printed a result");
    assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
}

#[test]
fn settings_that_leave_nothing_to_do_are_refused() {
    refused(&["analyze", "--max-flows", "0", CAPTURE], "at least 1 flow");
    refused(&["analyze", "--interval", "0ns", CAPTURE], "at least 1ns");
    refused(&["analyze", "--interval", "0s", CAPTURE], "at least 1ns");
    for command in ["read", "analyze"] {
        refused(
            &[
                command,
                "--since",
                "1714564800",
                "--until",
                "1714564700",
                CAPTURE,
            ],
            "is after --until",
        );
        refused(
            &[command, "--since", "+5ms", "--until", "+2ms", CAPTURE],
            "is after --until",
        );
    }
    // Counted from the first packet against a date: compared once the capture is read.
    let out = rdmadump(&["read", "--since", "+5ms", "--until", "1", CAPTURE]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Still allowed: the smallest table, an empty window that touches.
    let out = rdmadump(&["analyze", "--max-flows", "1", "--interval", "1ns", CAPTURE]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = rdmadump(&["read", "--since", "+2ms", "--until", "+2ms", CAPTURE]);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        stderr(&out)
    );
}

#[test]
fn threads_beyond_the_cores_are_brought_down_with_a_note() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let plain = rdmadump(&["read", "--threads", "1", CAPTURE]);
    let out = rdmadump(&["read", "--threads", "100000", CAPTURE]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
    let note = format!("--threads 100000 is more than the {cores} cores; using ");
    assert!(stderr(&out).contains(&note), "{}", stderr(&out));
    // As many as the cores is what was asked for, silently.
    let asked = cores.to_string();
    let out = rdmadump(&["read", "--threads", &asked, CAPTURE]);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[cfg(target_os = "linux")]
#[test]
fn completions_onto_a_full_disk_fail_with_a_message() {
    let full = std::fs::File::create("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("writing the completion script"),
        "{}",
        stderr(&out)
    );
}

/// `info --json | head -c 10`: the reader went away, which is no error of rdmadump's.
#[test]
fn info_json_into_a_closed_pipe_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    // Many files: more JSON than a pipe holds, so the write meets the closed end.
    let mut args = vec!["info".to_string(), "--json".to_string()];
    for i in 0..200 {
        let path = dir.path().join(format!("{i}.pcap"));
        std::fs::copy(fixture("roce_v2_crc_cases.pcap"), &path).unwrap();
        args.push(path.to_string_lossy().into_owned());
    }
    for _ in 0..3 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Closing our end at once: rdmadump's first write meets a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}: {}", out.status, stderr(&out));
        assert!(out.stderr.is_empty(), "{}", stderr(&out));
    }
}

/// The text shows 25 anomalies and the JSON 10,000: past that, both say so, and where
/// every one can be had.
#[test]
fn anomalies_past_the_json_limit_say_where_the_rest_are() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read(fixture("roce_v2_crc_cases.pcap")).unwrap();
    let (header, records) = source.split_at(24);
    let path = dir.path().join("many_bad_crcs.pcap");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    file.write_all(header).unwrap();
    // Two bad ICRCs a copy.
    for _ in 0..5_100 {
        file.write_all(records).unwrap();
    }
    drop(file);
    let path = path.to_string_lossy();
    let json: serde_json::Value =
        serde_json::from_slice(&rdmadump(&["analyze", "--json", &path]).stdout).unwrap();
    assert_eq!(json["anomaly_counts"]["icrc_bad"], 10_200);
    assert_eq!(json["anomalies_limit"], 10_000);
    assert_eq!(json["anomalies"].as_array().unwrap().len(), 10_000);
    // The copies repeat their PSNs too, so retransmissions count beside the CRC failures.
    let total: u64 = json["anomaly_counts"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(total >= 10_200, "{total}");
    assert_eq!(json["anomalies_omitted"], total - 10_000);
    let text = stdout(&rdmadump(&["analyze", &path]));
    assert!(
        text.contains(&format!(
            "... {} more (--json lists the first 10000; `rdmadump export` writes every one \
             to its events table)",
            total - 25
        )),
        "{text}"
    );
    // Below the limit the JSON lists them all, and the text says only that.
    let json: serde_json::Value =
        serde_json::from_slice(&rdmadump(&["analyze", "--json", CAPTURE]).stdout).unwrap();
    assert_eq!(json["anomalies_limit"], 10_000);
    assert_eq!(json["anomalies_omitted"], 0);
}
