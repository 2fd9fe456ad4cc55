//! Every fixture against the truth its generator wrote down (fixtures/expected/*.json), from
//! how it built each frame: scapy's ICRC, deliberate corruption, deliberate truncation.
//! Nothing here comes from rdmadump's own code.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, read_json, stderr};

/// Expected-file key → (rdmadump JSON path, how to convert the expected value).
const SCALARS: &[(&str, &str)] = &[
    ("kind", "kind"),
    ("caplen", "caplen"),
    ("orig_len", "len"),
    ("ts_ns", "ts_ns"),
    ("opcode", "bth.opcode"),
    ("opcode_name", "bth.opcode_name"),
    ("dest_qp", "bth.dest_qp"),
    ("psn", "bth.psn"),
    ("se", "bth.se"),
    ("migreq", "bth.migreq"),
    ("pad_cnt", "bth.pad"),
    ("tver", "bth.tver"),
    ("pkey", "bth.pkey"),
    ("fecn", "bth.fecn"),
    ("becn", "bth.becn"),
    ("ackreq", "bth.ack_req"),
    ("payload_len", "payload_len"),
    ("icrc", "icrc.status"),
    ("vcrc", "vcrc.status"),
];

/// (expected key, our object key, field renames).
type Nested = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const NESTED: &[Nested] = &[
    (
        "aeth",
        "aeth",
        &[
            ("syndrome", "syndrome"),
            ("msn", "msn"),
            ("type", "kind"),
            ("credit", "code"),
            ("rnr_timer", "code"),
            ("nak_code", "code"),
        ],
    ),
    (
        "reth",
        "reth",
        &[("va", "va"), ("rkey", "rkey"), ("dma_len", "dma_len")],
    ),
    ("deth", "deth", &[("qkey", "qkey"), ("src_qp", "src_qp")]),
    ("rdeth", "rdeth", &[("ee_ctx", "eecnxt")]),
    ("xrceth", "xrceth", &[("xrc_srq", "xrcsrq")]),
    (
        "atomiceth",
        "atomic_eth",
        &[
            ("va", "va"),
            ("rkey", "rkey"),
            ("swap", "swap"),
            ("compare", "compare"),
        ],
    ),
    ("atomicacketh", "atomic_ack_eth", &[("orig_data", "orig")]),
    ("immdt", "", &[("imm", "immdt")]),
    ("ieth", "", &[("rkey", "ieth")]),
    (
        "lrh",
        "lrh",
        &[
            ("vl", "vl"),
            ("lver", "lver"),
            ("sl", "sl"),
            ("lnh", "lnh"),
            ("dlid", "dlid"),
            ("pkt_len", "pktlen"),
            ("slid", "slid"),
        ],
    ),
    (
        "grh",
        "grh",
        &[
            ("tclass", "tclass"),
            ("flow_label", "flow_label"),
            ("paylen", "paylen"),
            ("nxthdr", "nxthdr"),
            ("hop_limit", "hoplmt"),
            ("sgid", "sgid"),
            ("dgid", "dgid"),
        ],
    ),
    (
        "ip",
        "ip",
        &[
            ("version", "version"),
            ("src", "src"),
            ("dst", "dst"),
            ("dscp", "dscp"),
            ("ecn", "ecn"),
            ("ttl", "ttl"),
            ("hop_limit", "ttl"),
            ("flow_label", "flow_label"),
        ],
    ),
    ("udp", "udp", &[("sport", "sport"), ("dport", "dport")]),
];

/// Offset of the damaged field inside its header, by the generator's field name.
fn field_offset(layer: &str, field: &str) -> usize {
    match (layer, field) {
        ("ipv4", "total_length") => 2,
        ("ipv6", "payload_length") => 4,
        ("udp", "length") => 4,
        ("bth", "pad_cnt") => 1,
        ("grh", "paylen") => 4,
        ("lrh", "pkt_len" | "pktlen") => 4,
        _ => 0,
    }
}

fn get<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(value, |v, key| match key.parse::<usize>() {
            Ok(index) => v.get(index),
            Err(_) => v.get(key),
        })
}

/// Booleans in our output, 0/1 in the generator's.
fn same(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(n), Value::Bool(b)) => n.as_u64() == Some(u64::from(*b)),
        _ => expected == actual,
    }
}

fn check_frame(file: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    let frame = want["frame"].as_u64().unwrap();
    if want["kind"] == "other" {
        // Not RDMA under these options (a custom port without --roce-port): the truth's
        // transport fields describe what the bytes would decode to, which rdmadump must not.
        if got["kind"] != "other" || got.get("bth").is_some() {
            problems.push(format!(
                "{file} frame {frame}: expected kind other without BTH, got {got}"
            ));
        }
        return;
    }
    let mut want = want.clone();
    if get(got, "truncated.layer") == Some(&Value::from("bth")) {
        // A BTH cut by the snaplen is not shown field by field: rdmadump's views are whole
        // headers. The truth lists the fields whose bytes were captured; that difference
        // is deliberate and confined to this case.
        for key in [
            "opcode",
            "opcode_name",
            "se",
            "migreq",
            "pad_cnt",
            "tver",
            "pkey",
        ] {
            want.as_object_mut().unwrap().remove(key);
        }
    }
    let want = &want;
    let mut compare = |key: &str, expected: &Value, path: &str| {
        let actual = get(got, path).cloned().unwrap_or(Value::Null);
        if !same(expected, &actual) {
            problems.push(format!(
                "{file} frame {frame} {key}: expected {expected}, rdmadump {path} = {actual}"
            ));
        }
    };
    for (key, path) in SCALARS {
        if let Some(expected) = want.get(*key) {
            compare(key, expected, path);
        }
    }
    for (key, prefix, fields) in NESTED {
        let Some(expected) = want.get(*key) else {
            continue;
        };
        for (sub, ours) in *fields {
            let Some(value) = expected.get(*sub) else {
                continue;
            };
            let path = if prefix.is_empty() {
                ours.to_string()
            } else {
                format!("{prefix}.{ours}")
            };
            compare(&format!("{key}.{sub}"), value, &path);
        }
    }
    if let Some(layer) = want.get("error_layer").and_then(Value::as_str) {
        compare("error_layer", &Value::from(layer), "error.layer");
        let start = want["error_offset"].as_u64().unwrap() as usize;
        let field = want
            .get("error_field")
            .and_then(Value::as_str)
            .unwrap_or("");
        compare(
            "error_offset",
            &Value::from(start + field_offset(layer, field)),
            "error.offset",
        );
    }
    if want.get("truncated") == Some(&Value::Bool(true)) && got.get("truncated").is_none() {
        compare("truncated", &Value::Bool(true), "truncated");
    }
    if let Some(control) = want.get("mac_control") {
        match control["opcode"].as_u64() {
            Some(0x0101) => {
                compare(
                    "class_enable_vector",
                    &control["class_enable_vector"],
                    "pfc.class_enable",
                );
                compare("quanta", &control["quanta"], "pfc.quanta");
            }
            _ => compare("quanta", &control["quanta"], "pause.quanta"),
        }
    }
    if let Some(vlans) = want.get("vlans").and_then(Value::as_array) {
        for (i, tag) in vlans.iter().enumerate() {
            compare("vlan.vid", &tag["vid"], &format!("eth.vlan.{i}.id"));
            compare("vlan.pcp", &tag["pcp"], &format!("eth.vlan.{i}.pcp"));
            compare("vlan.dei", &tag["dei"], &format!("eth.vlan.{i}.dei"));
        }
    }
}

fn check_fixture(file: &str, extra: &[&str], kind_key: &str) -> Vec<String> {
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("expected/{file}.json"))).unwrap(),
    )
    .unwrap();
    let frames = truth["frames"].as_array().unwrap();
    let got = read_json(&fixture(file), extra);
    let mut problems = Vec::new();
    if got.len() != frames.len() {
        problems.push(format!(
            "{file}: {} frames expected, rdmadump printed {}",
            frames.len(),
            got.len()
        ));
    }
    for (want, got) in frames.iter().zip(&got) {
        let mut want = want.clone();
        if let Some(kind) = want.get(kind_key).cloned() {
            want["kind"] = kind;
        }
        check_frame(file, &want, got, &mut problems);
    }
    problems
}

#[test]
fn every_fixture_matches_its_generator_truth() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(fixture("expected")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(file) = name.strip_suffix(".json") else {
            continue;
        };
        problems.extend(check_fixture(file, &[], "kind"));
        checked += 1;
    }
    problems.extend(check_fixture(
        "roce_v2_custom_port.pcap",
        &["--roce-port", "4792"],
        "kind_with_roce_port_4792",
    ));
    assert!(checked >= 20, "only {checked} expected files found");
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn a_capture_cut_short_yields_every_complete_record_and_warns() {
    let out = rdmadump(&[
        "read",
        "--json",
        fixture("cut_short.pcap").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    assert!(stderr(&out).contains("cut short"), "{}", stderr(&out));
}

#[test]
fn a_record_claiming_4_gib_is_refused_without_allocating_it() {
    let out = rdmadump(&[
        "read",
        "--json",
        fixture("huge_caplen.pcap").to_str().unwrap(),
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert!(stderr(&out).contains("offset 114"), "{}", stderr(&out));
    assert_eq!(out.status.code(), Some(2));
}
