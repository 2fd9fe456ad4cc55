//! `--memory`: at the budget the least useful connections go first, and every output says
//! what went and what it carried; below it, nothing changes. The capture is built here,
//! so what the budget must keep and what it may drop is known by construction.

use serde_json::Value;

use crate::harness::{rc_send_only, rdmadump_ok, stdout};

/// Bytes of each frame below: Ethernet, IPv4, UDP, BTH, ICRC, no payload.
const FRAME_LEN: u64 = 14 + 20 + 8 + 12 + 4;
/// Busy QPs, each sending 40 requests then going back 10 PSNs: 10 retransmissions each.
const BUSY: u32 = 4;
const BUSY_REQUESTS: u64 = 50;
/// Quiet QPs, one request each: the least useful state there is.
const QUIET: u32 = 6_000;

/// An RC SEND_ONLY from 10.0.0.1 to 10.0.0.2, QP `qp`, PSN `psn`, with its ICRC: the
/// CRC-32 of the headers with their variant fields set to ones (IBA A16.4.1).
fn request(qp: u32, psn: u32) -> Vec<u8> {
    let f = rc_send_only([10, 0, 0, 1], [10, 0, 0, 2], qp, psn, false, &[]);
    assert_eq!(f.len() as u64, FRAME_LEN);
    f
}

/// The busy QPs first (so the oldest state is the one worth keeping), then the quiet ones.
fn capture() -> tempfile::NamedTempFile {
    let mut frames = Vec::new();
    for qp in 0..BUSY {
        let psns = (0..40).chain(30..40);
        frames.extend(psns.map(|psn| request(0x10 + qp, psn)));
    }
    frames.extend((0..QUIET).map(|i| request(0x1000 + i, 0)));
    let mut out = Vec::new();
    for word in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        let len = f.len() as u32;
        for word in [1_700_000_000, i as u32, len, len] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    let file = tempfile::Builder::new().suffix(".pcap").tempfile().unwrap();
    std::fs::write(file.path(), out).unwrap();
    file
}

fn json(args: &[&str]) -> Value {
    serde_json::from_slice(&rdmadump_ok(args).stdout).unwrap()
}

#[test]
fn a_small_budget_evicts_the_quiet_connections_and_says_what_they_carried() {
    let cap = capture();
    let path = cap.path().to_str().unwrap();
    let report = json(&["analyze", "--json", "--memory", "2M", path]);
    let budget = &report["budget"];
    assert_eq!(budget["limit"], 2 << 20);
    let evicted_flows = budget["evicted_flows"].as_u64().unwrap();
    let evicted_ends = budget["evicted_ends"].as_u64().unwrap();
    let flows = report["flows"].as_array().unwrap();
    // Every request goes to a QP of its own: one flow and one end each.
    let all = u64::from(BUSY + QUIET);
    assert!(evicted_flows > 0);
    assert_eq!(evicted_flows + flows.len() as u64, all);
    assert_eq!(
        evicted_ends + report["connections"].as_array().unwrap().len() as u64,
        all
    );
    // Only quiet flows went, one packet each.
    assert_eq!(budget["evicted_packets"].as_u64(), Some(evicted_flows));
    assert_eq!(
        budget["evicted_bytes"].as_u64(),
        Some(evicted_flows * FRAME_LEN)
    );
    assert_eq!(budget["evicted_series"], 0);
    for qp in 0..BUSY {
        let flow = flows
            .iter()
            .find(|f| f["dest_qp"] == 0x10 + qp)
            .unwrap_or_else(|| panic!("busy QP {qp} evicted"));
        assert_eq!(flow["packets"].as_u64(), Some(BUSY_REQUESTS));
        assert_eq!(flow["retransmitted"], 10);
    }
    // The totals still count every packet.
    assert_eq!(
        report["capture"]["analyzed"].as_u64(),
        Some(u64::from(BUSY) * BUSY_REQUESTS + u64::from(QUIET))
    );
    let peak = budget["peak_estimate"].as_u64().unwrap();
    assert!(peak > 0 && peak <= 2 << 20, "peak estimate {peak}");

    let text = stdout(&rdmadump_ok(&["analyze", "--memory", "2M", path]));
    let sentence =
        format!("evicted {evicted_ends} connection ends, {evicted_flows} flows and 0 time series");
    assert!(text.contains("memory budget reached (2 MiB"), "{text}");
    assert!(text.contains(&sentence), "{text}");
    assert!(
        text.contains(&format!("carried {evicted_flows} packets")),
        "{text}"
    );
}

#[test]
fn the_html_series_are_bounded_and_the_page_says_so() {
    let cap = capture();
    let path = cap.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let page = page.to_str().unwrap();
    let report = json(&["analyze", "--json", "--memory", "2M", "--html", page, path]);
    let budget = &report["budget"];
    assert!(budget["evicted_series"].as_u64().unwrap() > 0, "{budget}");
    let html = std::fs::read_to_string(page).unwrap();
    assert!(html.contains("memory budget reached (2 MiB"));
    // The busy QPs keep their time sequences: they are drawn first.
    assert!(html.contains("Time sequence"));
}

#[test]
fn below_the_budget_nothing_changes() {
    let cap = capture();
    let path = cap.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for args in [&["analyze", "--json"][..], &["analyze"]] {
        let plain = rdmadump_ok(&[args, &[path]].concat()).stdout;
        let roomy = rdmadump_ok(&[args, &["--memory", "1G", path]].concat()).stdout;
        assert_eq!(plain, roomy, "{args:?}");
        assert!(!String::from_utf8_lossy(&plain).contains("budget"));
    }
    let pages = ["plain.html", "roomy.html"].map(|n| dir.path().join(n));
    let [plain, roomy] = pages.each_ref().map(|p| p.to_str().unwrap());
    rdmadump_ok(&["analyze", "--html", plain, path]);
    rdmadump_ok(&["analyze", "--html", roomy, "--memory", "1G", path]);
    assert_eq!(std::fs::read(plain).unwrap(), std::fs::read(roomy).unwrap());
}
