//! The filter language from the command line: the field list, CNP selection, the errors a
//! user sees, and that every JSON leaf a filter should reach is a field. Expected frames
//! come from tshark (opcode 0x81 on the CNP scenario) or from the JSON itself.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::harness::{fixture, rdmadump, read_json, real_capture, root, stderr, stdout};

fn frames(args: &[&str]) -> Vec<u64> {
    let out = rdmadump(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn kind_cnp_selects_bth_opcode_0x81() {
    let file = fixture("scenarios/ecn_cnp.pcap");
    let file = file.to_str().unwrap();
    // tshark 4.0 -Y 'infiniband.bth.opcode == 129' on this file.
    let want = vec![17, 21, 25];
    assert_eq!(frames(&["read", "--kind", "cnp", file]), want);
    assert_eq!(frames(&["read", "-Y", "kind == cnp", file]), want);
    assert_eq!(
        frames(&["read", "-Y", "kind == \"cnp\" and kind == roce_v2", file]),
        want
    );
    let help = stdout(&rdmadump(&["read", "--help"]));
    assert!(help.contains("cnp:") && help.contains("0x81"), "{help}");
}

#[test]
fn bad_filters_say_what_was_meant_and_exit_2() {
    let capture = fixture("roce_v2_opcodes.pcap");
    for (filter, message) in [
        ("bth.dest_pq == 1", "did you mean `bth.dest_qp`?"),
        (
            "infiniband.payload",
            "rdmadump does not decode Wireshark's `infiniband.payload`; the nearest field is `payload_len`",
        ),
        (
            "ip.src == 10.0.0",
            "write 10.0.0.1, fe80::1 (GIDs too) or a CIDR block",
        ),
        (
            "eth.src == 02:00",
            "is not a MAC address: write 02:00:00:00:00:0a",
        ),
        ("bth.psn == 0xzz", "write decimal (17), hex (0x11)"),
    ] {
        let out = rdmadump(&["read", "-Y", filter, capture.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{filter}");
        assert!(stderr(&out).contains(message), "{filter}: {}", stderr(&out));
    }
}

#[test]
fn fields_lists_every_name_the_filter_takes() {
    let out = rdmadump(&["fields", "--json"]);
    assert!(out.status.success());
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(list.len() > 200, "{}", list.len());
    let capture = fixture("roce_v1.pcap");
    let mut names = Vec::new();
    for entry in &list {
        let description = entry["description"].as_str().unwrap();
        assert!(!description.is_empty(), "{entry}");
        assert!(
            ["int", "bool", "string", "ip", "mac", "time", "protocol"]
                .contains(&entry["type"].as_str().unwrap())
        );
        names.push(entry["name"].as_str().unwrap().to_string());
        for alias in entry["wireshark"].as_array().unwrap() {
            names.push(alias.as_str().unwrap().to_string());
        }
    }
    // One run with every name: each must be accepted.
    let all = names.join(" or ");
    let out = rdmadump(&["read", "-Y", &all, capture.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&rdmadump(&["fields"]));
    assert!(
        text.lines()
            .any(|l| l.starts_with("bth.dest_qp ") && l.contains("infiniband.bth.destqp")),
        "{text}"
    );
    assert_eq!(text.lines().count(), list.len());
}

/// Dotted paths of the leaves of a JSON object; list elements share their list's path.
fn leaves(value: &Value, path: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let p = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                leaves(v, &p, out);
            }
        }
        Value::Array(items) if items.iter().any(|v| v.is_object()) => {
            items.iter().for_each(|v| leaves(v, path, out));
        }
        _ => {
            out.insert(path.to_string());
        }
    }
}

/// JSON leaves no filter field reaches yet: the class-specific MAD bodies, the IP CM
/// private data, the ERSPAN and VXLAN header details, and the error messages, which are
/// formatted text.
const NOT_YET: &[&str] = &[
    "mad.dr.",
    "mad.m_key",
    "mad.node_info.",
    "mad.path_record.",
    "mad.port_counters.",
    "mad.port_info.",
    "mad.sa.",
    "mad.sm_info.",
    "cm.ip_cm.",
    "tunnel.cos",
    "tunnel.direction",
    "tunnel.dport",
    "tunnel.flags",
    "tunnel.hw_id",
    "tunnel.index",
    "tunnel.platform_id",
    "tunnel.sport",
    "tunnel.timestamp",
    "error.message",
    "truncated.message",
    "file",
];

#[test]
fn every_json_leaf_is_a_filter_field() {
    let mut paths = BTreeSet::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .collect();
    files.extend(real_capture("infiniband-erf.pcap"));
    for file in &files {
        for frame in read_json(file, &[]) {
            leaves(&frame, "", &mut paths);
        }
    }
    assert!(paths.len() > 150, "{}", paths.len());
    let wanted: Vec<&String> = paths
        .iter()
        .filter(|p| !NOT_YET.iter().any(|n| p.starts_with(n)))
        .collect();
    let missing: Vec<&&String> = wanted
        .iter()
        .filter(|p| {
            let out = rdmadump(&["read", "-Y", p, fixture("roce_v1.pcap").to_str().unwrap()]);
            !out.status.success()
        })
        .collect();
    assert!(
        missing.is_empty(),
        "JSON leaves no filter reaches: {missing:?}"
    );
}
