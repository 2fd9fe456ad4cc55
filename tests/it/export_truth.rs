//! `export` tells the truth about what it wrote (issue 31, section 1, second half): every
//! capture has a `captures` row, failed ones included; a capture cut short or damaged has
//! an `events` row where it broke; nothing the budget dropped goes unsaid; `--replace`
//! leaves nothing of the capture it replaces; names that sanitise alike stay apart; and a
//! full disk or a name taken is reported as such, with nothing half written left behind.
//!
//! Each test says how it failed on the code before it: checked by running this test binary
//! against the release build of 0e93800 put in place of target/debug/rdmadump.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::export::{export, files_under, rows_of};
use super::harness::{fixture, rdmadump, read_json, stderr};

type Row = BTreeMap<String, Value>;

fn rows(out: &Path, dataset: &str) -> Vec<Row> {
    rows_of(&files_under(&out.join(dataset)))
}

fn of_capture<'r>(rows: &'r [Row], capture: &str) -> Vec<&'r Row> {
    rows.iter().filter(|r| r["capture"] == capture).collect()
}

/// The records of a little-endian pcap as (file offset, bytes with their header), read
/// here rather than by the code under test; and where a record stopped fitting, if one did.
fn pcap_records(bytes: &[u8]) -> (Vec<(u64, Vec<u8>)>, Option<u64>) {
    let mut records = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        if at + 16 > bytes.len() {
            return (records, Some(at as u64));
        }
        let caplen = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        if at + 16 + caplen > bytes.len() {
            return (records, Some(at as u64));
        }
        records.push((at as u64, bytes[at..at + 16 + caplen].to_vec()));
        at += 16 + caplen;
    }
    (records, None)
}

/// A pcap of `count` records, copies of `source`'s records one microsecond apart.
fn many_records(source: &Path, count: usize, target: &Path) {
    let bytes = fs::read(source).unwrap();
    let (records, _) = pcap_records(&bytes);
    let mut out = bytes[..24].to_vec();
    for i in 0..count {
        let mut record = records[i % records.len()].1.clone();
        let seconds = 1_700_000_000 + (i / 1_000_000) as u32;
        record[0..4].copy_from_slice(&seconds.to_le_bytes());
        record[4..8].copy_from_slice(&((i % 1_000_000) as u32).to_le_bytes());
        out.extend_from_slice(&record);
    }
    fs::write(target, out).unwrap();
}

fn int(row: &Row, column: &str) -> Option<i64> {
    row.get(column).and_then(Value::as_i64)
}

/// Before: there was no `captures` table (0 rows where 4 are expected); the unreadable
/// capture left no trace, the one cut short none of where it broke (no `truncated` event),
/// and the one ending in garbage no `malformed` event at the file offset.
#[test]
fn every_capture_has_a_captures_row_and_a_broken_one_an_event_where_it_broke() {
    let scratch = tempfile::tempdir().unwrap();
    let complete = fixture("roce_v1.pcap");
    let cut = fixture("cut_short.pcap");
    let unreadable = scratch.path().join("notes.pcap");
    fs::write(&unreadable, b"this is not a capture file at all").unwrap();
    // A whole capture, then a record header that claims 4 GB.
    let garbage = scratch.path().join("garbage.pcap");
    let mut bytes = fs::read(&complete).unwrap();
    let garbage_at = bytes.len() as u64;
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    fs::write(&garbage, &bytes).unwrap();
    let out = scratch.path().join("out");
    let result = export(&out, &[], &[&complete, &cut, &unreadable, &garbage]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));

    let captures = rows(&out, "captures");
    assert_eq!(captures.len(), 4, "{captures:?}");
    let events = rows(&out, "events");

    let frames = read_json(&complete, &[]);
    let row = of_capture(&captures, "roce_v1.pcap")[0];
    assert_eq!(row["status"], "complete");
    assert_eq!(row["complete"], true);
    assert_eq!(int(row, "packets"), Some(frames.len() as i64));
    assert_eq!(
        int(row, "size_bytes"),
        Some(fs::metadata(&complete).unwrap().len() as i64)
    );
    assert_eq!(row["first_ts_ns"], frames[0]["ts_ns"]);
    assert_eq!(row["last_ts_ns"], frames[frames.len() - 1]["ts_ns"]);
    assert!(!row.contains_key("broke_at") && !row.contains_key("error"));

    let (records, broke_at) = pcap_records(&fs::read(&cut).unwrap());
    let broke_at = broke_at.expect("the fixture is cut short");
    let row = of_capture(&captures, "cut_short.pcap")[0];
    assert_eq!(row["status"], "truncated");
    assert_eq!(row["complete"], false);
    assert_eq!(int(row, "packets"), Some(records.len() as i64));
    assert_eq!(int(row, "broke_at"), Some(broke_at as i64));
    let cut_events = of_capture(&events, "cut_short.pcap");
    assert_eq!(cut_events.len(), 1, "{cut_events:?}");
    assert_eq!(cut_events[0]["kind"], "truncated");
    assert_eq!(cut_events[0]["layer"], "capture");
    assert_eq!(int(cut_events[0], "offset"), Some(broke_at as i64));
    assert_eq!(int(cut_events[0], "frame"), Some(records.len() as i64 + 1));

    let row = of_capture(&captures, "garbage.pcap")[0];
    assert_eq!(row["status"], "damaged");
    assert_eq!(int(row, "packets"), Some(frames.len() as i64));
    assert_eq!(int(row, "broke_at"), Some(garbage_at as i64));
    assert!(row.contains_key("error"));
    let broken: Vec<_> = of_capture(&events, "garbage.pcap")
        .into_iter()
        .filter(|e| e.get("layer").is_some_and(|l| l == "capture"))
        .collect();
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(broken[0]["kind"], "malformed");
    assert_eq!(int(broken[0], "offset"), Some(garbage_at as i64));

    let row = of_capture(&captures, "notes.pcap")[0];
    assert_eq!(row["status"], "failed");
    assert_eq!(int(row, "packets"), Some(0));
    assert!(row.contains_key("error"), "{row:?}");
    assert!(of_capture(&rows(&out, "packets"), "notes.pcap").is_empty());
    assert!(of_capture(&events, "notes.pcap").is_empty());
}

/// Before: no warning (the stderr assertion failed) and no `captures` table: the
/// connection ends that `--max-flows` evicted vanished from the export with exit 0.
#[test]
fn connections_evicted_by_max_flows_are_counted_and_warned_about() {
    let scratch = tempfile::tempdir().unwrap();
    let capture = fixture("roce_v2_opcodes.pcap");
    let report = rdmadump(&[
        "analyze",
        "--json",
        "--max-flows",
        "2",
        capture.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    let evicted = &report["connection_table"]["evicted_ends"];
    assert!(evicted.as_u64().unwrap() > 0, "the fixture has more ends");
    let out = scratch.path().join("out");
    let result = export(&out, &["--max-flows", "2"], &[&capture]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("evicted by --max-flows"),
        "{}",
        stderr(&result)
    );
    let captures = rows(&out, "captures");
    assert_eq!(&captures[0]["dropped_connection_ends"], evicted);
    assert_eq!(
        captures[0]["dropped_flows"],
        report["flow_table"]["evicted"]
    );

    let all = scratch.path().join("all");
    let result = export(&all, &[], &[&capture]);
    assert!(!stderr(&result).contains("evicted"), "{}", stderr(&result));
    assert_eq!(rows(&all, "captures")[0]["dropped_connection_ends"], 0);
}

/// Before: a capture of another date was not refused without `--replace` (exit 0 where 2
/// is expected), and with it the old capture's events stayed and its packets and
/// connections stayed in the old date's partition: rows were doubled.
#[test]
fn a_replaced_capture_leaves_nothing_of_the_old_one_in_any_table_or_partition() {
    let scratch = tempfile::tempdir().unwrap();
    let old = fixture("scenarios/gbn_wrap.pcap");
    // Every fixture is of 2023-11-14: this one is of the day after.
    let new = scratch.path().join("next_day.pcap");
    let bytes = fs::read(fixture("roce_v1.pcap")).unwrap();
    let (records, _) = pcap_records(&bytes);
    let mut shifted = bytes[..24].to_vec();
    for (_, mut record) in records {
        let seconds = u32::from_le_bytes(record[0..4].try_into().unwrap()) + 86_400;
        record[0..4].copy_from_slice(&seconds.to_le_bytes());
        shifted.extend_from_slice(&record);
    }
    fs::write(&new, shifted).unwrap();
    let out = scratch.path().join("out");
    let name = ["--name", "c.pcap"];
    assert!(export(&out, &name, &[&old]).status.success());
    assert!(
        !rows(&out, "events").is_empty(),
        "the old capture has events"
    );
    let old_partitions = partitions(&out.join("packets"));

    let fresh = scratch.path().join("fresh");
    assert!(export(&fresh, &name, &[&new]).status.success());
    assert_ne!(
        partitions(&fresh.join("packets")),
        old_partitions,
        "the captures are of different dates"
    );

    // Without --replace, the capture is refused whatever its date.
    let again = export(&out, &name, &[&new]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("--replace"), "{}", stderr(&again));

    let replaced = export(&out, &["--name", "c.pcap", "--replace"], &[&new]);
    assert!(replaced.status.success(), "{}", stderr(&replaced));
    assert_eq!(
        rows(&out, "packets").len(),
        read_json(&new, &[]).len(),
        "packets"
    );
    let anomalies = rdmadump(&["analyze", "--json", new.to_str().unwrap()]);
    let anomalies: Value = serde_json::from_slice(&anomalies.stdout).unwrap();
    assert_eq!(
        rows(&out, "events").len(),
        anomalies["anomalies"].as_array().unwrap().len(),
        "events"
    );
    for dataset in ["connections", "captures"] {
        assert_eq!(
            rows(&out, dataset),
            rows(&fresh, dataset),
            "{dataset}: as if exported alone"
        );
    }
    assert_eq!(
        partitions(&out.join("packets")),
        partitions(&fresh.join("packets"))
    );
}

/// The partition directories that hold a file, under the dataset's.
fn partitions(dataset: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = files_under(dataset)
        .iter()
        .filter_map(|f| {
            f.parent()?
                .strip_prefix(dataset)
                .ok()
                .map(Path::to_path_buf)
        })
        .collect();
    found.dedup();
    found
}

/// Before: `a b.pcap` and `a_b.pcap` both became files named `a_b.pcap-00000.parquet`:
/// the second was refused as exported before, and `--replace` deleted the first.
#[test]
fn names_that_sanitise_alike_stay_distinct() {
    let scratch = tempfile::tempdir().unwrap();
    let spaced = scratch.path().join("a b.pcap");
    let underscored = scratch.path().join("a_b.pcap");
    fs::copy(fixture("roce_v1.pcap"), &spaced).unwrap();
    fs::copy(fixture("roce_v1.pcap"), &underscored).unwrap();
    let frames = read_json(&spaced, &[]).len();
    let out = scratch.path().join("out");
    let result = export(&out, &[], &[&spaced, &underscored]);
    assert!(result.status.success(), "{}", stderr(&result));
    let replaced = export(&out, &["--replace"], &[&spaced]);
    assert!(replaced.status.success(), "{}", stderr(&replaced));
    let packets = rows(&out, "packets");
    assert_eq!(of_capture(&packets, "a b.pcap").len(), frames);
    assert_eq!(of_capture(&packets, "a_b.pcap").len(), frames);
    assert_eq!(rows(&out, "captures").len(), 2);
}

/// Before: the stale temporary file of a killed run stayed for ever (`!stale.exists()`
/// failed).
#[test]
fn a_killed_runs_temporary_files_are_removed_by_the_next_run() {
    let scratch = tempfile::tempdir().unwrap();
    let capture = fixture("scenarios/gbn_wrap.pcap");
    let partition = scratch.path().join("packets/capture_date=2023-11-14");
    fs::create_dir_all(&partition).unwrap();
    // No process has this id: Linux's ids stop at 2^22.
    let stale = partition.join(".gbn_wrap.pcap-00000.parquet.rdmadump-999999999.tmp");
    fs::write(&stale, b"half a file").unwrap();
    // Another capture's temporary file is not this run's to remove.
    let other = partition.join(".other.pcap-00000.parquet.rdmadump-999999999.tmp");
    fs::write(&other, b"half a file").unwrap();
    let result = export(scratch.path(), &[], &[&capture]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(!stale.exists());
    assert!(other.exists());
}

/// Before: a capture whose name was taken failed in the packets writer thread, and the
/// user read "exporting big.pcap: the packets writer stopped" instead of the name and
/// `--replace`.
#[test]
fn a_name_taken_is_the_error_reported() {
    let scratch = tempfile::tempdir().unwrap();
    let capture = scratch.path().join("big.pcap");
    many_records(&fixture("roce_v1.pcap"), 60_000, &capture);
    let out = scratch.path().join("out");
    let args = ["--threads", "2"];
    assert!(export(&out, &args, &[&capture]).status.success());
    let again = export(&out, &args, &[&capture]);
    assert_eq!(again.status.code(), Some(2));
    let message = stderr(&again);
    assert!(
        message.contains("exists") && message.contains("--replace"),
        "{message}"
    );
    assert!(!message.contains("writer stopped"), "{message}");
}

/// A full disk, on a 64 KiB tmpfs, where the first 64 KiB file does not fit (this test needs root to mount one, and says so when it
/// cannot; mounting worked where it was written). Before: the user read "exporting
/// big.pcap: the packets writer stopped", not ENOSPC.
#[test]
fn a_full_disk_is_the_error_reported_and_leaves_nothing() {
    let scratch = tempfile::tempdir().unwrap();
    let capture = scratch.path().join("big.pcap");
    many_records(&fixture("roce_v1.pcap"), 60_000, &capture);
    let disk = scratch.path().join("disk");
    fs::create_dir_all(&disk).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&disk)
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs (not root?)");
        return;
    }
    struct Unmount<'p>(&'p Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).output();
        }
    }
    let _unmount = Unmount(&disk);
    let result = export(
        &disk,
        &["--threads", "2", "--max-file-size", "64K"],
        &[&capture],
    );
    assert_eq!(result.status.code(), Some(2));
    let message = stderr(&result);
    assert!(message.contains("No space left on device"), "{message}");
    assert!(!message.contains("writer stopped"), "{message}");
    let left: Vec<_> = files_under(&disk);
    assert!(left.is_empty(), "nothing half written stays: {left:?}");
}

/// Before: a `.gz` or `.zst` cut short failed as damaged ("incomplete deflate stream"),
/// exit 2 (`info`, and `analyze` with `"truncated": false`).
#[test]
fn a_compressed_capture_cut_short_is_read_as_one_cut_short() {
    use std::io::Read;
    let gz = fixture("compressed_cut/gzip_roce_v1.pcap");
    // What the cut stream decompresses to, by the gzip decoder alone, up to its error.
    let mut plain = Vec::new();
    let mut decoder = flate2::read::GzDecoder::new(fs::File::open(&gz).unwrap());
    let mut chunk = [0u8; 64];
    while let Ok(n @ 1..) = decoder.read(&mut chunk) {
        plain.extend_from_slice(&chunk[..n]);
    }
    let (records, cut) = pcap_records(&plain);
    assert!(cut.is_some(), "the gzip fixture cuts a record");
    let zst = fixture("compressed_cut/zstd_big_endian.pcapng");
    let zst_records = read_json(&fixture("big_endian.pcapng"), &[]).len();
    for (capture, packets) in [(gz, records.len()), (zst, zst_records)] {
        let path = capture.to_str().unwrap();
        let info = rdmadump(&["info", "--json", path]);
        assert_eq!(info.status.code(), Some(0), "{path}: {}", stderr(&info));
        let info: Value = serde_json::from_slice(&info.stdout).unwrap();
        assert_eq!(info["files"][0]["cut_short"], true, "{path}");
        let warning = &info["files"][0]["warnings"][0];
        assert!(warning.as_str().unwrap().contains("cut short"), "{warning}");
        assert_eq!(info["files"][0]["packets"], packets, "{path}");
        let analyze = rdmadump(&["analyze", "--json", path]);
        assert_eq!(
            analyze.status.code(),
            Some(0),
            "{path}: {}",
            stderr(&analyze)
        );
        assert!(
            stderr(&analyze).contains("cut short"),
            "{}",
            stderr(&analyze)
        );
        let report: Value = serde_json::from_slice(&analyze.stdout).unwrap();
        assert_eq!(report["capture"]["truncated"], true, "{path}");
        assert_eq!(report["capture"]["packets"], packets, "{path}");
    }
}

/// The `captures` row says how much the capture itself missed, as the capture-truth
/// generator typed it in (fixtures/gen/make_capture_truth.py): 180 of 600 sequenced packets
/// acknowledged but not captured, and the skipped PSNs nothing confirms in another.
#[test]
fn the_captures_row_gives_what_the_capture_missed() {
    let all: Value =
        serde_json::from_str(&fs::read_to_string(fixture("capture_truth/expected.json")).unwrap())
            .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    for name in ["missed_30pct.pcap", "unconfirmed_tail.pcap", "roce_v1.pcap"] {
        let path = if name == "roce_v1.pcap" {
            fixture(name)
        } else {
            fixture(&format!("capture_truth/{name}"))
        };
        let out = scratch.path().join(name);
        let result = export(&out, &[], &[&path]);
        assert!(result.status.success(), "{}", stderr(&result));
        let row = &rows(&out, "captures")[0];
        // A capture with no truth entry missed nothing: it is whole by construction.
        let zero = serde_json::json!({"missed": 0, "expected": null, "unconfirmed": 0});
        let truth = all.get(name).map_or(&zero, |t| &t["capture_loss"]);
        assert_eq!(row["capture_missed"], truth["missed"], "{name}");
        assert_eq!(row["capture_unconfirmed"], truth["unconfirmed"], "{name}");
        if !truth["expected"].is_null() {
            assert_eq!(row["capture_expected"], truth["expected"], "{name}");
        }
    }
}
