//! `--memory` and the upper-layer command tables: a capture of many RPC-over-RDMA calls
//! whose rows do not fit a small budget. The counts stay exact, the percentiles come from
//! the sketch within its documented error, the slowest calls are exact, and export still
//! writes a row per call. The capture is built here, frame by frame (RoCE v2 headers as
//! `memory.rs` builds them, RPC-over-RDMA and RPC as RFC 8166 and RFC 5531 lay them out),
//! so every latency is known by construction.

use serde_json::Value;

use crate::harness::{rc_send_only, rdmadump_ok, stdout};

/// Calls answered one at a time, then calls never answered (one direction only).
const ANSWERED: u64 = 10_000;
const UNANSWERED: u64 = 2_000;
/// The server's QP, which `--decode` names; the client's, which the first reply teaches.
const SERVER_QP: u32 = 0x100;
const CLIENT_QP: u32 = 0x200;
const SERVER: [u8; 4] = [10, 0, 0, 2];
const CLIENT: [u8; 4] = [10, 0, 0, 1];
/// Small enough that neither the rows nor the open calls fit.
const SMALL: &str = "1M";
/// The sketch's bound for samples spanning less than a factor of 16
/// (`src/analyze/sketch.rs`): these span 10 µs to 110 µs.
const SKETCH_ERROR: f64 = 0.032;

/// Call `i`'s latency: distinct for every call, from 10 µs to about 110 µs.
fn latency_ns(i: u64) -> u64 {
    10_000 + (i * 7919 % 10_007) * 10
}

fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// An RDMA_MSG (XID, version 1, credits, type 0, no chunks) carrying an NFSv3 NULL call:
/// XID, CALL, RPC version 2, program 100003, version 3, procedure 0, AUTH_NONE twice.
fn call(xid: u32) -> Vec<u8> {
    words(&[xid, 1, 32, 0, 0, 0, 0, xid, 0, 2, 100_003, 3, 0, 0, 0, 0, 0])
}

/// Its reply: REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS.
fn reply(xid: u32) -> Vec<u8> {
    words(&[xid, 1, 32, 0, 0, 0, 0, xid, 1, 0, 0, 0, 0])
}

/// The calls: (call frame, latency) of each answered one, in order; the capture holds the
/// answered calls, each followed by its reply, then the unanswered ones.
struct Calls {
    answered: Vec<(u64, u64)>,
}

fn capture() -> (tempfile::NamedTempFile, Calls) {
    let mut frames: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut answered = Vec::new();
    let mut t = 1_700_000_000u64 * 1_000_000_000;
    let (mut to_server, mut to_client) = (0u32, 0u32);
    for i in 0..ANSWERED + UNANSWERED {
        let xid = i as u32 + 1;
        frames.push((
            t,
            rc_send_only(CLIENT, SERVER, SERVER_QP, to_server, true, &call(xid)),
        ));
        to_server += 1;
        if i < ANSWERED {
            let latency = latency_ns(i);
            answered.push((frames.len() as u64, latency));
            let reply = rc_send_only(SERVER, CLIENT, CLIENT_QP, to_client, true, &reply(xid));
            frames.push((t + latency, reply));
            to_client += 1;
            t += latency;
        }
        t += 1_000;
    }
    // A pcap of nanosecond timestamps, Ethernet.
    let mut out = Vec::new();
    for word in [0xa1b2_3c4du32, 0x0004_0002, 0, 0, 65535, 1] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (ts, f) in &frames {
        let len = f.len() as u32;
        let (sec, nsec) = ((ts / 1_000_000_000) as u32, (ts % 1_000_000_000) as u32);
        for word in [sec, nsec, len, len] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    let file = tempfile::Builder::new().suffix(".pcap").tempfile().unwrap();
    std::fs::write(file.path(), out).unwrap();
    (file, Calls { answered })
}

const DECODE: &str = "qp=0x100:rpcrdma";

fn analyze(path: &str, memory: Option<&str>) -> Value {
    let mut args = vec!["analyze", "--json", "--decode", DECODE, path];
    if let Some(memory) = memory {
        args.extend(["--memory", memory]);
    }
    serde_json::from_slice(&rdmadump_ok(&args).stdout).unwrap()
}

/// The nearest-rank percentile, as the report defines it.
fn nearest_rank(sorted: &[u64], p: u64) -> u64 {
    let rank = (p * sorted.len() as u64).div_ceil(100).max(1);
    sorted[rank as usize - 1]
}

#[test]
fn a_small_budget_keeps_exact_counts_and_the_sketch_answers_the_percentiles() {
    let (cap, calls) = capture();
    let path = cap.path().to_str().unwrap();
    let mut latencies: Vec<u64> = calls.answered.iter().map(|c| c.1).collect();
    latencies.sort_unstable();
    let (p50, p99) = (nearest_rank(&latencies, 50), nearest_rank(&latencies, 99));
    let max = *latencies.last().unwrap();
    let mut slowest = calls.answered.clone();
    slowest.sort_by_key(|&(frame, latency)| (std::cmp::Reverse(latency), frame));
    slowest.truncate(5);

    // With the default budget every row fits: exact, and no new key.
    let roomy = analyze(path, None);
    let session = &roomy["rpcrdma"][0];
    assert_eq!(session["latency"]["p50_ns"], p50);
    assert_eq!(session["latency"]["p99_ns"], p99);
    assert!(session.get("latency_exact").is_none(), "{session}");
    assert!(session.get("unanswered_evicted").is_none());
    assert_eq!(session["unanswered"], UNANSWERED);

    let report = analyze(path, Some(SMALL));
    let sessions = report["rpcrdma"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert_eq!(session["calls"]["NULL"], ANSWERED + UNANSWERED);
    assert_eq!(session["answered"], ANSWERED);
    let unanswered = session["unanswered"].as_u64().unwrap();
    let evicted = session["unanswered_evicted"].as_u64().unwrap();
    assert!(evicted > 0, "{session}");
    assert_eq!(unanswered + evicted, UNANSWERED);
    assert_eq!(session["latency_exact"], false);
    let kept = session["timed_kept"].as_u64().unwrap();
    assert!(kept > 0 && kept < ANSWERED, "{kept}");
    let within = |got: &Value, want: u64| {
        let got = got.as_u64().unwrap() as f64;
        (got - want as f64).abs() / want as f64 <= SKETCH_ERROR
    };
    assert!(
        within(&session["latency"]["p50_ns"], p50),
        "{session} {p50}"
    );
    assert!(
        within(&session["latency"]["p99_ns"], p99),
        "{session} {p99}"
    );
    assert_eq!(session["latency"]["max_ns"], max);
    let listed: Vec<(u64, u64)> = session["slowest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["frame"].as_u64().unwrap(),
                s["latency_ns"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed, slowest);

    let budget = &report["budget"];
    assert_eq!(budget["command_rows_dropped"], ANSWERED - kept);
    assert_eq!(budget["commands_evicted_open"], evicted);
    let peak = budget["peak_estimate"].as_u64().unwrap();
    assert!(peak > 0 && peak <= 1 << 20, "peak estimate {peak}");

    let text = stdout(&rdmadump_ok(&[
        "analyze", "--decode", DECODE, "--memory", SMALL, path,
    ]));
    let note = format!("{kept} of {ANSWERED} answered calls kept in full");
    assert!(text.contains(&note), "{text}");
    assert!(
        text.contains(&format!("{evicted} calls evicted while open")),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let page = page.to_str().unwrap();
    rdmadump_ok(&[
        "analyze", "--decode", DECODE, "--memory", SMALL, "--html", page, path,
    ]);
    let html = std::fs::read_to_string(page).unwrap();
    let drawn = format!("{kept} of {ANSWERED} answered calls drawn");
    assert!(html.contains(&drawn), "no '{drawn}'");
}

#[cfg(feature = "export")]
#[test]
fn export_with_a_small_budget_still_writes_every_call() {
    use crate::export::{export, files_under, rows_of};
    let (cap, calls) = capture();
    let scratch = tempfile::tempdir().unwrap();
    let out = export(
        scratch.path(),
        &["--partition", "none", "--memory", SMALL, "--decode", DECODE],
        &[cap.path()],
    );
    assert!(out.status.success(), "{}", crate::harness::stderr(&out));
    let rows = rows_of(&files_under(&scratch.path().join("commands")));
    assert_eq!(rows.len() as u64, ANSWERED + UNANSWERED);
    let mut frames: Vec<u64> = rows
        .iter()
        .map(|r| r["command_frame"].as_u64().unwrap())
        .collect();
    frames.sort_unstable();
    frames.dedup();
    assert_eq!(frames.len() as u64, ANSWERED + UNANSWERED, "a call twice");
    // Every answered call with the latency it was given.
    let mut timed: Vec<(u64, u64)> = rows
        .iter()
        .filter(|r| r.get("unanswered") == Some(&Value::from(false)))
        .map(|r| {
            let frame = r["command_frame"].as_u64().unwrap();
            (frame, r["latency_ns"].as_u64().unwrap())
        })
        .collect();
    timed.sort_unstable();
    assert_eq!(timed, calls.answered);
    // The calls never answered: open at the end, or evicted while open (unanswered null).
    let unanswered = rows
        .iter()
        .filter(|r| r.get("unanswered") != Some(&Value::from(false)));
    assert_eq!(unanswered.count() as u64, UNANSWERED);
}
