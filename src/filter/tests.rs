//! The filter language end to end: text in, a verdict on a hand-built packet out. Expected
//! verdicts are worked out by hand from the packet built here, and the Wireshark forms
//! were each checked with tshark 4.0.17 on fixtures/roce_v2_opcodes.pcap.

use super::PacketFilter;
use super::parse::{MAX_DEPTH, parse};
use crate::dissect::Packet;

fn fails(text: &str) -> (usize, String) {
    let err = parse(text).expect_err(text);
    (err.column, err.message)
}

fn frame(n: u64) -> Packet<'static> {
    Packet {
        frame: n,
        len: 100,
        ts_ns: Some(1_700_000_000_001_000_000),
        ..Packet::default()
    }
}

fn verdict(text: &str, pkt: &Packet<'_>) -> bool {
    PacketFilter::from_expr(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .matches(pkt)
}

#[test]
fn error_messages_name_the_column() {
    for (text, column, message) in [
        ("bth.psn == 1 $", 14, "unexpected `$`"),
        ("bth.psn == 1 && &", 17, "expected a field name, `!` or `(`"),
        ("bth.psn = 1", 9, "unexpected `=`"),
        ("bth.psn == 1 && kind == \"pfc", 25, "string is not closed"),
        ("(kind == \"pfc\"", 15, "expected `)`"),
        ("(kind == \"pfc\" bth", 16, "expected `)`"),
        ("bth.psn == 1 &&", 16, "expression ends too early"),
        ("bth.psn == 1 ||  ", 18, "expression ends too early"),
        ("", 1, "expression ends too early"),
        ("!", 2, "expression ends too early"),
        ("not", 4, "expression ends too early"),
        ("bth.psn == 1 && )", 17, "expected a field name, `!` or `(`"),
        ("== 1", 1, "expected a field name, `!` or `(`"),
        ("bth.psn == 1 && 5", 17, "expected a field name, `!` or `(`"),
        ("ip.ecn == ", 11, "expected a value after the operator"),
        (
            "bth.psn == 1 bth",
            14,
            "unexpected text after the expression",
        ),
        (
            "bth.psn == 1 and or",
            18,
            "expected a field name, `!` or `(`",
        ),
        ("(bth) )", 7, "unexpected text after the expression"),
        ("bth.psn == \"1\"", 12, "`bth.psn` compares with a number"),
        ("bth.psn == (", 12, "`bth.psn` compares with a number"),
        (
            "bth.psn == ip.src",
            12,
            "`ip.src` is not a number: write decimal (17), hex (0x11), octal (021), binary (0b10001) or bytes (00:11)",
        ),
        (
            "bth.fecn == 2",
            13,
            "`bth.fecn` compares with true, false, 0 or 1",
        ),
        ("bth.fecn > 1", 10, "`bth.fecn` supports only == and !="),
        (
            "kind == 1",
            9,
            "`1` is not a value `kind` can take: roce_v1, roce_v2, ib, pfc, pause, other, malformed, cnp",
        ),
        (
            "eth.src == 02:00",
            12,
            "`02:00` is not a MAC address: write 02:00:00:00:00:0a, 02-00-00-00-00-0a or 0200.0000.000a",
        ),
        (
            "ip.src == 10.0.0.0/8 < 1",
            22,
            "unexpected text after the expression",
        ),
        (
            "ip.src > 10.0.0.0/8",
            10,
            "a CIDR block compares only with == and !=",
        ),
        ("bth.psn in {}", 13, "a set needs at least one member"),
        ("bth.psn in {1 2", 16, "expected `}`"),
        ("bth.psn in 1", 12, "expected `{`"),
        (
            "bth.psn in {1..x}",
            13,
            "`x` is not a number: write decimal (17), hex (0x11), octal (021), binary (0b10001) or bytes (00:11)",
        ),
        (
            "kind matches \"(\"",
            14,
            "bad regular expression: regex parse error:\n    (\n    ^\nerror: unclosed group",
        ),
        (
            "bth.psn matches \"x\"",
            17,
            "`bth.psn` is not a string; `matches` needs one",
        ),
        (
            "kind matches x",
            14,
            "`matches` takes a quoted regular expression",
        ),
        (
            "bth.psn contains 1",
            18,
            "`bth.psn` is not a string or address; `contains` needs one",
        ),
        ("kind & 1", 8, "`kind` is not a number; `&` needs one"),
        (
            "bth.psn[0:1] == 00",
            8,
            "only addresses, byte fields and `frame` (its bytes) can be sliced",
        ),
        (
            "eth.src[x] == 00",
            9,
            "`x` is not a slice: write [i:n], [i-j], [i] or [i:]",
        ),
        ("len(bth.psn == 1", 13, "expected `)`"),
        ("len(1) == 1", 5, "expected a field name"),
        ("len(", 5, "expression ends too early"),
        (
            "upper(bth.psn) == 1",
            1,
            "`upper()` takes a string field; `bth.psn` is not one",
        ),
        (
            "bth.bogus == 1",
            1,
            "unknown field `bth.bogus`; did you mean `bth.becn`?",
        ),
        (
            "true",
            1,
            "unknown field `true` (rdmadump fields lists them all)",
        ),
        (
            "ts > 1.0000000001",
            6,
            "`1.0000000001` is not a time: write seconds since the epoch, such as 1700000000.000123",
        ),
    ] {
        assert_eq!(fails(text), (column, message.to_string()), "{text}");
    }
}

#[test]
fn old_filters_keep_working() {
    for text in [
        "bth",
        "  bth.psn==0x1F\t&&\nbth.psn<=0X20 ",
        "!!bth.fecn",
        "!(bth.psn > 1) || (ip.ecn != 3 && !(udp))",
        "bth.becn == 1 || bth.becn == false",
        "error.layer != \"x\" && kind == \"pfc\"",
        "addr.src == \"::1\" && eth.dst == \"02-00-00-00-00-01\"",
        "grh.dgid == \"ff12:401b:ffff::ffff:ffff\"",
        "icrc.status == \"bad\"",
        "aeth.kind == \"nak\"",
        "len > 100 && caplen < 100",
    ] {
        assert!(parse(text).is_ok(), "{text}: {:?}", parse(text).err());
    }
}

#[test]
fn wireshark_words_and_precedence() {
    let pkt = frame(7);
    for (text, want) in [
        // `and` binds tighter than `or` (tshark 4.0: `1 or 2 and 3` selects frame 1).
        ("frame == 7 or frame == 8 and frame == 9", true),
        ("(frame == 7 or frame == 8) and frame == 9", false),
        ("frame == 8 and frame == 9 or frame == 7", true),
        // `not` binds tighter than `and`.
        ("not frame == 8 and frame == 7", true),
        ("!(frame == 7 && frame == 8)", true),
        ("!!frame == 7", true),
        // `xor` lies between `or` and `and`, as in Wireshark 4.2.
        ("frame == 7 xor frame == 7", false),
        ("frame == 7 ^^ frame == 8", true),
        ("frame == 7 xor frame == 7 and frame == 8", true),
        ("frame == 7 xor frame == 7 or frame == 7", true),
        ("frame == 7 ^^ frame == 7 ^^ frame == 7", true),
        (
            "frame eq 7 && frame ne 8 && frame gt 6 && frame lt 8 && frame ge 7 && frame le 7",
            true,
        ),
        (
            "frame any_eq 7 and frame all_ne 8 and frame any_ne 8 and frame all_eq 7",
            true,
        ),
        ("frame ~= 7 or frame === 8", false),
        // A comparison with a field the packet lacks is false, even `!=`.
        ("bth.psn != 1", false),
        ("bth.psn all_ne 1", false),
        ("!bth", true),
        // But `not in` is the negation of `in`, and holds (tshark 4.0 agrees).
        ("bth.psn not in {1}", true),
        ("frame not in {1 2 7}", false),
        // Literals in every base.
        (
            "frame == 0x7 and frame == 07 and frame == 0b111 and frame == 00:07",
            true,
        ),
        ("frame in {1, 5..8}", true),
        ("frame in {1 5 .. 6 8}", false),
        ("frame & 0b10", true),
        ("frame bitwise_and 8", false),
        (
            "frame.number == 7 and frame.len == 100 and frame_len == 100 and len == 100",
            true,
        ),
        (
            "ts == 1700000000.001 and frame.time_epoch < 1700000000.0010001",
            true,
        ),
        ("ts_ns == 1700000000001000000", true),
        (
            "kind == other and kind == \"other\" and kind in {pfc other}",
            true,
        ),
        ("kind == cnp", false),
        ("kind != cnp", true),
        (
            "kind contains \"th\" and kind matches \"^OT\" and not kind matches \"(?-i)^OT\"",
            true,
        ),
        (
            "upper(kind) == \"OTHER\" and lower(kind) == other and len(kind) == 5",
            true,
        ),
        ("upper(kind) == other", false),
        ("frame[0:1] == 00", false),
        (
            "frame.cap_len < frame.len and frame_len == len and not frame == frame_len",
            true,
        ),
        ("frame >= caplen", true),
    ] {
        assert_eq!(verdict(text, &pkt), want, "{text}");
    }
}

#[test]
fn addresses_either_direction_and_slices() {
    // An Ethernet/IPv4/UDP header, as a dissected RoCE v2 frame's first 42 bytes.
    let mut bytes = vec![
        0x02, 0, 0, 0, 0, 0x0b, 0x02, 0, 0, 0, 0, 0x0a, 0x08, 0x00, // eth
        0x45, 0x02, 0, 28, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 1, 2, // ipv4
        0xc0, 0x00, 0x12, 0xb7, 0, 8, 0, 0, // udp
    ];
    bytes.resize(60, 0);
    let record = crate::capture::Record {
        ts_ns: Some(0),
        orig_len: 60,
        data: &bytes,
        linktype: crate::capture::linktype::ETHERNET,
        iface: 0,
        offset: 0,
    };
    let pkt = crate::dissect::dissect(&record, 1, &Default::default());
    assert!(pkt.udp.is_some());
    for (text, want) in [
        ("ip.src == 10.0.0.1 and ip.dst == 10.0.1.2", true),
        ("ip.addr == 10.0.1.2 && ip.addr == 10.0.0.1", true),
        ("ip.addr != 10.0.0.1", false),
        ("ip.addr ~= 10.0.0.1", true),
        ("ip.addr === 10.0.0.0/16", true),
        ("ip.addr === 10.0.0.0/24", false),
        ("ip.src == 10.0.0.0/24 and ip.dst != 10.0.0.0/24", true),
        (
            "ip.src != ip.dst and ip.addr == ip.dst and udp.srcport > udp.dstport",
            true,
        ),
        ("ip.addr in {10.0.1.0/24 192.168.0.1}", true),
        ("ip.src in {10.0.0.0..10.0.0.5}", true),
        ("ip.src > 9.255.255.255 and ip.src <= 10.0.0.1", true),
        (
            "eth.src == 02:00:00:00:00:0a and eth.dst == 0200.0000.000b",
            true,
        ),
        ("eth.addr == 02-00-00-00-00-0b", true),
        (
            "eth.src[0:3] == 02:00:00 and eth.src[-1] == 0a and eth.src[4-5] == 00:0a",
            true,
        ),
        ("eth.src[3:] == 00:00:0a and eth.src[:2] == 02:00", true),
        ("eth.src[5:2] == 0a", false),
        (
            "frame[0:2] == 02:00 and frame[12:2] == 08:00 and frame[-1] == 00",
            true,
        ),
        (
            "eth.src contains 00:0a and not eth.dst contains 00:0a",
            true,
        ),
        ("len(eth.src) == 6 and len(ip.src) == 4", true),
        (
            "udp.port == 4791 and udp.port == 49152 and udp.srcport == 49152",
            true,
        ),
        ("udp.port != 4791", false),
        (
            "ip.proto == 17 and ip.len == 28 and ip.dsfield.ecn == 2 and ip.ttl == 64",
            true,
        ),
        ("ip.flow_label", false),
        ("eth.vlan or vlan or vlan.id == 0", false),
        ("ipv6 or ipv6.src == ::1", false),
        ("ip and eth and udp and not bth", true),
        // Wireshark's protocols, and the either-version names.
        ("eth and ip and udp and !macc and !icmpv6", true),
        (
            "ip.dsfield == 0x02 and ip.version == 4 and inet.version == 4",
            true,
        ),
        ("addr.src == 10.0.0.1 and addr == 10.0.1.2 and inet", true),
        // `frame contains`, as Wireshark's: the frame's bytes.
        (
            "frame contains 0a:00:00:01 and frame contains \"\\x12\\xb7\"",
            true,
        ),
        ("frame contains 0a:00:00:03", false),
    ] {
        assert_eq!(verdict(text, &pkt), want, "{text}");
    }
}

/// Wireshark's `ip` is IPv4: an IPv6 frame has no `ip.src`, and an IPv6 literal there is an
/// error that names the fields meant; `addr.*` are either version's.
#[test]
fn ip_is_ipv4_and_addr_either_version() {
    let mut bytes = vec![0x02, 0, 0, 0, 0, 0x0b, 0x02, 0, 0, 0, 0, 0x0a, 0x86, 0xdd];
    let mut ipv6 = vec![0x60, 0, 0, 0, 0, 8, 17, 64];
    ipv6.extend([0xfe, 0x80].iter().chain(&[0; 13]).chain(&[1]));
    ipv6.extend([0xfe, 0x80].iter().chain(&[0; 13]).chain(&[2]));
    bytes.extend(ipv6);
    bytes.extend([0xc0, 0x00, 0x12, 0xb7, 0, 8, 0, 0]);
    let record = crate::capture::Record {
        ts_ns: Some(0),
        orig_len: bytes.len() as u32,
        data: &bytes,
        linktype: crate::capture::linktype::ETHERNET,
        iface: 0,
        offset: 0,
    };
    let pkt = crate::dissect::dissect(&record, 1, &Default::default());
    assert!(pkt.udp.is_some());
    for (text, want) in [
        ("ip", false),
        ("ip.src or ip.addr or ip.ttl or ip.dsfield", false),
        (
            "ipv6 and inet and inet.version == 6 and ip.version == 6",
            true,
        ),
        (
            "addr.src == fe80::1 and addr.dst == fe80::2 and addr == fe80::/64",
            true,
        ),
        ("ipv6.src == fe80::1 and inet.ttl == 64", true),
    ] {
        assert_eq!(verdict(text, &pkt), want, "{text}");
    }
    for (text, message) in [
        (
            "ip.src == fe80::1",
            "`ip.src` is IPv4's, as in Wireshark: for IPv6 write `ipv6.src`, for either version `addr.src`",
        ),
        (
            "ip.addr in {10.0.0.1, fe80::/64}",
            "`ip.addr` is IPv4's, as in Wireshark: for IPv6 write `ipv6.addr`, for either version `addr`",
        ),
    ] {
        assert_eq!(fails(text).1, message, "{text}");
    }
}

/// `infiniband.immdt` is bytes to Wireshark: it has a length, and compares with a byte
/// string, written either way.
#[test]
fn immediate_data_is_four_bytes() {
    let mut bytes = vec![0x02, 0, 0, 0, 0, 0x0b, 0x02, 0, 0, 0, 0, 0x0a, 0x08, 0x00];
    bytes.extend([
        0x45, 0x02, 0, 48, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 1, 2,
    ]);
    bytes.extend([0xc0, 0x00, 0x12, 0xb7, 0, 28, 0, 0]);
    // BTH: RC SEND ONLY with immediate (0x05), then ImmDt 11:22:33:44 and an ICRC.
    bytes.extend([0x05, 0x40, 0xff, 0xff, 0, 0, 0, 0x11, 0x80, 0, 0, 1]);
    bytes.extend([0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0]);
    let record = crate::capture::Record {
        ts_ns: Some(0),
        orig_len: bytes.len() as u32,
        data: &bytes,
        linktype: crate::capture::linktype::ETHERNET,
        iface: 0,
        offset: 0,
    };
    let pkt = crate::dissect::dissect(&record, 1, &Default::default());
    assert!(pkt.immdt.is_some(), "{:?}", pkt.error);
    for (text, want) in [
        ("len(infiniband.immdt) == 4", true),
        ("infiniband.immdt == 11:22:33:44", true),
        ("infiniband.immdt == \"\\x11\\x22\\x33\\x44\"", true),
        (
            "infiniband.immdt == 0x11223344 and immdt == 287454020",
            true,
        ),
        ("infiniband.immdt == 22:33:44", false),
        (
            "infiniband.immdt[1:2] == 22:33 and infiniband.immdt > 11:22:33:00",
            true,
        ),
        ("infiniband.immdt in {11:22:33:44, 00:00:00:01}", true),
        ("infiniband and rroce and infiniband.bth", true),
    ] {
        assert_eq!(verdict(text, &pkt), want, "{text}");
    }
}

#[test]
fn protocols_are_tested_alone_and_times_take_dates() {
    assert_eq!(
        fails("infiniband == 1"),
        (
            12,
            "`infiniband` is a protocol: test it alone (`infiniband`, `!infiniband`), or compare one of its fields".to_string()
        )
    );
    // The upper-layer protocols are fields: a frame without them does not match.
    for text in [
        "iser || iscsi || iser.flags == 0x10",
        "smb_direct || smb2 || smb_direct.credits.granted > 0",
    ] {
        assert!(!verdict(text, &frame(7)), "{text}");
    }
    // frame(7) was captured at 1700000000.001 s, 2023-11-14 22:13:20.001 UTC.
    let pkt = frame(7);
    for (text, want) in [
        ("frame.time >= \"2023-11-14 22:13:20\"", true),
        ("frame.time > \"2023-11-14 22:13:20.001\"", false),
        (
            "frame.time == \"Nov 14, 2023 22:13:20.001000000 UTC\"",
            true,
        ),
        ("frame.time < \"2023-11-14T22:13:21Z\"", true),
        ("frame.time_epoch == 1700000000.001", true),
    ] {
        assert_eq!(verdict(text, &pkt), want, "{text}");
    }
    assert!(
        fails("frame.time > \"yesterday\"")
            .1
            .contains("is not a time")
    );
}

/// A filter from a file is placed by line and column in that file.
#[test]
fn an_error_in_a_filter_file_names_the_file_line_and_column() {
    let text = "bth.psn > 5\n  and bth.pns == 1\n";
    let err = parse(text).unwrap_err().in_file("qps.filter");
    assert_eq!(
        err.to_string(),
        "filter error in qps.filter, line 2 column 7: unknown field `bth.pns`; did you mean \
         `bth.psn`?\n    and bth.pns == 1\n        ^"
    );
}

/// A directed route of 12 hops (IBA 14.2.1.2: up to 63; path entry 0 is unused, hop k at
/// entry k) is compared at every hop, not only the first eight, and not past its hop count.
#[test]
fn a_directed_route_is_compared_at_every_hop() {
    use crate::dissect::{decode_ib, dr_get, smp_frame};
    // The MAD's initial path starts at byte 128 and its return path at 192.
    let mut mad = dr_get(12);
    for hop in 1..=13 {
        mad[128 + hop] = 10 + hop as u8;
        mad[192 + hop] = 40 + hop as u8;
    }
    let frame = smp_frame(&mad);
    let pkt = decode_ib(&frame, frame.len());
    for (text, want) in [
        ("mad.dr.initial_path == 11", true),
        ("mad.dr.initial_path == 22", true),
        ("mad.dr.return_path == 52", true),
        ("mad.dr.initial_path == 23", false),
        ("mad.dr.return_path == 53", false),
        ("mad.dr.initial_path == mad.dr.return_path", false),
    ] {
        assert_eq!(verdict(text, &pkt), want, "{text}");
    }
}

/// `levels` of `opener`, then `inner`, then whatever closes them.
fn nested(opener: &str, levels: usize, inner: &str, closer: &str) -> String {
    format!("{}{inner}{}", opener.repeat(levels), closer.repeat(levels))
}

fn too_deep(column: usize) -> (usize, String) {
    (
        column,
        format!("filter nests deeper than {MAX_DEPTH} levels"),
    )
}

#[test]
fn nesting_stops_at_the_limit_for_every_opener() {
    // Each opener with the levels it adds.
    for (opener, closer, per) in [
        ("(", ")", 1),
        ("!", "", 1),
        ("not ", "", 1),
        ("not (", ")", 2),
        ("bth || bth and (", ")", 1),
        ("bth or bth xor bth and (", ")", 1),
    ] {
        let most = MAX_DEPTH / per;
        for levels in [most - 1, most] {
            assert!(
                parse(&nested(opener, levels, "bth", closer)).is_ok(),
                "{opener} {levels}"
            );
        }
        let text = nested(opener, most + 1, "bth", closer);
        let (column, message) = fails(&text);
        assert_eq!(message, too_deep(0).1, "{opener}");
        assert!(column > opener.len() * most, "{opener}: {column}");
    }
    // Function calls count too.
    let lens = format!(
        "{}kind{} == 1",
        "len(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(fails(&lens).1, too_deep(0).1);
    assert_eq!(
        fails(&nested("(", MAX_DEPTH + 1, "bth", ")")),
        too_deep(MAX_DEPTH + 1)
    );
    assert_eq!(
        fails(&nested(" (", MAX_DEPTH + 1, "bth", ")")),
        too_deep(2 * (MAX_DEPTH + 1))
    );
    let half = MAX_DEPTH / 2;
    assert!(parse(&nested("!(", half, "bth", ")")).is_ok());
    assert_eq!(
        fails(&nested("!(", half, "!bth", ")")),
        too_deep(2 * half + 1)
    );
    let side = nested("(", MAX_DEPTH - 1, "bth", ")");
    assert!(parse(&format!("({side} and {side}) or not {side}")).is_ok());
}

#[test]
fn twenty_thousand_openers_stop_at_the_limit() {
    let parens = format!("{}bth.psn", "(".repeat(20_000));
    assert_eq!(fails(&parens), too_deep(MAX_DEPTH + 1));
    let bangs = format!("{}bth.psn", "!".repeat(20_000));
    assert_eq!(fails(&bangs), too_deep(MAX_DEPTH + 1));
    let nots = format!("{}bth.psn", "not ".repeat(20_000));
    assert_eq!(fails(&nots), too_deep(4 * MAX_DEPTH + 1));
    assert_eq!(fails(&"(".repeat(20_000)), too_deep(MAX_DEPTH + 1));
}

#[test]
fn the_deepest_filters_evaluate() {
    let pkt = frame(7);
    for (text, want) in [
        (nested("(", MAX_DEPTH, "frame == 7", ")"), true),
        (nested("!", MAX_DEPTH, "frame == 7", ""), true),
        (nested("not ", MAX_DEPTH - 1, "frame == 7", ""), false),
        (
            nested("frame == 8 || frame == 7 && (", MAX_DEPTH, "bth", ")"),
            false,
        ),
        (
            nested("frame == 8 or frame == 7 and not(", 127, "bth", ")"),
            true,
        ),
        (
            nested("frame == 8 || frame == 7 && !(", 128, "bth", ")"),
            false,
        ),
    ] {
        assert_eq!(verdict(&text, &pkt), want, "{text}");
    }
}

#[test]
fn a_hundred_thousand_clauses_parse_evaluate_and_drop() {
    let clauses = 100_000;
    let pkt = frame(7);
    let all = vec!["frame == 7"; clauses].join(" && ");
    assert!(verdict(&all, &pkt));
    assert!(!verdict(&format!("{all} and frame != 7"), &pkt));
    let any = vec!["frame == 8"; clauses].join(" or ");
    assert!(!verdict(&any, &pkt));
    let odd = vec!["frame == 7"; clauses + 1].join(" xor ");
    assert!(verdict(&odd, &pkt));
    let mixed = vec!["frame == 8 && frame == 7"; clauses].join(" || ") + " || frame < 8";
    assert!(verdict(&mixed, &pkt));
    let broken = format!("{all} && frame == 7 $");
    assert_eq!(fails(&broken), (broken.len(), "unexpected `$`".into()));
}

#[test]
fn the_message_quotes_the_text_around_the_column() {
    let err = parse("bth.psn == 1 $").unwrap_err();
    assert_eq!(
        err.to_string(),
        "filter error at column 14: unexpected `$`\n  bth.psn == 1 $\n               ^"
    );
    let long = format!("{}bth", "(".repeat(20_000));
    let shown = parse(&long).unwrap_err().to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    assert_eq!(
        lines[0],
        "filter error at column 257: filter nests deeper than 256 levels"
    );
    let near_the_end = parse(&format!(
        "{} && error.layer == \"é\" $",
        vec!["bth"; 100].join(" && ")
    ));
    let shown = near_the_end.unwrap_err().to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert!(
        lines[1].starts_with("  …") && lines[1].ends_with(" \"é\" $"),
        "{shown}"
    );
    let position = |line: &str, c| line.chars().position(|x| x == c);
    assert_eq!(position(lines[1], '$'), position(lines[2], '^'), "{shown}");
}

/// Random runs of the language's own tokens, the inputs most likely to reach odd corners of
/// the parser: each must give a filter or an error, never a panic, and a filter must
/// evaluate.
#[test]
fn token_soup_never_panics() {
    const PIECES: &[&str] = &[
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        "..",
        ":",
        "-",
        "!",
        "not ",
        " and ",
        " or ",
        " xor ",
        "&&",
        "||",
        "^^",
        "==",
        "!=",
        "~=",
        "===",
        "<",
        ">=",
        " in ",
        " contains ",
        " matches ",
        "&",
        "~",
        "len(",
        "lower(",
        "upper(",
        "frame",
        "eth.src",
        "ip.addr",
        "kind",
        "bth.psn",
        "infiniband.bth.se",
        "udp.port",
        "ts",
        "1",
        "0x1f",
        "010",
        "0b1",
        "-1",
        "10.0.0.0/8",
        "fe80::1",
        "02:00:00:00:00:0a",
        "\"a\\x41\"",
        "\"(\"",
        "1..5",
        "cnp",
        "ff",
        "0:3",
        "-2",
        "99999999999999999999",
        " ",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pkt = frame(3);
    for _ in 0..4_000 {
        let len = 1 + next() % 12;
        let text: String = (0..len)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        if let Ok(filter) = PacketFilter::from_expr(&text) {
            filter.matches(&pkt);
        }
    }
}
