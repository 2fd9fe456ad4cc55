//! ../shared/captures/infiniband-erf.pcap: 43 native IB packets from real hardware, whose
//! ICRC and VCRC were checked valid with an independent implementation (see its README).

use crate::harness::{read_json, real_capture};

#[test]
fn all_43_packets_verify() {
    let frames = read_json(&real_capture(), &[]);
    assert_eq!(frames.len(), 43);
    for frame in &frames {
        assert_eq!(frame["kind"], "ib", "{frame}");
        assert_eq!(frame["icrc"]["status"], "ok", "{frame}");
        assert_eq!(frame["vcrc"]["status"], "ok", "{frame}");
    }
}
