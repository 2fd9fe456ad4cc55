//! Several files: pieces of one capture are analysed as the whole; the same file twice, too
//! few matches and matches of CNPs alone make no capture points; standard input is a point
//! like a file. Pieces are cut by editcap (Wireshark), not by rdmadump.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::harness::{real_capture, required, root, tool_available};

/// The program, run from the repository's root as the fixture paths assume.
fn rdmadump() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rdmadump"));
    command.current_dir(root());
    command
}

fn editcap() -> bool {
    required(
        tool_available("editcap"),
        "editcap",
        "apt-get install -y tshark",
    )
}

fn analyze_json(files: &[&Path]) -> (Value, String) {
    let out = rdmadump()
        .args(["analyze", "--json"])
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "analyze {files:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `editcap -c per` of `capture` into `dir`: the pieces in order.
fn split(capture: &Path, per: usize, dir: &Path) -> Vec<PathBuf> {
    let status = Command::new("editcap")
        .arg("-c")
        .arg(per.to_string())
        .arg(capture)
        .arg(dir.join("piece.pcap"))
        .status()
        .unwrap();
    assert!(status.success());
    let mut pieces: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pieces.sort();
    pieces
}

/// The report with every frame reference made global (piece i's frame f is frame
/// `i × per + f` of the whole) and the file names dropped: what is left must be the whole's.
fn normalised(mut report: Value, files: &[PathBuf], per: u64) -> Value {
    let index: HashMap<String, u64> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.display().to_string(), i as u64))
        .collect();
    fn walk(v: &mut Value, index: &HashMap<String, u64>, per: u64) {
        match v {
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in &keys {
                    let Some(prefix) = key.strip_suffix("file") else {
                        continue;
                    };
                    let Some(piece) = map[key].as_str().and_then(|f| index.get(f)).copied() else {
                        continue;
                    };
                    let frame_key = format!("{prefix}frame");
                    if let Some(frame) = map.get(&frame_key).and_then(Value::as_u64) {
                        map.insert(frame_key, Value::from(piece * per + frame));
                    }
                    map.remove(key);
                }
                for value in map.values_mut() {
                    walk(value, index, per);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, index, per)),
            _ => {}
        }
    }
    walk(&mut report, &index, per);
    report["capture"]["files"] = Value::Null;
    report
}

fn whole_is_pieces(capture: &Path, pieces: usize) {
    let (whole, _) = analyze_json(&[capture]);
    let frames = whole["capture"]["packets"].as_u64().unwrap();
    let per = frames.div_ceil(pieces as u64);
    let dir = tempdir(&format!("pieces-{pieces}"));
    let files = split(capture, per as usize, &dir);
    assert_eq!(files.len(), pieces);
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (report, stderr) = analyze_json(&refs);
    // Retransmissions across a cut match themselves: a few are said to be what they are.
    for line in stderr.lines().filter(|l| l.contains(" share ")) {
        assert!(line.contains("as pieces of one capture do"), "{line}");
    }
    assert_eq!(report["capture"]["points"], 1);
    let mut whole = whole;
    whole["capture"]["files"] = Value::Null;
    assert_eq!(
        normalised(report, &files, per),
        whole,
        "{} in {pieces} pieces",
        capture.display()
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rdmadump-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_capture_split_in_pieces_is_analysed_as_the_whole() {
    if !editcap() {
        return;
    }
    // Go-back-N after a NAK, capture misses, CNPs (PSN 0, alike in every piece), several QPs.
    for fixture in [
        "fixtures/capture_truth/missed_with_loss.pcap",
        "fixtures/capture_truth/cnp_only_a.pcap",
        "fixtures/scenarios/gbn_wrap.pcap",
        "fixtures/scenarios/ecn_cnp.pcap",
    ] {
        for pieces in [2, 5] {
            whole_is_pieces(Path::new(fixture), pieces);
        }
    }
    if let Some(real) = real_capture("ibdump-connectx-rocev2.pcap") {
        for pieces in [2, 5] {
            whole_is_pieces(&real, pieces);
        }
    }
}

#[test]
fn pieces_with_text_say_one_capture_point() {
    if !editcap() {
        return;
    }
    let dir = tempdir("pieces-text");
    let files = split(Path::new("fixtures/scenarios/gbn_wrap.pcap"), 10, &dir);
    let out = rdmadump().arg("analyze").args(&files).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = format!(
        "  {} files, one capture point (no packet seen twice)",
        files.len()
    );
    assert!(text.contains(&line), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_same_file_twice_is_read_once_with_a_warning() {
    let file = Path::new("fixtures/points/gbn_both_a.pcap");
    let (once, _) = analyze_json(&[file]);
    let (twice, stderr) = analyze_json(&[file, file]);
    assert!(
        stderr.contains("is the same file as") && stderr.contains("read once"),
        "{stderr}"
    );
    assert_eq!(twice, once);
    // A copy under another name is the same capture too.
    let dir = tempdir("copy");
    let copy = dir.join("copy.pcap");
    std::fs::copy(file, &copy).unwrap();
    let (copied, stderr) = analyze_json(&[file, &copy]);
    assert!(stderr.contains("is a copy of"), "{stderr}");
    assert_eq!(copied["anomaly_counts"], once["anomaly_counts"]);
    assert_eq!(copied["capture"]["analyzed"], once["capture"]["analyzed"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn too_few_matches_make_one_point_and_a_warning() {
    // Truth: fixtures/capture_truth/expected.json, "few_matches_a.pcap+few_matches_b.pcap".
    let a = Path::new("fixtures/capture_truth/few_matches_a.pcap");
    let b = Path::new("fixtures/capture_truth/few_matches_b.pcap");
    let (report, stderr) = analyze_json(&[a, b]);
    assert_eq!(report["capture"]["points"], 1);
    assert!(report.get("capture_points").is_none());
    assert!(
        stderr.contains(&format!(
            "{} and {} share 5 data packets, too few",
            a.display(),
            b.display()
        )) && stderr.contains("--offset")
            && stderr.contains("--single-point"),
        "{stderr}"
    );
    // Given by hand, the offset makes b a point of its own.
    let out = rdmadump()
        .args(["analyze", "--json", "--offset"])
        .arg(format!("{}=1ms", b.display()))
        .args([a, b])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let points = &report["capture_points"]["points"];
    assert_eq!(points[1]["offset_method"], "manual");
    assert_eq!(points[1]["offset_ns"], 1_000_000);
}

#[test]
fn cnps_alone_make_no_capture_points() {
    // Truth: fixtures/capture_truth/expected.json, "cnp_only_a.pcap+cnp_only_b.pcap".
    let a = Path::new("fixtures/capture_truth/cnp_only_a.pcap");
    let b = Path::new("fixtures/capture_truth/cnp_only_b.pcap");
    let (report, stderr) = analyze_json(&[a, b]);
    assert!(!stderr.contains("share"), "{stderr}");
    assert_eq!(report["capture"]["points"], 1);
    assert_eq!(report["anomaly_counts"]["psn_gap"], 0);
    assert_eq!(report["anomaly_counts"]["go_back_n"], 0);
    let retransmitted: u64 = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["retransmitted"].as_u64().unwrap())
        .sum();
    assert_eq!(retransmitted, 0);
    assert_eq!(report["counts"]["cnp"], 40);
    assert_eq!(report["capture_loss"]["missed"], 0);
    assert_eq!(report["capture_loss"]["expected"], 200);
}

#[test]
fn each_frame_seen_at_two_points_is_counted_once() {
    // Truth: fixtures/points/expected.json, "gbn_both": 125 frames per file, all 125 seen
    // at both points.
    let a = Path::new("fixtures/points/gbn_both_a.pcap");
    let b = Path::new("fixtures/points/gbn_both_b.pcap");
    let (report, _) = analyze_json(&[a, b]);
    assert_eq!(report["capture"]["points"], 2);
    assert_eq!(report["capture"]["seen_twice"], 125);
    assert_eq!(report["icrc"]["ok"], 125);
    assert_eq!(report["counts"]["roce_v2"], 125);
    let text = rdmadump().args(["analyze"]).args([a, b]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("2 files, 2 capture points"), "{text}");
    assert!(
        text.contains("seen at 2 points or more: 125 frames, counted once"),
        "{text}"
    );
    assert!(text.contains("offset +1000.000 us, two_way"), "{text}");
}

#[test]
fn standard_input_is_a_capture_point_like_a_file() {
    let a = Path::new("fixtures/points/skew1ms_a.pcap");
    let b = Path::new("fixtures/points/skew1ms_b.pcap");
    let (files, _) = analyze_json(&[a, b]);
    let spool = tempdir("spool");
    let mut child = rdmadump()
        .args(["analyze", "--json"])
        .arg(a)
        .arg("-")
        .env("TMPDIR", &spool)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(b).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let piped: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(piped["capture"]["files"][1], "<stdin>");
    assert_eq!(piped["capture"]["points"], 2);
    assert_eq!(piped["anomaly_counts"], files["anomaly_counts"]);
    assert_eq!(
        piped["capture_points"]["points"][1]["offset_ns"],
        files["capture_points"]["points"][1]["offset_ns"]
    );
    // Standard input was kept in a temporary file, and nothing is left behind.
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(spool);
}

#[test]
fn standard_input_twice_is_refused() {
    let out = rdmadump()
        .args(["analyze", "-", "-"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("more than once"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}
