//! `--since` and `--until`, checked against frame numbers worked out by hand from the
//! fixtures' times: `roce_v2_crc_cases.pcap` frame n is at 2023-11-14 22:15:00 UTC
//! (epoch 1700000100) plus n-1 ms, and `roce_v1.pcap` frame n at 22:21:40 (1700000500)
//! plus n-1 ms (fixtures/gen/make_fixtures.py spaces each file's frames 1 ms apart).

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::harness::{rdmadump, root, stderr, stdout};

const CRC_CASES: &str = "fixtures/roce_v2_crc_cases.pcap";
const ROCE_V1: &str = "fixtures/roce_v1.pcap";

/// `(file, frame)` of every packet `read --json ARGS` shows.
fn frames(args: &[&str]) -> Vec<(String, u64)> {
    let mut all = vec!["read", "--json"];
    all.extend_from_slice(args);
    let out = rdmadump(&all);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let file = v["file"].as_str().unwrap_or_default();
            let name = file.rsplit('/').next().unwrap_or_default().to_string();
            (name, v["frame"].as_u64().unwrap())
        })
        .collect()
}

fn numbers(args: &[&str]) -> Vec<u64> {
    frames(args).into_iter().map(|(_, n)| n).collect()
}

#[test]
fn relative_bounds_count_from_the_first_packet_and_until_is_exclusive() {
    // +2 ms, +3 ms and +4 ms: frames 3, 4, 5; frame 6 is at +5 ms exactly.
    let args = ["--since", "+2ms", "--until", "+5ms", CRC_CASES];
    assert_eq!(numbers(&args), [3, 4, 5]);
    for threads in ["1", "2"] {
        let mut with = vec!["--threads", threads];
        with.extend_from_slice(&args);
        assert_eq!(numbers(&with), [3, 4, 5], "--threads {threads}");
    }
    assert_eq!(numbers(&["--since", "+0.0065", CRC_CASES]), [8]);
    assert_eq!(numbers(&["--until", "+1000us", CRC_CASES]), [1]);
    assert_eq!(
        numbers(&["--since", "+7000001ns", CRC_CASES]),
        [] as [u64; 0]
    );
}

#[test]
fn absolute_bounds_in_every_form() {
    for since in [
        "2023-11-14 22:15:00.006",
        "2023-11-14T22:15:00.006Z",
        "2023-11-14T23:15:00.006+01:00",
        "1700000100.006",
    ] {
        assert_eq!(numbers(&["--since", since, CRC_CASES]), [7, 8], "{since}");
    }
    assert_eq!(numbers(&["--until", "1700000100.002", CRC_CASES]), [1, 2]);
    // The window and the filter both apply: frames 2, 5, 6 and 8 have a bad or unverifiable
    // ICRC (fixtures/expected/roce_v2_crc_cases.pcap.json); 2 is before +3 ms.
    assert_eq!(
        numbers(&[
            "--since",
            "+3ms",
            "-Y",
            "icrc.status == \"bad\" || icrc.status == \"unverifiable\"",
            CRC_CASES
        ]),
        [5, 6, 8]
    );
    // -c counts what the window lets through.
    assert_eq!(numbers(&["--since", "+1ms", "-c", "2", CRC_CASES]), [2, 3]);
}

#[test]
fn merged_inputs_count_from_the_earliest_first_packet() {
    // The anchor is roce_v2_crc_cases' first frame (1700000100); roce_v1 starts 400 s later.
    assert_eq!(
        frames(&["--since", "+400.002s", CRC_CASES, ROCE_V1]),
        [
            ("roce_v1.pcap".to_string(), 3),
            ("roce_v1.pcap".to_string(), 4),
            ("roce_v1.pcap".to_string(), 5)
        ]
    );
    assert_eq!(
        frames(&["--until", "+0.001s", ROCE_V1, CRC_CASES]),
        [("roce_v2_crc_cases.pcap".to_string(), 1)]
    );
}

#[test]
fn a_stream_is_anchored_on_its_first_packet() {
    let bytes = std::fs::read(root().join(CRC_CASES)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(["read", "--json", "--since", "+2ms", "--until", "+5ms", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    let got: Vec<u64> = stdout(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["frame"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(got, [3, 4, 5]);
}

#[test]
fn analyze_sees_only_the_window() {
    let out = rdmadump(&["analyze", "--json", "--since", "+6ms", CRC_CASES]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["capture"]["packets"], 8, "every record is read");
    assert_eq!(
        report["capture"]["analyzed"], 2,
        "frames 7 and 8 are analysed"
    );
}

#[test]
fn write_keeps_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("window.pcap");
    let run = rdmadump(&[
        "read",
        "--since",
        "2023-11-14 22:15:00.001",
        "--until",
        "+3ms",
        "-w",
        out.to_str().unwrap(),
        CRC_CASES,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    if !crate::harness::wireshark_tools() {
        return;
    }
    let tshark = Command::new("tshark")
        .args([
            "-r",
            out.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "frame.time_epoch",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&tshark.stdout),
        "1700000100.001000000\n1700000100.002000000\n"
    );
}

#[test]
fn a_time_that_is_not_one_is_a_usage_error() {
    for bad in ["yesterday", "+5 minutes", "2023-02-30 00:00:00", "+1.5ns"] {
        let out = rdmadump(&["read", "--since", bad, CRC_CASES]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&out).contains("is not a time"),
            "{bad}: {}",
            stderr(&out)
        );
    }
}
