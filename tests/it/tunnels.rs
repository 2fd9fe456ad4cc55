//! Tunnels as users see them: the filter over the tunnel list and the text line. The decoded
//! values themselves are checked against the generator's truth (expected_fixtures) and tshark.

use crate::harness::{fixture, rdmadump_ok, stdout};

fn frames(filter: &str) -> Vec<u64> {
    let path = fixture("tunnels.pcap");
    let out = rdmadump_ok(&["read", "--json", "-Y", filter, path.to_str().unwrap()]);
    stdout(&out)
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["frame"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn a_tunnel_field_matches_when_any_tunnel_of_the_frame_matches() {
    // Frame 12 is VXLAN (VNI 99) inside GRE (key 1): either entry may match.
    assert_eq!(
        frames(r#"tunnel.type == "vxlan" && tunnel.type == "gre""#),
        [12]
    );
    assert_eq!(frames("tunnel.vni == 99 && tunnel.key == 1"), [12]);
    assert_eq!(frames(r#"tunnel.src == "172.16.0.1""#), [12]);
    assert_eq!(frames("tunnel.session_id == 1023"), [2]);
    assert_eq!(frames("tunnel.version == 1"), [1, 17]);
    assert_eq!(frames("truncated && tunnel.type == \"erspan\""), [17]);
    assert_eq!(frames("tunnel.proto == 0x86dd"), [6]);
    assert_eq!(frames("tunnel_too_deep"), [16]);
    // GRE version 1 is not decapsulated, nor is VXLAN under a UDP length that lies;
    // everything else in the file is.
    assert_eq!(frames("!tunnel"), [15, 19]);
    assert_eq!(
        frames(r#"tunnel.type == "erspan" && !tunnel.version"#),
        [18]
    );
    // The top-level fields are the inner frame's.
    assert_eq!(
        frames(r#"tunnel && ip.src == "10.0.0.1""#),
        Vec::<u64>::new()
    );
    assert_eq!(
        frames(r#"tunnel.type == "vxlan" && icrc.status == "bad""#),
        [9]
    );
}

#[test]
fn the_text_line_puts_each_tunnel_before_the_inner_frame_after_the_kind() {
    let path = fixture("tunnels.pcap");
    let text = stdout(&rdmadump_ok(&["read", path.to_str().unwrap()]));
    let line = text.lines().nth(11).unwrap();
    let (_, rest) = line.split_once(" roce_v2   ").unwrap();
    assert!(
        rest.starts_with(
            "gre 10.0.0.1 > 10.0.0.2 proto 0x6558 key 0x1 | \
             vxlan 172.16.0.1 > 172.16.0.2 vni 99 | 192.168.10.1 > 192.168.10.2 RC_SEND_ONLY"
        ),
        "{line}"
    );
}
