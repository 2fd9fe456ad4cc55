//! `read -T fields -e` against `tshark -T fields -e` (tshark 4.0.17): every field both tools
//! have, on every fixture and real capture tshark reads, line for line and value for value;
//! then the `-E` options (separator, header, quote, occurrence, aggregator) against tshark's
//! own output under the same options, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{fixture, rdmadump, root, stderr, stdout};

/// How a value is brought to a common form before comparing. Each case other than `Same`
/// is a place where the two tools print the same value differently, and says why.
#[derive(Clone, Copy, Debug)]
enum Norm {
    /// Printed alike.
    Same,
    /// tshark prints fields with a hexadecimal base as `0x` hex; rdmadump prints every
    /// integer in decimal.
    Number,
    /// In a tunnelled frame rdmadump's header is the innermost one; tshark lists every
    /// occurrence, outermost first.
    Inner,
    /// tshark 4.0 has ImmDt and IETH only as byte strings (and lists ImmDt twice);
    /// rdmadump gives the big-endian number.
    Bytes,
    /// tshark prints a CRC's bytes as one big-endian number; rdmadump the CRC, which goes
    /// on the wire least significant byte first.
    Swap32,
    Swap16,
    /// tshark shows an IPv4-mapped GID (RoCE v2) as the IPv4 address; rdmadump as the
    /// IPv6 address it is, `::ffff:a.b.c.d`.
    Gid,
    /// rdmadump's VLAN fields give every tag, outermost first; tshark splits them between
    /// `ieee8021ad.*` (a 0x88a8 tag) and `vlan.*`, and the first present is the outermost.
    OuterTag,
}

use Norm::*;

/// rdmadump's field, tshark's (the first present of several, e.g. IPv4 or IPv6), and how
/// they compare.
const COLUMNS: &[(&str, &[&str], Norm)] = &[
    ("frame", &["frame.number"], Same),
    ("len", &["frame.len"], Same),
    ("caplen", &["frame.cap_len"], Same),
    ("eth.src", &["eth.src"], Inner),
    ("eth.dst", &["eth.dst"], Inner),
    // rdmadump's first tag is the outermost, which tshark calls 802.1ad when its TPID is
    // 0x88a8 and 802.1Q otherwise.
    ("eth.vlan.id", &["ieee8021ad.id", "vlan.id"], OuterTag),
    (
        "eth.vlan.pcp",
        &["ieee8021ad.priority", "vlan.priority"],
        OuterTag,
    ),
    ("addr.src", &["ip.src", "ipv6.src"], Inner),
    ("addr.dst", &["ip.dst", "ipv6.dst"], Inner),
    ("inet.dscp", &["ip.dsfield.dscp", "ipv6.tclass.dscp"], Inner),
    ("inet.ecn", &["ip.dsfield.ecn", "ipv6.tclass.ecn"], Inner),
    ("inet.ttl", &["ip.ttl", "ipv6.hlim"], Inner),
    ("udp.sport", &["udp.srcport"], Inner),
    ("udp.dport", &["udp.dstport"], Inner),
    ("udp.len", &["udp.length"], Inner),
    ("arp.op", &["arp.opcode"], Same),
    ("arp.sender_ip", &["arp.src.proto_ipv4"], Same),
    ("arp.target_ip", &["arp.dst.proto_ipv4"], Same),
    ("tcp.sport", &["tcp.srcport"], Same),
    ("tcp.dport", &["tcp.dstport"], Same),
    ("lrh.vl", &["infiniband.lrh.vl"], Number),
    ("lrh.lver", &["infiniband.lrh.lver"], Same),
    ("lrh.sl", &["infiniband.lrh.sl"], Same),
    ("lrh.lnh", &["infiniband.lrh.lnh"], Number),
    ("lrh.dlid", &["infiniband.lrh.dlid"], Same),
    ("lrh.pktlen", &["infiniband.lrh.pktlen"], Same),
    ("lrh.slid", &["infiniband.lrh.slid"], Same),
    ("grh.ipver", &["infiniband.grh.ipver"], Same),
    ("grh.tclass", &["infiniband.grh.tclass"], Same),
    ("grh.flow_label", &["infiniband.grh.flowlabel"], Same),
    ("grh.paylen", &["infiniband.grh.paylen"], Same),
    ("grh.nxthdr", &["infiniband.grh.nxthdr"], Same),
    ("grh.hoplmt", &["infiniband.grh.hoplmt"], Same),
    ("grh.sgid", &["infiniband.grh.sgid"], Gid),
    ("grh.dgid", &["infiniband.grh.dgid"], Gid),
    ("bth.opcode", &["infiniband.bth.opcode"], Same),
    ("bth.se", &["infiniband.bth.se"], Same),
    ("bth.migreq", &["infiniband.bth.m"], Same),
    ("bth.pad", &["infiniband.bth.padcnt"], Same),
    ("bth.tver", &["infiniband.bth.tver"], Same),
    ("bth.pkey", &["infiniband.bth.p_key"], Same),
    ("bth.dest_qp", &["infiniband.bth.destqp"], Number),
    ("bth.ack_req", &["infiniband.bth.a"], Same),
    ("bth.psn", &["infiniband.bth.psn"], Same),
    ("deth.qkey", &["infiniband.deth.q_key"], Number),
    ("deth.src_qp", &["infiniband.deth.srcqp"], Number),
    ("reth.va", &["infiniband.reth.va"], Number),
    ("reth.rkey", &["infiniband.reth.r_key"], Number),
    ("reth.dma_len", &["infiniband.reth.dmalen"], Same),
    ("atomic_eth.swap", &["infiniband.atomiceth.swapdt"], Same),
    ("atomic_eth.compare", &["infiniband.atomiceth.cmpdt"], Same),
    ("aeth.syndrome", &["infiniband.aeth.syndrome"], Same),
    ("aeth.msn", &["infiniband.aeth.msn"], Same),
    (
        "atomic_ack_eth.orig",
        &["infiniband.atomicacketh.origremdt"],
        Same,
    ),
    ("immdt", &["infiniband.immdt"], Bytes),
    ("ieth", &["infiniband.ieth"], Bytes),
    ("icrc.value", &["infiniband.invariant.crc"], Swap32),
    ("vcrc.value", &["infiniband.variant.crc"], Swap16),
    ("pause.quanta", &["macc.pause_time"], Same),
    ("mad.class", &["infiniband.mad.mgmtclass"], Number),
    ("mad.method", &["infiniband.mad.method"], Number),
    ("mad.status", &["infiniband.mad.status"], Number),
    ("mad.tid", &["infiniband.mad.transactionid"], Number),
    ("mad.attr_id", &["infiniband.mad.attributeid"], Number),
    (
        "mad.attr_mod",
        &["infiniband.mad.attributemodifier"],
        Number,
    ),
];

/// Where the two tools decode a frame differently, so a field differs for a reason that is
/// not the output format: (capture, rdmadump field, why).
const KNOWN: &[(&str, usize, &[&str], &str)] = &[
    (
        "huge_caplen.pcap",
        1,
        &["eth.src", "eth.dst"],
        "tshark reads the file as the RedHat tcpdump variant (docs/tshark-differences.md row 5)",
    ),
    (
        "multi_if.pcapng",
        0,
        &["frame"],
        "tshark counts the Custom Block as frame 7, so its later frame numbers are one higher \
         (row 4)",
    ),
    (
        "roce_v2_opcodes.pcap",
        27,
        &["deth.qkey", "deth.src_qp"],
        "tshark takes RD opcode 0x44 for Mellanox DC and reads the DETH 8 bytes late (rows 7, 8)",
    ),
    (
        "tunnels.pcap",
        16,
        &["addr.src", "addr.dst", "inet.ecn", "inet.ttl"],
        "five nested tunnels: rdmadump stops at four, its ip is the fifth's outer (row 41)",
    ),
    (
        "tunnels.pcap",
        19,
        &[
            "eth.src",
            "eth.dst",
            "addr.src",
            "addr.dst",
            "inet.ecn",
            "inet.ttl",
            "udp.sport",
            "udp.dport",
            "udp.len",
        ],
        "the outer UDP length overruns the datagram: rdmadump stops before the VXLAN tunnel, \
         tshark warns and goes on (row 44)",
    ),
];

/// Whether a difference is one of `KNOWN` (frame 0: any frame of the capture).
fn known(mismatch: &str) -> bool {
    KNOWN
        .iter()
        .any(|(file, frame, fields, _)| explains(mismatch, file, *frame, fields))
}

fn explains(mismatch: &str, file: &str, frame: usize, fields: &[&str]) -> bool {
    let place = if frame == 0 {
        format!("{file} frame ")
    } else {
        format!("{file} frame {frame}: ")
    };
    mismatch.starts_with(&place)
        && fields
            .iter()
            .any(|field| mismatch.contains(&format!(": {field}: ")))
}

/// Captures tshark 4.0 cannot read, and why. Native InfiniBand frames reach it in ERF
/// records instead, in ib_erf.pcap and the real infiniband-erf.pcap.
const UNREADABLE: &[(&str, &str)] = &[
    ("ib_native.pcap", "link type 247 (InfiniBand)"),
    ("ib_no_vcrc.pcap", "link type 247 (InfiniBand)"),
    ("ipoib_ud.pcap", "link type 247 (InfiniBand)"),
    ("mad_cm_ib.pcap", "link type 247 (InfiniBand)"),
    ("malformed_ib.pcap", "link type 247 (InfiniBand)"),
    ("zstd_big_endian.pcapng", "zstd compression"),
];

/// Options every tshark run gets: no name resolution, an empty personal configuration,
/// and no TFTP on UDP port 69, which tshark would prefer to RoCE v2 from source port 69.
fn tshark(args: &[&str]) -> String {
    let config = tempfile::tempdir().expect("temp dir");
    let out = Command::new("tshark")
        .env("WIRESHARK_CONFIG_DIR", config.path())
        .args(["-n", "--disable-protocol", "tftp"])
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tshark");
    // A capture cut short is an error to tshark, after it has printed every whole frame.
    let cut_short = stderr(&out).contains("cut short in the middle of a packet");
    assert!(
        out.status.success() || cut_short,
        "tshark {args:?}: {}",
        stderr(&out)
    );
    stdout(&out)
}

fn captures() -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures"))
        .expect("fixtures/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pcap" || e == "pcapng"))
        .filter(|p| !UNREADABLE.iter().any(|(name, _)| p.ends_with(name)))
        .collect();
    for real in ["infiniband-erf.pcap", "rdma-cm-rxe.pcap", "ipoib.pcap"] {
        all.extend(crate::harness::real_capture(real));
    }
    all.sort();
    all
}

fn number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Both values in the common form of `norm`.
fn normalize(norm: Norm, ours: &str, theirs: &str) -> (String, String) {
    let innermost = theirs.rsplit(',').next().unwrap_or("").to_string();
    let as_number = |text: &str| number(text).map_or(text.to_string(), |n| n.to_string());
    match norm {
        Same => (ours.to_string(), theirs.to_string()),
        OuterTag => (
            ours.split(',').next().unwrap_or("").to_string(),
            theirs.split(',').next().unwrap_or("").to_string(),
        ),
        Number => (ours.to_string(), as_number(theirs)),
        Inner => (ours.to_string(), innermost),
        Bytes => {
            let first = theirs.split(',').next().unwrap_or("");
            let value = u64::from_str_radix(first, 16).map_or(first.to_string(), |n| n.to_string());
            (ours.to_string(), value)
        }
        Swap32 | Swap16 => {
            let swapped = number(theirs).map_or(theirs.to_string(), |n| match norm {
                Swap32 => (n as u32).swap_bytes().to_string(),
                _ => (n as u16).swap_bytes().to_string(),
            });
            (ours.to_string(), swapped)
        }
        Gid => (
            ours.strip_prefix("::ffff:")
                .filter(|v4| v4.parse::<std::net::Ipv4Addr>().is_ok())
                .unwrap_or(ours)
                .to_string(),
            theirs.to_string(),
        ),
    }
}

/// Lines of tab-separated values, by line.
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn compare_capture(path: &Path, mismatches: &mut Vec<String>, compared: &mut usize) {
    let file = path.to_str().expect("utf-8 path");
    let mut ours_args = vec!["read", "-T", "fields", "-E", "occurrence=a"];
    let mut theirs_args = vec!["-r", file, "-T", "fields", "-E", "occurrence=a"];
    for (ours, theirs, _) in COLUMNS {
        ours_args.extend(["-e", ours]);
        for name in *theirs {
            theirs_args.extend(["-e", name]);
        }
    }
    ours_args.push(file);
    // A pcapng Custom Block is no packet, but tshark 4.0 makes it a frame: its rows go.
    theirs_args.extend(["-e", "frame.protocols", "-e", "frame.cb_pen"]);
    let out = rdmadump(&ours_args);
    let ours = rows(&stdout(&out));
    let mut theirs = rows(&tshark(&theirs_args));
    theirs.retain(|row| row.last().is_none_or(|pen| pen.is_empty()));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(ours.len(), theirs.len(), "{name}: frames");
    for (frame, (our_row, their_row)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(our_row.len(), COLUMNS.len(), "{name} frame {}", frame + 1);
        let protocols: Vec<&str> = their_row[their_row.len() - 2].split(':').collect();
        let mut their_cells = their_row.iter();
        for ((field, alternatives, norm), ours) in COLUMNS.iter().zip(our_row) {
            let cells: Vec<(&str, &str)> = alternatives
                .iter()
                .map(|name| (*name, their_cells.next().map_or("", String::as_str)))
                .filter(|(_, cell)| !cell.is_empty())
                .collect();
            let theirs = match norm {
                // IPv6 inside IPv4 or the reverse: the innermost is the protocol that comes
                // last in the frame.
                Inner => cells
                    .iter()
                    .max_by_key(|(name, _)| {
                        let protocol = name.split('.').next().unwrap_or("");
                        protocols.iter().rposition(|p| *p == protocol)
                    })
                    .map_or("", |(_, cell)| cell),
                _ => cells.first().map_or("", |(_, cell)| cell),
            };
            // Which frames hold a header is the decoding's business, compared with its
            // explanations in tshark_diff.rs; here the question is how a value is printed.
            if ours.is_empty() || theirs.is_empty() {
                continue;
            }
            *compared += 1;
            let (ours, theirs) = normalize(*norm, ours, theirs);
            if ours != theirs {
                mismatches.push(format!(
                    "{name} frame {}: {field}: rdmadump {ours:?}, tshark {theirs:?}",
                    frame + 1
                ));
            }
        }
    }
}

#[test]
fn every_shared_field_matches_tshark_on_every_capture() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let mut mismatches = Vec::new();
    let captures = captures();
    // Floors a little under what the fixtures give, and the real captures when they are there.
    let real = crate::harness::real_captures_dir().is_some();
    assert!(captures.len() >= if real { 30 } else { 27 }, "{captures:?}");
    let mut compared = 0;
    for path in &captures {
        compare_capture(path, &mut mismatches, &mut compared);
    }
    let floor = if real { 5000 } else { 3400 };
    assert!(compared > floor, "only {compared} values compared");
    let unexplained: Vec<&String> = mismatches.iter().filter(|m| !known(m)).collect();
    assert!(
        unexplained.is_empty(),
        "{} differences:\n{}",
        unexplained.len(),
        unexplained
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for (file, frame, fields, why) in KNOWN {
        assert!(
            mismatches.iter().any(|m| explains(m, file, *frame, fields)),
            "KNOWN entry no longer reproduces: {file} frame {frame} ({why})"
        );
    }
}

/// Fields that both tools print alike, as (rdmadump, tshark); `reth.dma_len` is absent
/// from most frames, for the empty values.
const ALIKE: &[(&str, &str)] = &[
    ("frame", "frame.number"),
    ("eth.src", "eth.src"),
    ("ip.src", "ip.src"),
    ("udp.dport", "udp.dstport"),
    ("bth.psn", "infiniband.bth.psn"),
    ("bth.se", "infiniband.bth.se"),
    ("reth.dma_len", "infiniband.reth.dmalen"),
];

#[test]
fn separator_header_and_quote_lay_out_lines_as_tshark_does() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let capture = fixture("roce_v2_opcodes.pcap");
    let capture = capture.to_str().unwrap();
    for options in [
        &[][..],
        &["separator=,"],
        &["separator=/s", "quote=s"],
        &["separator=/t", "quote=d", "header=y"],
        &["header=y", "quote=d", "separator=;"],
        &["quote=n", "header=n"],
        // Only the first character of a longer separator counts, in both tools.
        &["separator=ab", "header=y"],
        // The last of a repeated option wins.
        &["quote=d", "quote=s", "separator=,", "separator=|"],
    ] {
        let mut ours_args = vec!["read", "-T", "fields"];
        let mut theirs_args = vec!["-r", capture, "-T", "fields"];
        for option in options {
            ours_args.extend(["-E", option]);
            theirs_args.extend(["-E", option]);
        }
        for (ours, theirs) in ALIKE {
            ours_args.extend(["-e", ours]);
            theirs_args.extend(["-e", theirs]);
        }
        ours_args.push(capture);
        let out = rdmadump(&ours_args);
        assert!(out.status.success(), "{options:?}: {}", stderr(&out));
        let mut want = tshark(&theirs_args);
        // The header names each tool's own fields.
        if options.contains(&"header=y") {
            let (header, rest) = want.split_once('\n').expect("header line");
            let mut header = header.to_string();
            for (ours, theirs) in ALIKE {
                header = header.replacen(theirs, ours, 1);
            }
            want = format!("{header}\n{rest}");
        }
        assert_eq!(stdout(&out), want, "-E {options:?}");
    }
}

/// The tunnels of IPv4-in-IPv4 frames: rdmadump's `tunnel.src` lists each tunnel's outer
/// source, which are tshark's `ip.src` occurrences but the last (the inner packet's).
#[test]
fn occurrence_and_aggregator_pick_and_join_as_tsharks_do() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let capture = fixture("tunnels.pcap");
    let capture = capture.to_str().unwrap();
    let frames = "frame.number in {1, 4, 7, 9, 11, 12, 13, 17, 18}";
    let theirs = tshark(&[
        "-r",
        capture,
        "-Y",
        frames,
        "-T",
        "fields",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=;",
        "-e",
        "ip.src",
    ]);
    let outer: Vec<Vec<&str>> = theirs
        .lines()
        .map(|line| {
            let all: Vec<&str> = line.split(';').collect();
            all[..all.len() - 1].to_vec()
        })
        .collect();
    assert!(outer.iter().any(|tunnels| tunnels.len() == 2), "{outer:?}");
    let ours_filter = "frame == 1 || frame == 4 || frame == 7 || frame == 9 || frame == 11 \
                       || frame == 12 || frame == 13 || frame == 17 || frame == 18";
    for (options, pick) in [
        (
            &[][..],
            Box::new(|t: &[&str]| t.join(",")) as Box<dyn Fn(&[&str]) -> String>,
        ),
        (&["occurrence=f"], Box::new(|t: &[&str]| t[0].to_string())),
        (
            &["occurrence=l"],
            Box::new(|t: &[&str]| t[t.len() - 1].to_string()),
        ),
        (
            &["occurrence=a", "aggregator=/s"],
            Box::new(|t: &[&str]| t.join(" ")),
        ),
        (
            &["aggregator=;", "quote=d"],
            Box::new(|t: &[&str]| format!("\"{}\"", t.join(";"))),
        ),
    ] {
        let mut args = vec![
            "read",
            "-Y",
            ours_filter,
            "-T",
            "fields",
            "-e",
            "tunnel.src",
        ];
        for option in options {
            args.extend(["-E", option]);
        }
        args.push(capture);
        let out = rdmadump(&args);
        let want: String = outer.iter().map(|t| pick(t) + "\n").collect();
        assert_eq!(stdout(&out), want, "-E {options:?}");
    }
}

/// A field with more occurrences than tunnels have (the eight PFC classes) is printed whole:
/// `-e` once stopped at the fourth. tshark names each class apart, so its eight columns are
/// the reference.
#[test]
fn every_occurrence_of_a_list_field_is_printed() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let capture = fixture("pfc_pause.pcap");
    let capture = capture.to_str().unwrap();
    let mut theirs_args = vec![
        "-r",
        capture,
        "-Y",
        "macc.opcode == 0x0101",
        "-T",
        "fields",
        "-E",
        "separator=,",
    ];
    let classes: Vec<String> = (0..8)
        .map(|c| format!("macc.cbfc.pause_time.c{c}"))
        .collect();
    for class in &classes {
        theirs_args.extend(["-e", class.as_str()]);
    }
    let theirs = tshark(&theirs_args);
    assert!(theirs.lines().count() >= 2, "{theirs}");
    let last: String = theirs
        .lines()
        .map(|line| line.rsplit(',').next().unwrap_or_default().to_string() + "\n")
        .collect();
    for (option, want) in [("occurrence=a", theirs.clone()), ("occurrence=l", last)] {
        let out = rdmadump(&[
            "read",
            "-Y",
            "pfc",
            "-T",
            "fields",
            "-e",
            "pfc.quanta",
            "-E",
            option,
            capture,
        ]);
        assert_eq!(stdout(&out), want, "-E {option}");
    }
}

#[test]
fn bad_field_options_are_command_line_errors() {
    let capture = fixture("roce_v2_opcodes.pcap");
    let capture = capture.to_str().unwrap();
    for (args, says) in [
        (&["-T", "fields", "-e", "bth.nope"][..], "bth.nope"),
        (&["-T", "fields"], "-e FIELD"),
        (&["-e", "bth.psn"], "-T fields"),
        (
            &["-T", "fields", "-e", "bth.psn", "-E", "quote=x"],
            "quote=x",
        ),
        (&["-T", "fields", "-e", "bth.psn", "-E", "bogus=1"], "bogus"),
        (&["-T", "fields", "-e", "bth.psn", "-V"], "-V"),
        (&["-T", "fields", "-e", "bth.psn", "--json"], "--json"),
    ] {
        let mut all = vec!["read"];
        all.extend_from_slice(args);
        all.push(capture);
        let out = rdmadump(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn t_json_is_read_json() {
    let capture = fixture("roce_v2_opcodes.pcap");
    let capture = capture.to_str().unwrap();
    let json = rdmadump(&["read", "--json", capture]);
    let t_json = rdmadump(&["read", "-T", "json", capture]);
    assert_eq!(json.stdout, t_json.stdout);
    let text = rdmadump(&["read", capture]);
    let t_text = rdmadump(&["read", "-T", "text", capture]);
    assert_eq!(text.stdout, t_text.stdout);
}

/// Where a Wireshark name's value differs from tshark's for a reason, with the reason.
const WIRESHARK_NAME_DIFFERENCES: &[(&str, &str)] = &[
    (
        "roce_v2_opcodes.pcap frame 27: infiniband.deth.q_key",
        "tshark takes RD opcode 0x44 for Mellanox DC and reads the DETH 8 bytes late (rows 7, 8)",
    ),
    (
        "roce_v2_opcodes.pcap frame 27: infiniband.deth.srcqp",
        "as above",
    ),
];

/// Wireshark's names, as a runbook's `tshark -T fields -e` line has them, give through
/// `read -T fields` the values tshark gives: the same field, unit and byte order, printed
/// in decimal where tshark prints hex.
#[test]
fn wireshark_names_extract_what_tshark_extracts() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    const NAMES: &[&str] = &[
        "frame.number",
        "frame.len",
        "frame.cap_len",
        "frame.time_epoch",
        "frame.time_relative",
        "frame.time_delta",
        "eth.src",
        "eth.dst",
        "ip.src",
        "ip.dst",
        "ip.dsfield.ecn",
        "udp.srcport",
        "udp.dstport",
        "infiniband.bth.opcode",
        "infiniband.bth.se",
        "infiniband.bth.m",
        "infiniband.bth.padcnt",
        "infiniband.bth.tver",
        "infiniband.bth.p_key",
        "infiniband.bth.destqp",
        "infiniband.bth.a",
        "infiniband.bth.psn",
        "infiniband.reth.va",
        "infiniband.reth.r_key",
        "infiniband.reth.dmalen",
        "infiniband.aeth.syndrome",
        "infiniband.aeth.msn",
        "infiniband.deth.q_key",
        "infiniband.deth.srcqp",
    ];
    let mut problems = Vec::new();
    let mut compared = 0usize;
    for capture in [
        root().join("fixtures/roce_v2_opcodes.pcap"),
        root().join("fixtures/roce_v2_ipv6_vlan.pcap"),
    ]
    .into_iter()
    .chain(crate::harness::real_capture("rdma-cm-rxe.pcap"))
    {
        let path = capture.to_string_lossy().into_owned();
        let mut ours_args = vec!["read", "-T", "fields"];
        let mut theirs_args = vec!["-r", path.as_str(), "-T", "fields"];
        for name in NAMES {
            ours_args.extend(["-e", name]);
            theirs_args.extend(["-e", name]);
        }
        ours_args.push(&path);
        let out = rdmadump(&ours_args);
        assert!(out.status.success(), "{}", stderr(&out));
        let ours = stdout(&out);
        let theirs = tshark(&theirs_args);
        let (ours, theirs): (Vec<&str>, Vec<&str>) =
            (ours.lines().collect(), theirs.lines().collect());
        assert_eq!(ours.len(), theirs.len(), "{path}: frame count");
        for (frame, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            for ((name, ov), tv) in NAMES.iter().zip(o.split('\t')).zip(t.split('\t')) {
                let same = ov == tv || number(ov).is_some() && number(ov) == number(tv);
                compared += 1;
                let place = format!("{path} frame {}: {name}", frame + 1);
                let explained = WIRESHARK_NAME_DIFFERENCES
                    .iter()
                    .any(|(at, _)| place.ends_with(at));
                if !same && !explained {
                    problems.push(format!(
                        "{path} frame {}: {name}: ours {ov:?}, tshark {tv:?}",
                        frame + 1
                    ));
                }
            }
        }
    }
    assert!(compared > 1000, "only {compared} values compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
