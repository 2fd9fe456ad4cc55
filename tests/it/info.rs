//! `rdmadump info` against capinfos (counts, times, container, link types, snaplen,
//! per-interface facts) and tshark (frames cut by the snaplen), on fixtures and the real
//! captures; `--kinds` against the fixtures' generator truth; `-r FILE` on every
//! subcommand that takes files.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::harness::{rdmadump, real_capture, root, stderr, stdout, wireshark_tools};

/// Captures capinfos reads. Left out: linktype-247 files, which tshark 4.0's wiretap cannot
/// read (docs/tshark-differences.md row 1), and huge_caplen.pcap, which capinfos takes for
/// a Red Hat 6.1 variant of pcap and reads differently.
const CAPTURES: &[&str] = &[
    "fixtures/big_endian.pcapng",
    "fixtures/cut_short.pcap",
    "fixtures/erf_ip.pcap",
    "fixtures/eth_other.pcap",
    "fixtures/gzip_roce_v1.pcap",
    "fixtures/ib_erf.pcap",
    "fixtures/ipoib_link.pcap",
    "fixtures/mad_cm_roce.pcap",
    "fixtures/malformed.pcap",
    "fixtures/microsecond_be.pcap",
    "fixtures/multi_if.pcapng",
    "fixtures/nanosecond_be.pcap",
    "fixtures/nanosecond_le.pcap",
    "fixtures/pfc_pause.pcap",
    "fixtures/raw_ip.pcap",
    "fixtures/raw_ipv4.pcap",
    "fixtures/raw_ipv6.pcap",
    "fixtures/roce_v1.pcap",
    "fixtures/roce_v2_crc_cases.pcap",
    "fixtures/roce_v2_opcodes.pcap",
    "fixtures/sll.pcap",
    "fixtures/sll2.pcap",
    "fixtures/tunnels.pcap",
    "fixtures/zstd_big_endian.pcapng",
];

/// The real captures capinfos reads, besides `CAPTURES`.
const REAL_CAPTURES: &[&str] = &["infiniband-erf.pcap", "ipoib.pcap", "rdma-cm-rxe.pcap"];

/// `CAPTURES`, and the real ones when they are there.
fn captures() -> Vec<String> {
    let mut files: Vec<String> = CAPTURES.iter().map(|p| p.to_string()).collect();
    for name in REAL_CAPTURES {
        files.extend(real_capture(name).map(|p| p.to_string_lossy().into_owned()));
    }
    files
}

/// Wireshark's short encapsulation names (capinfos -E) for the link types involved.
fn wtap_name(linktype: u64) -> &'static str {
    match linktype {
        1 => "ether",
        101 => "rawip",
        113 => "linux-sll",
        197 => "erf",
        228 => "rawip4",
        229 => "rawip6",
        242 => "ip-ib",
        276 => "linux-sll2",
        _ => "?",
    }
}

fn info(path: &str) -> Value {
    let out = rdmadump(&["info", "--json", path]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{path}: {e}"));
    doc["files"][0].clone()
}

/// Epoch nanoseconds as capinfos -S writes them, with `decimals` digits.
fn epoch(ns: u64, decimals: usize) -> String {
    let frac = format!("{:09}", ns % 1_000_000_000);
    format!("{}.{}", ns / 1_000_000_000, &frac[..decimals])
}

#[test]
fn counts_times_container_and_link_type_agree_with_capinfos() {
    if !wireshark_tools() {
        return;
    }
    let mut args = vec![
        "-T", "-r", "-t", "-E", "-l", "-c", "-d", "-S", "-a", "-e", "-u",
    ];
    let captures = captures();
    args.extend(captures.iter().map(String::as_str));
    let out = Command::new("capinfos")
        .args(&args)
        .current_dir(root())
        .output()
        .unwrap();
    let table = stdout(&out);
    let rows: Vec<Vec<&str>> = table.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), captures.len(), "{}", stderr(&out));
    for (path, row) in captures.iter().zip(rows) {
        let [
            name,
            kind,
            encap,
            snaplen,
            _,
            _,
            packets,
            data,
            duration,
            start,
            end,
        ] = row[..]
        else {
            panic!("{path}: {row:?}");
        };
        assert_eq!(name, *path);
        let ours = info(path);
        let interfaces = ours["interfaces"].as_array().unwrap();
        let erf = interfaces[0]["linktype"] == 197;
        assert_eq!(ours["packets"].to_string(), packets, "{path}: packets");
        // capinfos counts an ERF record's packet by the ERF header's wlen; rdmadump reads
        // record headers only, so it counts the record as the pcap header gives it.
        if !erf {
            assert_eq!(ours["wire_bytes"].to_string(), data, "{path}: data size");
        }
        let nanos = kind == "nsecpcap" || erf;
        let container = match (ours["container"].as_str().unwrap(), nanos) {
            ("pcap", true) if !erf => "nsecpcap",
            (c, _) => c,
        };
        assert_eq!(container, kind, "{path}: container");
        let linktypes: Vec<&str> = interfaces
            .iter()
            .map(|i| wtap_name(i["linktype"].as_u64().unwrap()))
            .collect();
        let encaps = if linktypes.iter().all(|l| *l == linktypes[0]) {
            linktypes[0]
        } else {
            "per-packet"
        };
        assert_eq!(encaps, encap, "{path}: encapsulation");
        if container != "pcapng" {
            assert_eq!(
                interfaces[0]["snaplen"].to_string(),
                snaplen,
                "{path}: snaplen"
            );
        }
        if start == "n/a" {
            // capinfos gives no times when a packet has none (multi_if's Simple Packet
            // Block); rdmadump gives the times of the packets that have one.
            assert!(ours["without_timestamp"].as_u64().unwrap() > 0, "{path}");
            continue;
        }
        let decimals = start.split('.').nth(1).map_or(0, str::len);
        let (first, last) = (
            ours["first_ts_ns"].as_u64().unwrap(),
            ours["last_ts_ns"].as_u64().unwrap(),
        );
        if erf {
            // capinfos takes an ERF record's time from the ERF header (to the nanosecond),
            // rdmadump from the pcap record header (to the microsecond) it walks.
            let micros = |t: &str| t[..t.len() - 3].to_string();
            assert_eq!(epoch(first, 6), micros(start), "{path}: first");
            assert_eq!(epoch(last, 6), micros(end), "{path}: last");
            continue;
        }
        assert_eq!(epoch(first, decimals), start, "{path}: first");
        assert_eq!(epoch(last, decimals), end, "{path}: last");
        assert_eq!(epoch(last - first, decimals), duration, "{path}: duration");
    }
}

#[test]
fn each_interface_agrees_with_capinfos() {
    if !wireshark_tools() {
        return;
    }
    for path in [
        "fixtures/multi_if.pcapng",
        "fixtures/big_endian.pcapng",
        "fixtures/nanosecond_le.pcap",
    ] {
        let text = stdout(
            &Command::new("capinfos")
                .args(["-M", path])
                .current_dir(root())
                .output()
                .unwrap(),
        );
        // Per interface: capture length, time precision digits (or the raw if_tsresol
        // byte for a binary resolution), packets.
        let mut theirs: Vec<BTreeMap<&str, String>> = Vec::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with("Interface #") {
                theirs.push(BTreeMap::new());
            }
            let Some(current) = theirs.last_mut() else {
                continue;
            };
            if let Some(v) = line.strip_prefix("Capture length = ") {
                current.insert("snaplen", v.to_string());
            } else if let Some(v) = line.strip_prefix("Number of packets = ") {
                current.insert("packets", v.to_string());
            } else if let Some(v) = line.strip_prefix("Time precision = ") {
                let digits = v.rsplit('(').next().unwrap().trim_end_matches(')');
                current
                    .entry("resolution")
                    .or_insert(format!("10^-{digits}"));
            } else if let Some(v) = line.strip_prefix("Time resolution = 0x") {
                let byte = u8::from_str_radix(v, 16).unwrap();
                if byte & 0x80 != 0 {
                    current.insert("resolution", format!("2^-{}", byte & 0x7f));
                }
            }
        }
        let ours = info(path);
        let ours: Vec<BTreeMap<&str, String>> = ours["interfaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let resolution = match i["ts_resolution"].as_str().unwrap() {
                    "microseconds" => "10^-6".to_string(),
                    "nanoseconds" => "10^-9".to_string(),
                    other => other.trim_end_matches(" s").to_string(),
                };
                BTreeMap::from([
                    ("snaplen", i["snaplen"].to_string()),
                    ("packets", i["packets"].to_string()),
                    ("resolution", resolution),
                ])
            })
            .collect();
        assert_eq!(ours, theirs, "{path}");
    }
}

#[test]
fn frames_cut_by_the_snaplen_are_the_ones_tshark_sees_cut() {
    if !wireshark_tools() {
        return;
    }
    for path in [
        "fixtures/roce_v2_crc_cases.pcap",
        "fixtures/multi_if.pcapng",
        "fixtures/tunnels.pcap",
        "fixtures/roce_v1.pcap",
    ] {
        let out = Command::new("tshark")
            .args([
                "-r",
                path,
                "-Y",
                "frame.len != frame.cap_len",
                "-T",
                "fields",
                "-e",
                "frame.number",
            ])
            .current_dir(root())
            .output()
            .unwrap();
        let cut = stdout(&out).lines().count();
        assert_eq!(info(path)["cut_by_snaplen"], cut, "{path}");
    }
}

#[test]
fn a_capture_cut_short_does_not_end_cleanly() {
    // capinfos: "appears to have been cut short in the middle of a packet".
    let out = rdmadump(&["info", "fixtures/cut_short.pcap"]);
    assert!(
        out.status.success(),
        "the records before the cut are described"
    );
    assert!(stdout(&out).contains("Ends cleanly:        no: cut short in the middle of a record"));
    assert_eq!(info("fixtures/cut_short.pcap")["ends_cleanly"], false);
    assert_eq!(info("fixtures/cut_short.pcap")["cut_short"], true);
    assert_eq!(info("fixtures/roce_v1.pcap")["ends_cleanly"], true);
}

/// A pcapng, typed from the pcapng spec (draft-ietf-opsawg-pcapng, little-endian): a
/// section header, one Ethernet interface, `bad` Enhanced Packet Blocks naming interface 5,
/// which nothing declared, and one good packet on interface 0.
fn pcapng_with_blocks_naming_no_interface(bad: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut block = |kind: u32, body: &[u8]| {
        let total = (12 + body.len()) as u32;
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&total.to_le_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(&total.to_le_bytes());
    };
    let mut shb = 0x1A2B_3C4Du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]); // version 1.0
    shb.extend_from_slice(&(-1i64).to_le_bytes()); // section length unknown
    block(0x0A0D_0D0A, &shb);
    let mut idb = vec![1, 0, 0, 0]; // LINKTYPE_ETHERNET, reserved
    idb.extend_from_slice(&65535u32.to_le_bytes());
    block(1, &idb);
    let epb = |iface: u32| {
        let mut body = Vec::new();
        for field in [iface, 0, 1_000_000, 60, 60] {
            body.extend_from_slice(&field.to_le_bytes());
        }
        let mut frame = [0u8; 60];
        frame[12..14].copy_from_slice(&[0x88, 0xb5]); // local experimental EtherType
        body.extend_from_slice(&frame);
        body
    };
    for _ in 0..bad {
        block(6, &epb(5));
    }
    block(6, &epb(0));
    out
}

/// 100 damaged blocks in a row exceed both the reader's cap on warnings (64 between two
/// records) and info's list (16): every one is still counted, in the text, the JSON, and
/// analyze's `inputs`.
#[test]
fn damaged_blocks_past_the_warning_caps_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hundred_bad.pcapng");
    std::fs::write(&path, pcapng_with_blocks_naming_no_interface(100)).unwrap();
    let path = path.to_str().unwrap();
    let doc = info(path);
    assert_eq!(doc["packets"], 1);
    assert_eq!(doc["ends_cleanly"], false);
    assert_eq!(doc["skipped_blocks"], 100);
    assert_eq!(doc["skipped_bytes"], 0);
    assert_eq!(doc["warnings"].as_array().unwrap().len(), 16);
    assert_eq!(doc["warnings_not_listed"], 100 - 16);
    let text = stdout(&rdmadump(&["info", path]));
    assert!(
        text.contains("skipped 100 damaged blocks and 0 bytes in all; 84 more warnings not listed"),
        "{text}"
    );

    let out = rdmadump(&["analyze", "--json", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let input = &report["inputs"][0];
    assert_eq!(input["status"], "ok");
    assert_eq!(input["skipped"]["blocks"], 100);
    assert_eq!(input["skipped"]["warnings_not_listed"], 100 - 64);
    let warned = stderr(&out);
    assert_eq!(
        warned.matches("no interface block declared").count(),
        64,
        "{warned}"
    );
    assert!(warned.contains("36 more warnings at offset"), "{warned}");
    let text = stdout(&rdmadump(&["analyze", path]));
    assert!(
        text.starts_with(&format!(
            "rdmadump: {path} was read past damage: 100 damaged blocks and 0 bytes skipped, \
             36 warnings not listed"
        )),
        "{text}"
    );

    let out = dir.path().join("out");
    let result = crate::export::export(&out, &[], &[std::path::Path::new(path)]);
    assert!(result.status.success(), "{}", stderr(&result));
    let captures = crate::export::rows_of(&crate::export::files_under(&out.join("captures")));
    assert_eq!(captures.len(), 1, "{captures:?}");
    assert_eq!(
        captures[0]["complete"], false,
        "skipped blocks are not a whole capture"
    );
    assert_eq!(captures[0]["skipped_blocks"], 100);
}

#[test]
fn the_text_names_dates_rates_and_interfaces() {
    // roce_v2_crc_cases: 8 frames 1 ms apart from 2023-11-14 22:15:00 UTC (epoch
    // 1700000100), 984 bytes on the wire: 8 / 0.007 s = 1142.86 packets/s, 984 × 8 / 0.007
    // = 1124571 bit/s.
    let out = rdmadump(&["info", "fixtures/roce_v2_crc_cases.pcap"]);
    let text = stdout(&out);
    for line in [
        "Container:           pcap, little-endian, microseconds",
        "  #0:                link type 1 (ethernet), snaplen 65535, microseconds, 8 packets",
        "Packets:             8",
        "Bytes on the wire:   984",
        "First packet:        2023-11-14 22:15:00.000000000 UTC",
        "Last packet:         2023-11-14 22:15:00.007000000 UTC",
        "Duration:            0.007000000 s",
        "Packet rate:         1142.86 packets/s",
        "Data rate:           1124571 bit/s (140571 bytes/s)",
        "Ends cleanly:        yes",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
}

#[test]
fn kinds_are_counted_on_request_as_the_generators_built_them() {
    for name in [
        "roce_v2_crc_cases.pcap",
        "pfc_pause.pcap",
        "eth_other.pcap",
        "roce_v1.pcap",
    ] {
        let truth: Value = serde_json::from_str(
            &std::fs::read_to_string(
                root()
                    .join("fixtures/expected")
                    .join(format!("{name}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let mut want = serde_json::Map::new();
        for frame in truth["frames"].as_array().unwrap() {
            let kind = frame["kind"].as_str().unwrap().to_string();
            let n = want.get(&kind).and_then(Value::as_u64).unwrap_or(0);
            want.insert(kind, Value::from(n + 1));
        }
        let path = format!("fixtures/{name}");
        let out = rdmadump(&["info", "--json", "--kinds", &path]);
        let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(doc["files"][0]["kinds"], Value::Object(want), "{name}");
        assert!(info(&path).get("kinds").is_none(), "kinds only on request");
    }
}

#[test]
fn several_files_give_one_document_and_a_missing_one_fails() {
    let out = rdmadump(&[
        "info",
        "--json",
        "fixtures/roce_v1.pcap",
        "-r",
        "fixtures/zstd_big_endian.pcapng",
    ]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        ["fixtures/roce_v1.pcap", "fixtures/zstd_big_endian.pcapng"]
    );
    assert_eq!(doc["files"][1]["compression"], "zstd");
    assert_eq!(doc["files"][1]["byte_order"], "big");
    let out = rdmadump(&["info", "fixtures/roce_v1.pcap", "fixtures/no_such.pcap"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("fixtures/no_such.pcap"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("File:                fixtures/roce_v1.pcap"));
}

#[test]
fn dash_r_names_a_file_on_every_subcommand() {
    let positional = rdmadump(&["read", "fixtures/roce_v1.pcap"]);
    let with_r = rdmadump(&["read", "-r", "fixtures/roce_v1.pcap"]);
    assert!(with_r.status.success(), "{}", stderr(&with_r));
    assert_eq!(with_r.stdout, positional.stdout);
    // Repeatable, after the positional files, and merged as they are.
    let both = rdmadump(&[
        "read",
        "--json",
        "fixtures/roce_v1.pcap",
        "-r",
        "fixtures/pfc_pause.pcap",
    ]);
    assert_eq!(stdout(&both).lines().count(), 5 + 7);
    let analyze = rdmadump(&["analyze", "--json", "--read-file", "fixtures/roce_v1.pcap"]);
    assert!(analyze.status.success(), "{}", stderr(&analyze));
    let info = rdmadump(&["info", "-r", "fixtures/roce_v1.pcap"]);
    assert!(info.status.success(), "{}", stderr(&info));
    assert!(!stderr(&with_r).contains("tip"), "no clap tip about '-r'");
}
