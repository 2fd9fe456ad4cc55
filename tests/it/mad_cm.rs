//! The CM exchanges and MADs of the two real captures, with the values tshark 4.0.17 shows:
//!
//!     tshark -r FILE -Y 'infiniband.mad.mgmtclass==7' -T fields -e frame.number \
//!         -e infiniband.cm.req.localqpn -e infiniband.cm.req.startpsn \
//!         -e infiniband.cm.rep.localqpn -e infiniband.cm.rep.startpsn ...
//!
//! tshark_diff compares every field on every frame; this test states the connection setup a
//! reader would look for, so that losing it is a readable failure of its own.

use serde_json::Value;

use crate::harness::{rdmadump, read_json, real_capture, real_captures_dir, stdout};

/// (frame, msg, local comm ID, local QPN, starting PSN) for REQ and REP; RTU/DREQ/DREP carry
/// no QPN or PSN (DREQ's remote QPN is checked separately).
type Cm = (u64, &'static str, u64, Option<u64>, Option<u64>);

const INFINIBAND_ERF: &[Cm] = &[
    (7, "req", 0xe948_8627, Some(0x87_0408), Some(0x00_0000)),
    (8, "rep", 0xf902_4539, Some(0xfc_0407), Some(0xd4_0a55)),
    (9, "rtu", 0xe948_8627, None, None),
    (27, "req", 0x3fd1_9ebf, Some(0x6c_004a), Some(0x00_0000)),
    (28, "rep", 0xea48_8627, Some(0x89_0407), Some(0xbd_15cb)),
    (29, "rtu", 0x3fd1_9ebf, None, None),
    (34, "req", 0xeb48_8627, Some(0x89_0408), Some(0x00_0000)),
    (35, "rep", 0x3ed1_9ebf, Some(0x6c_004b), Some(0x73_2328)),
    (37, "rtu", 0xeb48_8627, None, None),
];

const RDMA_CM_RXE: &[Cm] = &[
    (1, "req", 0xac66_08b9, Some(0x17), Some(0x89_bb0e)),
    (2, "rep", 0xc857_7fdb, Some(0x11), Some(0xc2_3298)),
    (3, "rtu", 0xac66_08b9, None, None),
    (11, "dreq", 0xac66_08b9, None, None),
    (16, "drep", 0xc857_7fdb, None, None),
];

fn check(name: &str, want: &[Cm]) -> Vec<Value> {
    let path = real_capture(name).expect("the caller checked for the real captures");
    let frames = read_json(&path, &[]);
    let cm: Vec<&Value> = frames.iter().filter(|f| f.get("cm").is_some()).collect();
    assert_eq!(cm.len(), want.len(), "{name}: CM frames");
    for (got, &(frame, msg, lcid, qpn, psn)) in cm.iter().zip(want) {
        let at = |key: &str| got["cm"].get(key).and_then(Value::as_u64);
        assert_eq!(got["frame"], frame, "{name}");
        assert_eq!(got["cm"]["msg"], msg, "{name} frame {frame}");
        assert_eq!(at("local_comm_id"), Some(lcid), "{name} frame {frame}");
        assert_eq!(at("local_qpn"), qpn, "{name} frame {frame}");
        assert_eq!(at("starting_psn"), psn, "{name} frame {frame}");
    }
    frames
}

#[test]
fn the_real_captures_cm_exchanges_are_tsharks() {
    if real_captures_dir().is_none() {
        return;
    }
    let erf = check("infiniband-erf.pcap", INFINIBAND_ERF);
    // Each REP answers the REQ before it, and each RTU names the REQ's ID.
    for req in [7, 27, 34] {
        let comm = |n: u64, key: &str| erf[n as usize - 1]["cm"][key].clone();
        assert_eq!(comm(req + 1, "remote_comm_id"), comm(req, "local_comm_id"));
    }
    let rxe = check("rdma-cm-rxe.pcap", RDMA_CM_RXE);
    let req = &rxe[0]["cm"];
    assert_eq!(req["path_mtu"], 1024);
    assert_eq!(req["service_id"], 0x0106_1d2f_u64);
    assert_eq!(req["ip_cm"]["port"], 0x1d2f);
    assert_eq!(req["ip_cm"]["src_ip"], "192.168.2.25");
    assert_eq!(req["ip_cm"]["dst_ip"], "192.168.2.24");
    assert_eq!(rxe[10]["cm"]["remote_qpn"], 0x11);
}

#[test]
fn the_real_capture_names_its_mads_as_tshark_does() {
    let Some(path) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let text = stdout(&rdmadump(&["read", path.to_str().unwrap()]));
    let lines: Vec<&str> = text.lines().collect();
    // tshark's Info column for the same frames.
    for (frame, name) in [
        (1, "SubnGet(SMInfo)"),
        (2, "SubnGetResp(SMInfo)"),
        (12, "SubnGet(SMInfo)"),
        (13, "SubnGetResp(SMInfo)"),
        (32, "SubnAdmGet(PathRecord)"),
        (33, "SubnAdmGetResp(PathRecord)"),
        (7, "CM ConnectRequest"),
        (8, "CM ConnectReply"),
        (9, "CM ReadyToUse"),
    ] {
        assert!(
            lines[frame - 1].contains(name),
            "frame {frame}: {}",
            lines[frame - 1]
        );
    }
}

#[test]
fn filters_name_mad_and_cm_fields() {
    let Some(path) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let numbers = |expr: &str| -> Vec<u64> {
        read_json(&path, &["-Y", expr])
            .iter()
            .map(|f| f["frame"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(numbers(r#"cm.msg == "rep""#), [8, 28, 35]);
    assert_eq!(numbers("cm.local_qpn == 0x890408"), [34]);
    assert_eq!(
        numbers("mad.class == 0x81 && mad.method == 0x81"),
        [2, 13, 42]
    );
    assert_eq!(numbers(r#"mad.attr_name == "PathRecord""#), [32, 33]);
    assert_eq!(numbers("mad && !cm").len(), 8);
}
