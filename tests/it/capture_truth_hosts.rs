//! Issue 29, three parts, against truths written down when the fixtures were built
//! (fixtures/capture_truth/expected.json by make_capture_truth.py, fixtures/hosts/expected.json
//! by make_hosts.py): one host however it is addressed (RoCE v1 IPv4-mapped and link-local
//! GIDs beside RoCE v2 over IPv4), messages counted as the sender posted them, and PFC in
//! Linux cooked captures and tunnels.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::harness::{fixture, rdmadump, read_json, stderr, stdout};

fn truth(dir: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("{dir}/expected.json"))).unwrap();
    let mut truth: Value = serde_json::from_str(&text).unwrap();
    if let Some(map) = truth.as_object_mut() {
        map.remove("conventions");
    }
    truth
}

fn run(args: &[&str]) -> String {
    let out = rdmadump(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn analyze(path: &str) -> Value {
    serde_json::from_str(&run(&["analyze", "--json", path])).expect("one JSON document")
}

fn path(dir: &str, name: &str) -> String {
    fixture(&format!("{dir}/{name}"))
        .to_str()
        .unwrap()
        .to_string()
}

/// The connection of `got` with the ends `want` names.
fn find<'a>(got: &'a Value, want: &Value) -> Option<&'a Value> {
    got["connections"].as_array()?.iter().find(|c| {
        ["a", "b"]
            .iter()
            .all(|end| c[end]["addr"] == want[end]["addr"] && c[end]["qpn"] == want[end]["qpn"])
    })
}

/// Every key the truth gives for a connection, as the truth's conventions assert them:
/// a direction listed as null has no traffic, a direction object lists only what it asserts.
fn check_connections(name: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    let want = want["connections"].as_array().unwrap();
    let count = got["connections"].as_array().map_or(0, Vec::len);
    if count != want.len() {
        problems.push(format!(
            "{name}: {} connections expected, got {count}",
            want.len()
        ));
    }
    for w in want {
        let Some(g) = find(got, w) else {
            problems.push(format!("{name}: no connection {} ↔ {}", w["a"], w["b"]));
            continue;
        };
        for key in ["transport", "paired_by", "pairing_candidates", "path_mtu"] {
            if w.get(key).is_some() && w[key] != g[key] {
                problems.push(format!(
                    "{name}: {} {key}: expected {}, got {}",
                    w["a"], w[key], g[key]
                ));
            }
        }
        for dir in ["a_to_b", "b_to_a"] {
            let (wd, gd) = (&w[dir], &g[dir]);
            if wd.is_null() {
                if !gd.is_null() {
                    problems.push(format!("{name}: {} {dir}: expected none, got {gd}", w["a"]));
                }
                continue;
            }
            for (key, value) in wd.as_object().unwrap() {
                // Capture loss is another part of issue 29.
                if key == "capture_loss" {
                    continue;
                }
                if gd[key] != *value {
                    problems.push(format!(
                        "{name}: {} {dir}.{key}: expected {value}, got {}",
                        w["a"], gd[key]
                    ));
                }
            }
        }
    }
}

fn check_anomalies(name: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    let Some(want) = want.get("anomaly_counts").and_then(Value::as_object) else {
        return;
    };
    for (kind, n) in want {
        let g = got["anomaly_counts"]
            .get(kind)
            .cloned()
            .unwrap_or(Value::from(0));
        if g != *n {
            problems.push(format!("{name}: anomaly {kind}: expected {n}, got {g}"));
        }
    }
}

fn check_frames(name: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    if got["capture"]["packets"] != want["frames"] {
        problems.push(format!(
            "{name}: {} frames expected, got {}",
            want["frames"], got["capture"]["packets"]
        ));
    }
}

fn pair(a: &Value, b: &Value) -> (String, String) {
    let (a, b) = (
        a.as_str().unwrap().to_string(),
        b.as_str().unwrap().to_string(),
    );
    if a <= b { (a, b) } else { (b, a) }
}

/// The mixed RoCE v1/v2 truths: pairing, host pairs, and no address shown as a GID in the
/// text, JSON or HTML report.
fn check_one_host(dir: &str, name: &str) {
    let want = &truth(dir)[name];
    let file = path(dir, name);
    let got = analyze(&file);
    let mut problems = Vec::new();
    check_frames(name, want, &got, &mut problems);
    check_anomalies(name, want, &got, &mut problems);
    check_connections(name, want, &got, &mut problems);

    let hosts: BTreeSet<(String, String)> = got["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| pair(&c["a"]["addr"], &c["b"]["addr"]))
        .collect();
    let want_hosts: BTreeSet<(String, String)> = want["host_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| pair(&p[0], &p[1]))
        .collect();
    if hosts != want_hosts {
        problems.push(format!(
            "{name}: host pairs {hosts:?}, expected {want_hosts:?}"
        ));
    }

    let shown: BTreeSet<&str> = want["displayed_addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let mut json_addresses = BTreeSet::new();
    for c in got["connections"].as_array().unwrap() {
        json_addresses.insert(c["a"]["addr"].as_str().unwrap().to_string());
        json_addresses.insert(c["b"]["addr"].as_str().unwrap().to_string());
    }
    for f in got["flows"].as_array().unwrap() {
        json_addresses.insert(f["src"].as_str().unwrap().to_string());
        json_addresses.insert(f["dst"].as_str().unwrap().to_string());
    }
    for a in &json_addresses {
        if !shown.contains(a.as_str()) {
            problems.push(format!("{name}: JSON shows address {a}"));
        }
    }
    let text = run(&["analyze", &file]);
    let dir_html = tempfile::tempdir().unwrap();
    let html_path = dir_html.path().join("report.html");
    run(&["analyze", "--html", html_path.to_str().unwrap(), &file]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    for (what, out) in [("text", &text), ("HTML", &html)] {
        for gid in ["::ffff:", "fe80:"] {
            if out.contains(gid) {
                problems.push(format!("{name}: the {what} report shows a {gid} GID"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn ipv4_mapped_gids_and_ipv4_are_one_host() {
    check_one_host("capture_truth", "mixed_v1_v2.pcap");
}

#[test]
fn link_local_gids_are_the_ipv4_host_of_their_mac() {
    check_one_host("hosts", "link_local_v1_v2.pcap");
}

/// `read --json` still shows each RoCE v1 packet's GIDs as they are.
#[test]
fn read_keeps_the_raw_gids() {
    let want = &truth("hosts")["link_local_v1_v2.pcap"];
    let gids: BTreeSet<String> = want["grh_gids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap().to_string())
        .collect();
    let frames = read_json(&fixture("hosts/link_local_v1_v2.pcap"), &[]);
    let mut seen = BTreeSet::new();
    for f in frames.iter().filter(|f| f["kind"] == "roce_v1") {
        seen.insert(f["grh"]["sgid"].as_str().unwrap().to_string());
        seen.insert(f["grh"]["dgid"].as_str().unwrap().to_string());
    }
    assert_eq!(seen, gids);
    let mapped = read_json(&fixture("capture_truth/mixed_v1_v2.pcap"), &[]);
    assert!(mapped.iter().filter(|f| f["kind"] == "roce_v1").all(|f| {
        f["grh"]["sgid"]
            .as_str()
            .unwrap()
            .starts_with("::ffff:10.29.6.")
    }));
}

#[test]
fn messages_are_counted_by_their_last_packet_and_once() {
    let name = "immediates.pcap";
    let want = &truth("capture_truth")[name];
    let got = analyze(&path("capture_truth", name));
    let mut problems = Vec::new();
    check_frames(name, want, &got, &mut problems);
    check_anomalies(name, want, &got, &mut problems);
    check_connections(name, want, &got, &mut problems);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `--qp`: the header gives the packets analysed and the capture's total beside them.
#[test]
fn qp_header_gives_both_packet_counts() {
    let name = "mixed_v1_v2.pcap";
    let want = &truth("capture_truth")[name];
    let c = &want["connections"][0];
    let qpn = c["b"]["qpn"].as_u64().unwrap();
    let text = run(&[
        "analyze",
        "--qp",
        &qpn.to_string(),
        &path("capture_truth", name),
    ]);
    let line = format!(
        "  {} packets analysed (--qp {qpn:#x}), {} in the capture,",
        c["a_to_b"]["packets"], want["frames"]
    );
    assert!(text.contains(&line), "no {line:?} in:\n{text}");
}

fn check_pfc(name: &str) {
    let want = &truth("capture_truth")[name];
    let got = analyze(&path("capture_truth", name));
    let mut problems = Vec::new();
    check_frames(name, want, &got, &mut problems);
    for (kind, n) in want["kinds"].as_object().unwrap() {
        if got["counts"][kind] != *n {
            problems.push(format!(
                "{name}: counts.{kind}: expected {n}, got {}",
                got["counts"][kind]
            ));
        }
    }
    let (wp, gp) = (&want["pfc"], &got["pfc"]);
    let gbps = gp["link_speed_bps"].as_u64().unwrap() / 1_000_000_000;
    if gbps != wp["link_speed_gbps"] {
        problems.push(format!("{name}: link speed {gbps} Gb/s"));
    }
    for key in ["storms", "cascades"] {
        if gp[key] != wp[key] {
            problems.push(format!("{name}: pfc.{key}: {}", gp[key]));
        }
    }
    let senders = gp["senders"].as_array().unwrap();
    let row = |src: &Value, priority: Value| {
        senders
            .iter()
            .find(|s| s["src"] == *src && s["priority"] == priority)
    };
    let want_senders = wp["senders"].as_array().unwrap();
    let pause = &wp["pause_8023x"];
    // Every PFC frame is in pfc.frames, every PAUSE in pfc.pause_8023x.
    if gp["frames"] != want["kinds"]["pfc"] || gp["pause_8023x"] != pause["frames"] {
        problems.push(format!(
            "{name}: pfc.frames {}, pfc.pause_8023x {}",
            gp["frames"], gp["pause_8023x"]
        ));
    }
    if senders.len() != want_senders.len() + 1 {
        problems.push(format!("{name}: {} sender rows", senders.len()));
    }
    let rows = want_senders
        .iter()
        .map(|w| (w, w["priority"].clone()))
        .chain([(pause, Value::from("all"))]);
    for (w, priority) in rows {
        let Some(g) = row(&w["src"], priority.clone()) else {
            problems.push(format!(
                "{name}: no sender {} priority {priority}",
                w["src"]
            ));
            continue;
        };
        for key in ["frames", "pause_frames", "xon_frames", "paused_ns"] {
            if g[key] != w[key] {
                problems.push(format!(
                    "{name}: {} priority {priority} {key}: expected {}, got {}",
                    w["src"], w[key], g[key]
                ));
            }
        }
    }
    check_connections(name, want, &got, &mut problems);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn pfc_in_linux_cooked_v1_is_analysed() {
    check_pfc("pfc_sll.pcap");
}

#[test]
fn pfc_in_linux_cooked_v2_is_analysed() {
    check_pfc("pfc_sll2.pcap");
}

/// A classic pcap (linktype 1) of the given frames, 1 ms apart.
fn pcap(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for word in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        let len = f.len() as u32;
        for word in [1_700_000_000, 1000 * i as u32, len, len] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    out
}

/// An Ethernet header: destination, source, EtherType.
fn ethernet(dst: [u8; 6], src: [u8; 6], ethertype: u16) -> Vec<u8> {
    let mut f = Vec::from(dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f
}

/// IPv4 (no options, checksum left 0, which the dissector does not require) around `body`.
fn ipv4(protocol: u8, body: &[u8]) -> Vec<u8> {
    let total = (20 + body.len()) as u16;
    let mut ip = vec![0x45, 0];
    ip.extend_from_slice(&total.to_be_bytes());
    ip.extend_from_slice(&[0, 0, 0x40, 0, 64, protocol, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    ip.extend_from_slice(body);
    ip
}

/// PFC inside a mirror is analysed with the mirrored frame's sender: VXLAN (UDP 4789) and
/// GRE transparent Ethernet bridging (0x6558), each around one PFC frame that pauses
/// priority 3 for 1000 quanta (5 120 ns at 100 Gb/s), from a sender typed in here.
#[test]
fn pfc_inside_a_tunnel_names_the_mirrored_sender() {
    const SENDER: [u8; 6] = [0x02, 0, 0, 0, 0x77, 0x01];
    let outer_macs = ([0x02, 0, 0, 0, 0x01, 0x02], [0x02, 0, 0, 0, 0x01, 0x01]);
    // 802.1Qbb: opcode 0x0101, class-enable vector (priority 3), eight quanta, padding.
    let mut inner = ethernet([0x01, 0x80, 0xc2, 0, 0, 0x01], SENDER, 0x8808);
    inner.extend_from_slice(&[0x01, 0x01, 0x00, 0x08]);
    for priority in 0..8u16 {
        let quanta: u16 = if priority == 3 { 1000 } else { 0 };
        inner.extend_from_slice(&quanta.to_be_bytes());
    }
    inner.resize(60, 0);

    let mut vxlan = Vec::new();
    let udp_len = (8 + 8 + inner.len()) as u16;
    vxlan.extend_from_slice(&[0xc3, 0x50, 0x12, 0xb5]);
    vxlan.extend_from_slice(&udp_len.to_be_bytes());
    vxlan.extend_from_slice(&[0, 0, 0x08, 0, 0, 0, 0, 0, 0x2a, 0]);
    vxlan.extend_from_slice(&inner);
    let mut gre = vec![0, 0, 0x65, 0x58];
    gre.extend_from_slice(&inner);

    let mut frames = Vec::new();
    for (protocol, body) in [(17u8, vxlan), (47, gre)] {
        let mut f = ethernet(outer_macs.0, outer_macs.1, 0x0800);
        f.extend_from_slice(&ipv4(protocol, &body));
        frames.push(f);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tunnelled_pfc.pcap");
    std::fs::write(&file, pcap(&frames)).unwrap();
    let got: Value =
        serde_json::from_str(&run(&["analyze", "--json", file.to_str().unwrap()])).unwrap();
    assert_eq!(got["counts"]["pfc"], 2, "{}", got["counts"]);
    assert_eq!(got["pfc"]["frames"], 2);
    let senders = got["pfc"]["senders"].as_array().unwrap();
    assert_eq!(senders.len(), 1, "{senders:?}");
    assert_eq!(senders[0]["src"], "02:00:00:00:77:01");
    assert_eq!(senders[0]["priority"], 3);
    assert_eq!(senders[0]["pause_frames"], 2);
    // The second frame, 1 ms later, finds the first pause long over: 2 x 5 120 ns.
    assert_eq!(senders[0]["paused_ns"], 10_240);
}
