//! Wireshark display filters, run unchanged through `tshark -Y` and `rdmadump read -Y`: the
//! frame numbers each selects must be the same, wherever both tools decode the frames.
//!
//! One tshark start per filter and file would be thousands of processes, so the captures
//! that tshark can open are first concatenated into one pcapng (mergecap, from the same
//! Wireshark package as tshark and capinfos; a temporary file, never in the repository), and each filter runs
//! once per tool over it; the frame numbers then map back to the files. Every difference
//! must be covered by an entry of `KNOWN`, which names its reason.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::harness::{rdmadump, root, stderr};

/// Each filter, and for the few that tshark 4.0 cannot parse (`xor` came in 4.2), the
/// equivalent it can.
const FILTERS: &[(&str, Option<&str>)] = &[
    // Logic words, symbols and precedence.
    ("infiniband.bth and infiniband.aeth", None),
    ("infiniband.bth && !infiniband.aeth", None),
    ("not infiniband.bth", None),
    (
        "infiniband.reth or infiniband.deth and infiniband.bth.psn > 0",
        None,
    ),
    (
        "(infiniband.reth || infiniband.deth) && infiniband.bth.psn > 0",
        None,
    ),
    (
        "not infiniband.aeth and infiniband.bth.opcode >= 16 or eth.type == 0x8808",
        None,
    ),
    (
        "infiniband.reth xor infiniband.bth.opcode == 10",
        Some(
            "(infiniband.reth and not infiniband.bth.opcode == 10) or (not infiniband.reth and infiniband.bth.opcode == 10)",
        ),
    ),
    (
        "udp.port == 4791 ^^ ip.dsfield.ecn == 3",
        Some(
            "(udp.port == 4791 and not ip.dsfield.ecn == 3) or (not udp.port == 4791 and ip.dsfield.ecn == 3)",
        ),
    ),
    // Comparison words.
    ("infiniband.bth.opcode == 4", None),
    ("infiniband.bth.opcode eq 0x0a", None),
    ("infiniband.bth.opcode any_eq 17", None),
    ("infiniband.bth.opcode != 17", None),
    ("infiniband.bth.opcode ne 17", None),
    ("infiniband.bth.opcode all_ne 4", None),
    (
        "infiniband.bth.psn > 100 && infiniband.bth.psn <= 0x1000",
        None,
    ),
    (
        "infiniband.bth.psn gt 5 and infiniband.bth.psn lt 1000",
        None,
    ),
    (
        "infiniband.bth.psn ge 0x100 or infiniband.bth.psn le 1",
        None,
    ),
    ("infiniband.bth.psn < 010", None),
    ("infiniband.bth.destqp == 0b10010", None),
    // Either-direction fields, any and all.
    ("ip.addr == 192.168.10.1", None),
    ("ip.addr != 192.168.10.1", None),
    ("ip.addr ~= 192.168.10.1", None),
    ("ip.addr any_ne 192.168.10.2", None),
    ("ip.addr === 192.168.10.0/24", None),
    ("ip.addr all_eq 10.0.0.1", None),
    ("udp.port == 4791", None),
    ("udp.port != 4791", None),
    ("udp.port ~= 4791", None),
    ("eth.addr == 02:00:00:00:00:0b", None),
    ("eth.addr != ff:ff:ff:ff:ff:ff", None),
    ("tcp.port == 22", None),
    // Sets, ranges, not in.
    // Wireshark 3's blank-separated sets; tshark 4.0 wants commas.
    (
        "infiniband.bth.opcode in {0 1 2 3 4 5}",
        Some("infiniband.bth.opcode in {0, 1, 2, 3, 4, 5}"),
    ),
    ("infiniband.bth.opcode in {6..12, 16, 17}", None),
    ("infiniband.bth.opcode not in {4, 17}", None),
    ("ip.src in {192.168.10.1, 10.0.0.1, 192.168.2.25}", None),
    ("eth.type in {0x8100, 0x88a8, 0x8915}", None),
    ("udp.port in {4789, 4791}", None),
    // Bit tests, slices, functions, contains.
    ("infiniband.bth.psn & 1", None),
    ("infiniband.bth.opcode & 0x80", None),
    ("eth.dst[0] & 1", None),
    ("eth.src[0:3] == 02:00:00", None),
    ("eth.dst[3-5] == 00:00:0b", None),
    ("frame[12:2] == 89:15", None),
    ("frame[0:1] == ff", None),
    ("len(eth.src) == 6", None),
    ("eth.src contains 00:0a", None),
    // Bare literals.
    ("ip.src == 192.168.10.1", None),
    ("ip.dst == 192.168.10.0/24", None),
    ("ip.src != 10.0.0.0/8", None),
    ("eth.src == 02:00:00:00:00:0a", None),
    ("eth.src == 02-00-00-00-00-0a", None),
    ("eth.dst == 0200.0000.000b", None),
    ("infiniband.grh.dgid == ff02::1", None),
    ("infiniband.grh.sgid == fe80::/64", None),
    ("ipv6.src == fe80::/10 or ipv6.dst == ::1", None),
    // Frame.
    ("frame.len > 100", None),
    ("frame.cap_len < 64", None),
    ("frame.number in {1..3}", None),
    ("frame.time_epoch >= 1700000000.001", None),
    (
        "frame.time_relative >= 100 and frame.time_relative < 20000",
        None,
    ),
    ("frame.time_delta > 0.5", None),
    ("frame.time_delta == 0", None),
    // Field against field.
    ("frame.cap_len < frame.len", None),
    ("ip.src == ip.dst or udp.srcport == udp.dstport", None),
    ("infiniband.lrh.slid > infiniband.lrh.dlid", None),
    // Header and field existence.
    ("vlan", None),
    ("ipv6", None),
    ("infiniband.grh", None),
    ("infiniband.lrh", None),
    ("infiniband.reth", None),
    ("infiniband.deth", None),
    ("infiniband.atomiceth", None),
    ("infiniband.atomicacketh", None),
    ("infiniband.immdt", None),
    ("infiniband.ieth", None),
    ("infiniband.bth.se", None),
    ("infiniband.variant.crc", None),
    // Field families.
    ("infiniband.lrh.lnh == 3 and infiniband.lrh.vl == 0", None),
    ("infiniband.lrh.dlid > 1 or infiniband.lrh.slid == 1", None),
    ("infiniband.lrh.sl > 0 or infiniband.lrh.pktlen > 20", None),
    (
        "infiniband.grh.nxthdr == 0x1b and infiniband.grh.hoplmt > 0",
        None,
    ),
    (
        "infiniband.grh.tclass > 0 or infiniband.grh.flowlabel > 0",
        None,
    ),
    ("infiniband.bth.se == 1", None),
    ("infiniband.bth.a == 1 and infiniband.bth.m == 0", None),
    ("infiniband.bth.padcnt > 0", None),
    (
        "infiniband.bth.p_key == 0xffff and infiniband.bth.tver == 0",
        None,
    ),
    ("infiniband.aeth.syndrome > 0x1f", None),
    ("infiniband.aeth.syndrome.opcode == 3", None),
    ("infiniband.aeth.syndrome.credit_count == 31", None),
    ("infiniband.aeth.syndrome.error_code == 0", None),
    ("infiniband.aeth.syndrome.timer > 0", None),
    ("infiniband.aeth.msn > 0", None),
    (
        "infiniband.reth.dmalen > 1000 or infiniband.reth.r_key == 0",
        None,
    ),
    ("infiniband.reth.va > 0x1000", None),
    (
        "infiniband.deth.srcqp == 1 or infiniband.deth.q_key == 0x80010000",
        None,
    ),
    (
        "infiniband.atomiceth.swapdt > 0 or infiniband.atomiceth.cmpdt > 0",
        None,
    ),
    ("infiniband.invariant.crc > 0x80000000", None),
    ("infiniband.mad.mgmtclass == 0x07", None),
    (
        "infiniband.mad.method == 0x81 or infiniband.mad.attributeid == 0x0010",
        None,
    ),
    (
        "infiniband.mad.transactionid > 0 and infiniband.mad.status == 0",
        None,
    ),
    (
        "infiniband.cm.req.localqpn > 0 or infiniband.cm.rep.startpsn > 0",
        None,
    ),
    ("infiniband.cm.req.serviceid > 0", None),
    ("vlan.id == 100 or vlan.priority >= 3", None),
    ("ip.dsfield.ecn == 3", None),
    ("ip.dsfield.dscp > 0", None),
    ("ip.ttl < 64", None),
    ("ip.proto == 17", None),
    ("ip.len > 100", None),
    ("ipv6.flow > 0 or ipv6.hlim == 64", None),
    ("udp.dstport == 4791 and udp.srcport != 4791", None),
    ("udp.length > 100", None),
    ("macc.opcode == 0x0101", None),
    ("macc.pause_time > 0", None),
    ("macc.cbfc.enbv.c3 == 1", None),
    (
        "macc.cbfc.pause_time.c0 == 0xffff or macc.cbfc.pause_time.c7 > 0",
        None,
    ),
    ("arp.opcode == 1", None),
    ("icmp.type == 8", None),
    ("icmp.type == 135 or icmp.code > 0", None),
    ("icmpv6.type == 135 and icmpv6.code == 0", None),
    ("infiniband.rdeth", None),
    // Protocols by Wireshark's names, alone and negated. tshark 4.0 knows no `rroce` and
    // no `mad`: they run against what they stand for.
    ("infiniband", None),
    ("!infiniband", None),
    ("not infiniband and eth", None),
    ("rroce", Some("infiniband and udp")),
    ("macc", None),
    ("mad", Some("infiniband.mad")),
    ("infiniband.mad", None),
    ("icmpv6", None),
    ("eth", None),
    ("ip", None),
    ("!ip and eth", None),
    ("udp", None),
    ("ip and infiniband", None),
    // Byte fields, common names, sets.
    ("len(infiniband.immdt) == 4", None),
    ("infiniband.immdt != 00:00:00:00", None),
    ("infiniband.immdt[0] == 00", None),
    ("ip.dsfield == 0x68 or ip.dsfield == 0", None),
    ("ip.version == 4 and ip.ttl > 1", None),
    ("frame.time >= \"2023-01-01 00:00:00\"", None),
    ("frame.time < \"Jan  1, 2010 00:00:00\"", None),
    ("frame contains 12:b7", None),
    ("frame contains \"\\x12\\xb7\"", None),
    ("frame[0:2] == 02:00 or frame[0:1] == f0", None),
    (
        "infiniband.bth.destqp in {0x127..0x12a, 0x11, 0x17, 0x100..0x110}",
        None,
    ),
    (
        "infiniband.bth.psn in {1, 2, 3, 5, 8, 13, 21, 34, 55, 89}",
        None,
    ),
    (
        "infiniband.deth.q_key == 0x11111111 or infiniband.deth.srcqp == 0x123",
        None,
    ),
];

/// Value differences of the NVMe-oF fields, understood as `KNOWN`'s are, that only the
/// value comparison meets (no filter of the frame-selection test names these fields).
const KNOWN_VALUES: &[(&[&str], &str, &str)] = &[
    (
        &["nvme-rdma"],
        "infiniband.mad.attributeid == 0x0010",
        "rdmadump decodes the NVMe-oF private data of the CM REQ itself (NVMe-oF RDMA \
         binding: the REQ carries RECFMT, QID, HRQSIZE, HSQSIZE); tshark 4.0 recognises the \
         queue only from the REP on, and shows no nvme-rdma layer in the REQ",
    ),
    (
        &["nvme.cmd.psdt", "nvme.cmd.sgl1"],
        "infiniband.bth.opcode == 4",
        "rdmadump gives every SQE's PSDT and SGL descriptor 1 (NVMe base specification, \
         common command format); tshark 4.0 shows them only for the commands it dissects \
         in full, not for Property Get or Get Log Page",
    ),
    (
        &["nvme-rdma", "nvme.fabrics.cmd_pkt", "nvme-rdma.cmd.qid"],
        "infiniband.bth.opcode == 16",
        "rdmadump links an RDMA READ request to its command by the R_Key of the command's \
         SGL, but not yet the READ responses that follow it; tshark links both",
    ),
];

/// Differences that are understood: for filters containing any of the words given, the
/// tools may select differently the frames that the tshark filter given selects, for the
/// reason given. An entry that no longer explains any difference fails the test.
const KNOWN: &[(&[&str], &str, &str)] = &[
    (
        &[""],
        "udp.port == 69 or (udp.srcport == 4791 and udp.dstport != 4791)",
        "rdmadump decodes RoCE v2 by UDP destination port alone (4791, or --roce-port); \
         tshark tries the lower port first, so it calls RoCE v2 from source port 69 TFTP, \
         and takes a frame from source port 4791 to another port as RoCE v2",
    ),
    (
        &[""],
        "_ws.expert or infiniband.grh.paylen > frame.len - 54",
        "rdmadump keeps no header of a malformed frame (a length that lies) past the one \
         that failed, and none after it; tshark shows what it could read",
    ),
    (
        &["vlan."],
        "ieee8021ad",
        "Wireshark names an 802.1ad (0x88a8) tag ieee8021ad.*, and only 802.1Q tags vlan.*; \
         rdmadump's eth.vlan.* (Wireshark's vlan.*) cover every tag",
    ),
    (
        &[""],
        "gre or vxlan or erspan",
        "in a tunnel, Wireshark matches a field in any layer, the outer tunnel's Ethernet, IP \
         and UDP headers too; rdmadump's eth, ip and udp are the inner frame's (the outer \
         ones are tunnel.*), and it decapsulates at most 4 tunnels and not a frame whose \
         inner lengths lie, which tshark still decodes",
    ),
    (
        &["infiniband"],
        "infiniband.bth.opcode in {28, 29, 129, 160..191}",
        "tshark 4.0 does not know the FLUSH (0x1c), ATOMIC WRITE (0x1d), CNP (0x81) and XRC \
         (0xa0-0xbf) opcodes, so it decodes no header after their BTH (no RETH, no ICRC)",
    ),
    (
        &["infiniband"],
        "infiniband.bth.opcode in {64..95}",
        "tshark 4.0 decodes the Reliable Datagram opcodes (0x40-0x5f) as Mellanox's \
         Dynamically Connected transport, whose extended headers differ (no RDETH, a DCETH \
         where the DETH is)",
    ),
    (
        &["icmp."],
        "icmpv6",
        "rdmadump's icmp.* cover ICMPv6 too; Wireshark names those icmpv6.*",
    ),
    (
        &["frame.time_relative", "frame.time_delta"],
        "frame.time_relative < 0 or frame.time_delta < 0",
        "a frame earlier than the first or the previous one (the inputs here are \
         concatenated, not merged by time) has a negative time to Wireshark; rdmadump's \
         times are unsigned and read 0 there (analyze and read merge inputs by time, so only \
         an unordered file has such frames)",
    ),
];

/// Captures tshark 4.0 cannot open, and why they are left out.
const UNREADABLE: &[(&str, &str)] = &[
    (
        "cut_short.pcap",
        "the last record is cut short; tshark stops with an error",
    ),
    (
        "huge_caplen.pcap",
        "a record claims more bytes than the file holds",
    ),
    (
        "multi_if.pcapng",
        "mergecap cannot write its second interface's link type to pcapng",
    ),
];

/// Every capture in fixtures/ (and its connections/ and scenarios/) and the real ones.
fn captures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let real = crate::harness::real_captures_dir();
    let fixtures =
        ["fixtures", "fixtures/connections", "fixtures/scenarios"].map(|d| root().join(d));
    for dir in fixtures.into_iter().chain(real) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// Pcap linktype 247 (DLT_INFINIBAND) is one tshark 4.0 cannot open; native InfiniBand is
/// covered by the ERF captures instead.
fn linktype_247(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let le = bytes.get(..4) == Some(&[0xd4, 0xc3, 0xb2, 0xa1])
        || bytes.get(..4) == Some(&[0x4d, 0x3c, 0xb2, 0xa1]);
    bytes.get(20..24).is_some_and(|t| {
        let t: [u8; 4] = t.try_into().unwrap();
        (if le {
            u32::from_le_bytes(t)
        } else {
            u32::from_be_bytes(t)
        }) == 247
    })
}

/// The frame numbers `tshark -Y filter` selects.
fn tshark_frames(file: &Path, filter: &str) -> BTreeSet<u64> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(file)
        .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
        .output()
        .expect("run tshark");
    assert!(
        out.status.success(),
        "tshark -Y '{filter}': {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse().expect("frame number"))
        .collect()
}

fn rdmadump_frames(file: &Path, filter: &str) -> BTreeSet<u64> {
    let out = rdmadump(&["read", "--json", "-Y", filter, file.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "rdmadump -Y '{filter}': {}",
        stderr(&out)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json line");
            v["frame"].as_u64().expect("frame")
        })
        .collect()
}

/// Every capture tshark can open, concatenated into one pcapng in `dir`, and the map from
/// a frame number of it back to its file and frame there.
fn merge(dir: &Path) -> (PathBuf, impl Fn(u64) -> (String, u64)) {
    let files: Vec<PathBuf> = captures()
        .into_iter()
        .filter(|p| !linktype_247(p))
        .filter(|p| !UNREADABLE.iter().any(|(name, _)| p.ends_with(name)))
        .collect();
    assert!(files.len() > 30, "{files:?}");
    std::fs::create_dir_all(dir).unwrap();
    let merged = dir.join("all.pcapng");
    let out = Command::new("mergecap")
        .args(["-a", "-F", "pcapng", "-w"])
        .arg(&merged)
        .args(&files)
        .output()
        .expect("run mergecap");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Where each file's frames start in the merged capture, counted by capinfos.
    let out = Command::new("capinfos")
        .args(["-c", "-M", "-T", "-r"])
        .args(&files)
        .output()
        .expect("run capinfos");
    let counts: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.rsplit('\t')
                .next()
                .unwrap()
                .trim()
                .parse()
                .expect("count")
        })
        .collect();
    assert_eq!(counts.len(), files.len());
    let mut starts = Vec::new();
    let mut next = 1u64;
    for count in counts {
        starts.push(next);
        next += count;
    }
    let file_of = move |frame: u64| {
        let i = starts.partition_point(|&s| s <= frame) - 1;
        (
            files[i].file_name().unwrap().to_string_lossy().into_owned(),
            frame - starts[i] + 1,
        )
    };

    (merged, file_of)
}

#[test]
fn wireshark_filters_select_the_same_frames_as_tshark() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    assert!(FILTERS.len() >= 60, "{}", FILTERS.len());
    let dir = std::env::temp_dir().join(format!("rdmadump-filter-diff-{}", std::process::id()));
    let (merged, file_of) = merge(&dir);
    let explained: Vec<BTreeSet<u64>> = KNOWN
        .iter()
        .map(|(_, frames, _)| tshark_frames(&merged, frames))
        .collect();
    let used = Mutex::new(vec![false; KNOWN.len()]);
    let failures = Mutex::new(Vec::new());
    let next_filter = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some((filter, tshark_form)) =
                    FILTERS.get(next_filter.fetch_add(1, Ordering::Relaxed))
                {
                    let theirs = tshark_frames(&merged, tshark_form.unwrap_or(filter));
                    let ours = rdmadump_frames(&merged, filter);
                    for frame in theirs.symmetric_difference(&ours) {
                        // Every entry that explains the difference counts as used.
                        let known: Vec<usize> = KNOWN
                            .iter()
                            .zip(&explained)
                            .enumerate()
                            .filter(|(_, ((words, _, _), frames))| {
                                words.iter().any(|w| filter.contains(w)) && frames.contains(frame)
                            })
                            .map(|(i, _)| i)
                            .collect();
                        match known.is_empty() {
                            false => known.iter().for_each(|&i| used.lock().unwrap()[i] = true),
                            true => {
                                let (file, n) = file_of(*frame);
                                let who = if ours.contains(frame) {
                                    "only rdmadump"
                                } else {
                                    "only tshark"
                                };
                                failures
                                    .lock()
                                    .unwrap()
                                    .push(format!("{filter}: {file} frame {n}: {who}"));
                            }
                        }
                    }
                }
            });
        }
    });
    for (used, (_, frames, reason)) in used.into_inner().unwrap().iter().zip(KNOWN) {
        assert!(
            used,
            "KNOWN entry `{frames}` explains no difference any more: {reason}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Wireshark names rdmadump accepts that tshark 4.0 does not know: `rroce` (the
/// protocol tshark 4.0 shows as RRoCE has no filter name there), compared in `FILTERS`
/// with what it stands for.
const NOT_IN_TSHARK_4_0: &[&str] = &["rroce"];

/// Every Wireshark name rdmadump accepts (as `rdmadump fields --json` lists them).
fn wireshark_names() -> Vec<String> {
    let out = rdmadump(&["fields", "--json"]);
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    list.iter()
        .flat_map(|e| e["wireshark"].as_array().unwrap().clone())
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// tshark's field types, from `tshark -G fields`.
fn tshark_types() -> std::collections::HashMap<String, String> {
    let out = Command::new("tshark")
        .args(["-G", "fields"])
        .output()
        .expect("run tshark");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            match cols.as_slice() {
                ["F", _, name, ty, ..] => Some((name.to_string(), ty.to_string())),
                ["P", _, name, ..] => Some((name.to_string(), "FT_PROTOCOL".to_string())),
                _ => None,
            }
        })
        .collect()
}

/// One tshark value as the text rdmadump's is compared with.
fn normal(ty: &str, text: &str) -> String {
    let number = |t: &str| -> Option<u64> {
        match t.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.split_whitespace().next()?.parse().ok(),
        }
    };
    match ty {
        "FT_BYTES" => u64::from_str_radix(&text.replace(':', ""), 16)
            .map(|n| n.to_string())
            .unwrap_or_else(|_| text.to_string()),
        t if t.starts_with("FT_UINT") => number(text)
            .map(|n| n.to_string())
            .unwrap_or_else(|| text.to_string()),
        _ => text.to_string(),
    }
}

fn ours(value: rdmadump::fields::Value) -> String {
    use rdmadump::fields::Value;
    match value {
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => u8::from(b).to_string(),
        Value::Str(s) => s.to_string(),
        Value::Ip(ip) => ip.to_string(),
        Value::Mac(m) => m.map(|b| format!("{b:02x}")).join(":"),
        Value::Time(ns) => format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000),
    }
}

/// `tshark -T fields -e NAME` against rdmadump's value of the same name, for every
/// Wireshark name rdmadump accepts, frame by frame. A name whose tshark type is a whole
/// header or protocol (bytes, none) is compared by presence alone.
#[test]
fn wireshark_names_have_the_values_tshark_gives() {
    if !crate::harness::wireshark_tools() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("rdmadump-field-diff-{}", std::process::id()));
    let (merged, file_of) = merge(&dir);
    let names = wireshark_names();
    assert!(names.len() > 100, "{}", names.len());
    let types = tshark_types();
    // Newer Wireshark names that tshark 4.0 lacks, and times tshark prints as dates.
    let names: Vec<String> = names
        .into_iter()
        .filter(|name| !NOT_IN_TSHARK_4_0.contains(&name.as_str()))
        .filter(|name| types.get(name).is_none_or(|t| t != "FT_ABSOLUTE_TIME"))
        .collect();
    for name in &names {
        assert!(types.contains_key(name), "tshark 4.0 has no field `{name}`");
    }
    let mut tshark = Command::new("tshark");
    tshark.args(["-n", "-r"]).arg(&merged).args([
        "-T",
        "fields",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=,",
    ]);
    for name in &names {
        tshark.args(["-e", name]);
    }
    let out = tshark.output().expect("run tshark");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = String::from_utf8_lossy(&out.stdout).into_owned();
    let known_here: Vec<_> = KNOWN.iter().chain(KNOWN_VALUES).collect();
    let explained: Vec<BTreeSet<u64>> = known_here
        .iter()
        .map(|(_, f, _)| tshark_frames(&merged, f))
        .collect();

    let bytes = std::fs::read(&merged).unwrap();
    let mut reader =
        rdmadump::capture::CaptureReader::new(rdmadump::capture::SliceInput::new(&bytes)).unwrap();
    let mut decoder = rdmadump::dissect::Decoder::new(rdmadump::dissect::DecodeOptions::default());
    let fields: Vec<_> = names
        .iter()
        .map(|n| rdmadump::filter::find_field(n).unwrap())
        .collect();
    let mut failures = Vec::new();
    let mut lines = theirs.lines();
    let mut frame = 0;
    while reader.advance().unwrap() {
        let Some(record) = reader.current() else {
            break;
        };
        frame += 1;
        let pkt = decoder.decode(&record, frame);
        let line = lines.next().expect("a tshark line per frame");
        for ((name, field), text) in names.iter().zip(&fields).zip(line.split('\t')) {
            let ty = types[name].as_str();
            let presence = matches!(ty, "FT_PROTOCOL" | "FT_NONE")
                || ty == "FT_BYTES" && field.ty != rdmadump::fields::Type::Int;
            let mut want: Vec<String> = text
                .split(',')
                .filter(|t| !t.is_empty())
                .map(|t| normal(ty, t))
                .collect();
            let mut got: Vec<String> = match field.each {
                Some(each) => each.values(&pkt).map(ours).collect(),
                None => (field.get)(&pkt).into_iter().map(ours).collect(),
            };
            if presence {
                want = vec![(!want.is_empty()).to_string()];
                got = vec![(!got.is_empty()).to_string()];
            }
            want.sort();
            want.dedup();
            got.sort();
            got.dedup();
            if want == got {
                continue;
            }
            let known = known_here
                .iter()
                .zip(&explained)
                .any(|((words, _, _), frames)| {
                    words.iter().any(|w| name.contains(w)) && frames.contains(&frame)
                });
            if !known {
                let (file, n) = file_of(frame);
                failures.push(format!(
                    "{name}: {file} frame {n}: tshark {want:?}, rdmadump {got:?}"
                ));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A repeated field says how many occurrences a frame can have (`Each::max`), and filters
/// and `-e` look no further: no frame of any capture may have one past it. (`-e` once
/// stopped at four, and a PFC frame's classes 4-7 went missing.)
#[test]
fn no_frame_has_an_occurrence_past_its_fields_maximum() {
    let repeated: Vec<(&str, rdmadump::fields::Each)> = rdmadump::fields::all()
        .filter_map(|field| Some((field.name, field.each?)))
        .collect();
    assert!(repeated.len() > 10, "{}", repeated.len());
    let mut occurrences = 0;
    for path in captures() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(mut reader) =
            rdmadump::capture::CaptureReader::new(rdmadump::capture::SliceInput::new(&bytes))
        else {
            continue;
        };
        let mut decoder =
            rdmadump::dissect::Decoder::new(rdmadump::dissect::DecodeOptions::default());
        let mut frame = 0;
        while let Ok(true) = reader.advance() {
            let Some(record) = reader.current() else {
                break;
            };
            frame += 1;
            let pkt = decoder.decode(&record, frame);
            for (name, each) in &repeated {
                occurrences += each.values(&pkt).count();
                for i in each.max..each.max + 64 {
                    assert!(
                        (each.get)(&pkt, i).is_none(),
                        "{name}: frame {frame} of {} has occurrence {i}, past its {}",
                        path.display(),
                        each.max
                    );
                }
            }
        }
    }
    assert!(occurrences > 1000, "{occurrences}");
}
