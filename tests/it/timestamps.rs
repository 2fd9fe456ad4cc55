//! Timestamps against tshark 4.0.17: `read --json`'s `ts_ns` and every integer `*_ns`
//! time of `analyze --json` are tshark's `frame.time_epoch` of the frame they name, to the
//! nanosecond; `--time ud` and the analyze summary's dates are tshark's `-t ud` column.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harness::{fixture, rdmadump, root, stderr, stdout};

/// Captures of every timestamp resolution rdmadump reads: pcap in microseconds and
/// nanoseconds, pcapng with `if_tsresol` 9, the default 6 and 2^-3, and real captures.
fn captures() -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = [
        "nanosecond_le.pcap",
        "nanosecond_be.pcap",
        "microsecond_be.pcap",
        "big_endian.pcapng",
        "roce_v2_opcodes.pcap",
        "tunnels.pcap",
    ]
    .iter()
    .map(|name| fixture(name))
    .collect();
    all.extend(crate::harness::real_capture("infiniband-erf.pcap"));
    all.extend(crate::harness::real_capture("rdma-cm-rxe.pcap"));
    all
}

fn tshark(args: &[&str]) -> String {
    let config = tempfile::tempdir().expect("temp dir");
    let out = Command::new("tshark")
        .env("WIRESHARK_CONFIG_DIR", config.path())
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "tshark {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// `S.NNNNNNNNN` (tshark's `frame.time_epoch`) as integer nanoseconds, from the text.
fn epoch_ns(text: &str) -> u64 {
    let (secs, frac) = text.split_once('.').expect("a fraction");
    assert_eq!(frac.len(), 9, "{text}");
    secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap()
}

/// tshark's time of every frame, by frame number.
fn tshark_times(path: &Path) -> HashMap<u64, u64> {
    let path = path.to_str().unwrap();
    let text = tshark(&[
        "-r",
        path,
        "-T",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "frame.time_epoch",
    ]);
    text.lines()
        .map(|line| {
            let (frame, ts) = line.split_once('\t').expect("two fields");
            (frame.parse().unwrap(), epoch_ns(ts))
        })
        .collect()
}

#[test]
fn read_json_ts_ns_is_tsharks_epoch_time() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    for path in captures() {
        let times = tshark_times(&path);
        let out = rdmadump(&["read", "--json", path.to_str().unwrap()]);
        let text = stdout(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), times.len(), "{}", path.display());
        for line in lines {
            let frame: Value = serde_json::from_str(line).expect("JSON");
            let number = frame["frame"].as_u64().unwrap();
            assert_eq!(
                frame["ts_ns"].as_u64(),
                Some(times[&number]),
                "{} frame {number}",
                path.display()
            );
            assert_twins(line);
        }
    }
}

/// Every seconds time `"KEY":S.NNNNNNNNN` is followed by its twin `"KEY_ns":N`, the same
/// time to the nanosecond. Read from the text: a double cannot hold either.
fn assert_twins(text: &str) -> usize {
    let mut found = 0;
    let mut rest = text;
    while let Some(at) = rest.find("\":") {
        let key_start = rest[..at].rfind('"').map_or(0, |q| q + 1);
        let key = &rest[key_start..at];
        let value_and_after = &rest[at + 2..];
        let value_len = value_and_after
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(value_and_after.len());
        let value = &value_and_after[..value_len];
        let seconds_time =
            (key == "ts" || key.ends_with("_ts") || key == "start") && value.contains('.');
        if seconds_time {
            let twin = format!(",\"{key}_ns\":{}", epoch_ns(value));
            assert!(
                value_and_after[value_len..].starts_with(&twin),
                "{key}:{value} is not followed by {twin}"
            );
            found += 1;
        }
        rest = &value_and_after[value_len..];
    }
    found
}

/// Every frame an analyze report names, with the time it gives it in nanoseconds:
/// `frame`/`ts_ns`, `first_frame`/`first_ts_ns`, `nak_frame`/`nak_ts_ns`...
fn named_times(value: &Value, out: &mut Vec<(String, u64, u64)>) {
    match value {
        Value::Object(map) => {
            for (key, ts) in map {
                let Some(prefix) = key.strip_suffix("ts_ns") else {
                    continue;
                };
                let frame_key = format!("{prefix}frame");
                if let (Some(frame), Some(ts)) = (map.get(&frame_key), ts.as_u64()) {
                    out.push((key.clone(), frame.as_u64().unwrap(), ts));
                }
            }
            map.values().for_each(|v| named_times(v, out));
        }
        Value::Array(list) => list.iter().for_each(|v| named_times(v, out)),
        _ => {}
    }
}

#[test]
fn analyze_json_times_are_tsharks_epoch_times_in_nanoseconds() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/scenarios"))
        .expect("scenarios")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pcap"))
        .collect();
    scenarios.sort();
    scenarios.extend(crate::harness::real_capture("rdma-cm-rxe.pcap"));
    let (mut named, mut twins) = (0, 0);
    for path in scenarios {
        let times = tshark_times(&path);
        let out = rdmadump(&["analyze", "--json", path.to_str().unwrap()]);
        let text = stdout(&out);
        twins += assert_twins(&text);
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        let capture = &doc["capture"];
        let (first, last) = (times.values().min(), times.values().max());
        assert_eq!(capture["first_ts_ns"].as_u64().as_ref(), first, "{path:?}");
        assert_eq!(capture["last_ts_ns"].as_u64().as_ref(), last, "{path:?}");
        let mut found = Vec::new();
        named_times(&doc, &mut found);
        for (key, frame, ts) in found {
            assert_eq!(
                Some(&ts),
                times.get(&frame),
                "{path:?} {key} of frame {frame}"
            );
            named += 1;
        }
    }
    assert!(
        named > 100 && twins > 100,
        "{named} frame times, {twins} twins"
    );
}

/// rdmadump prints nine decimals always; tshark as many as the capture's resolution gives
/// (6 for microseconds, none for 2^-3 s): rdmadump's time is cut to tshark's length, and
/// what is cut must agree with the resolution (zeros for microseconds).
#[test]
fn time_ud_is_tsharks_utc_date_and_time() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    for path in captures().into_iter().chain([fixture("multi_if.pcapng")]) {
        let file = path.to_str().unwrap();
        let theirs = tshark(&[
            "-r",
            file,
            "-t",
            "ud",
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "_ws.col.Time",
        ]);
        let theirs: HashMap<u64, String> = theirs
            .lines()
            .map(|l| {
                let (frame, time) = l.split_once('\t').unwrap();
                (frame.parse().unwrap(), time.to_string())
            })
            .collect();
        let ours = stdout(&rdmadump(&["read", "--time", "ud", file]));
        let mut compared = 0;
        for line in ours.lines() {
            let mut words = line.split_whitespace();
            let frame: u64 = words.next().unwrap().parse().unwrap();
            let date = words.next().unwrap();
            // A pcapng Simple Packet Block has no time: `-`.
            if date == "-" {
                continue;
            }
            let time = format!("{date} {}", words.next().unwrap());
            assert_eq!(time.len(), "2023-11-14 22:13:20.123456789".len(), "{line}");
            // multi_if.pcapng: tshark counts a Custom Block as frame 7, so its later
            // frames are one higher (docs/tshark-differences.md).
            let custom_block_before = path.ends_with("multi_if.pcapng") && frame >= 7;
            let want = &theirs[&(frame + u64::from(custom_block_before))];
            assert_eq!(&time[..want.len()], want, "{file} frame {frame}");
            if want.len() == time.len() - 3 {
                assert!(time.ends_with("000"), "{file} frame {frame}: {time}");
            }
            compared += 1;
        }
        assert!(compared > 0, "{file}");
    }
}

#[test]
fn analyze_summary_gives_first_and_last_packet_as_utc_dates() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let path = fixture("scenarios/gbn_wrap.pcap");
    let file = path.to_str().unwrap();
    let theirs = tshark(&["-r", file, "-t", "ud", "-T", "fields", "-e", "_ws.col.Time"]);
    let (first, last) = (
        theirs.lines().next().unwrap(),
        theirs.lines().last().unwrap(),
    );
    let text = stdout(&rdmadump(&["analyze", "--color", "never", file]));
    // A microsecond capture: tshark's six decimals, and rdmadump's three more zeros.
    assert!(
        text.contains(&format!("\n  first packet {first}000 UTC\n")),
        "{first}: {text}"
    );
    assert!(
        text.contains(&format!("\n  last packet  {last}000 UTC\n")),
        "{last}: {text}"
    );
}
