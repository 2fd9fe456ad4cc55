//! The real capture infiniband-erf.pcap (CONTRIBUTING.md): 43 native IB packets from real hardware, whose
//! ICRC and VCRC were checked valid with an independent implementation (see its README).

use crate::harness::{read_json, real_capture};

#[test]
fn all_43_packets_verify() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let frames = read_json(&real, &[]);
    assert_eq!(frames.len(), 43);
    for frame in &frames {
        assert_eq!(frame["kind"], "ib", "{frame}");
        assert_eq!(frame["icrc"]["status"], "ok", "{frame}");
        assert_eq!(frame["vcrc"]["status"], "ok", "{frame}");
    }
}

/// What a reader of the capture can check by eye: the RC connections (LID 4 <-> LID 1 and
/// LID 2 <-> LID 4) send PSN-consecutive SEND Onlys, each acknowledged; the UD management
/// traffic (QP0/QP1 MADs, IPoIB multicast) is not sequence-checked, because UD senders
/// share destination QPs.
#[test]
fn analyze_finds_clean_rc_connections() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let out = crate::harness::rdmadump(&["analyze", "--json", real.to_str().unwrap()]);
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["capture"]["packets"], 43);
    assert_eq!(doc["counts"]["ib"], 43);
    assert_eq!(doc["icrc"]["ok"], 43);
    assert_eq!(doc["vcrc"]["ok"], 43);
    assert_eq!(
        doc["anomalies"].as_array().unwrap().len(),
        0,
        "{}",
        doc["anomalies"]
    );
    let flows = doc["flows"].as_array().unwrap();
    let flow = |src: &str, dst: &str, qp: u64, role: &str| {
        flows
            .iter()
            .find(|f| f["src"] == src && f["dst"] == dst && f["dest_qp"] == qp && f["role"] == role)
            .unwrap_or_else(|| panic!("no flow {src} > {dst} {qp:#x} {role}"))
    };
    let sends = flow("lid 4", "lid 1", 0xfc0407, "request");
    assert_eq!(sends["packets"], 6);
    assert_eq!(sends["first_psn"], 13896277);
    assert_eq!(sends["last_psn"], 13896282);
    assert_eq!(sends["psn_gaps"], 0);
    let acks = flow("lid 1", "lid 4", 0x870408, "response");
    assert_eq!(acks["packets"], 6);
    assert_eq!(acks["naks"], 0);
}
