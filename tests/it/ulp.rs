//! The upper-layer protocols beside NVMe-oF (RPC-over-RDMA, iSER, SMB Direct), against
//! fixtures/ulp/expected.json, whose truth fixtures/gen/make_ulp.py and
//! make_ulp_storage.py typed by hand from the messages they assembled.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, read_json, stdout};

fn expected(proto: &str) -> Value {
    let text = std::fs::read_to_string(fixture("ulp/expected.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all[proto].clone()
}

fn capture(proto: &str) -> String {
    let file = expected(proto)["file"].as_str().unwrap().to_string();
    fixture(&format!("ulp/{file}"))
        .to_str()
        .unwrap()
        .to_string()
}

/// Every key of `want` is in `got` with the same value; objects are compared key by key,
/// arrays element by element.
fn assert_subset(frame: &str, want: &Value, got: &Value, path: &str) {
    match want {
        Value::Object(map) => {
            for (key, value) in map {
                let inner = got.get(key).unwrap_or(&Value::Null);
                assert_subset(frame, value, inner, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => {
            let got_items = got.as_array().map_or(&[][..], Vec::as_slice);
            assert_eq!(got_items.len(), items.len(), "frame {frame}: {path}");
            for (i, (w, g)) in items.iter().zip(got_items).enumerate() {
                assert_subset(frame, w, g, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(got, want, "frame {frame}: {path}"),
    }
}

/// Frames as typed by hand; a null one carries no layer of the protocol.
fn check_frames(proto: &str, layer: &str, extra: &[&str]) {
    let frames = read_json(std::path::Path::new(&capture(proto)), extra);
    let truth = expected(proto);
    for (number, want) in truth["frames"].as_object().unwrap() {
        let index: usize = number.parse().unwrap();
        let frame = &frames[index - 1];
        match want {
            Value::Null => assert!(frame.get(layer).is_none(), "frame {number}: {frame}"),
            want => assert_subset(number, want, &frame[layer], layer),
        }
    }
}

#[test]
fn rpcrdma_headers_chunks_and_rpc_decode_as_assembled() {
    check_frames("rpcrdma", "rpcrdma", &[]);
}

#[test]
fn rpcrdma_text_lines_name_the_nfs_call() {
    let out = rdmadump(&["read", &capture("rpcrdma")]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[3].ends_with("| NFS GETATTR xid 0x1001"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4]
            .ends_with("| NFS GETATTR reply xid 0x1001 NFS3_OK call frame 4 latency 150.000 us"),
        "{}",
        lines[4]
    );
    assert!(
        lines[5].ends_with("| NFS READ xid 0x1002 chunks read 0 write 1 reply 0"),
        "{}",
        lines[5]
    );
    assert!(lines[9].contains("NFS3ERR_NOENT"), "{}", lines[9]);
    assert!(!lines[10].contains('|'), "{}", lines[10]);
    assert!(
        lines[12].ends_with("| NFS GETATTR xid 0x2002 (SEQUENCE PUTFH GETATTR)"),
        "{}",
        lines[12]
    );
    assert!(
        lines[13].contains("RDMA_ERROR ERR_CHUNK xid 0x2002 call frame 13"),
        "{}",
        lines[13]
    );
}

/// `read -T fields -e frame.number -e NAME... -E occurrence=a -Y FILTER` over the
/// protocol's capture, a row a frame.
fn field_rows(proto: &str, names: &[&str], filter: &str) -> Vec<String> {
    let file = capture(proto);
    let mut args = vec!["read", "-T", "fields", "-e", "frame.number"];
    for name in names {
        args.extend(["-e", name]);
    }
    args.extend(["-E", "occurrence=a", "-Y", filter, &file]);
    let out = rdmadump(&args);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    text.lines().map(str::to_string).collect()
}

/// `--decode qp=QP:PROTO` on the connection traffic teaches only from its first reply: the
/// call before it (`call_frame`) is decoded too, and the reply names it with its latency.
fn forced(proto: &str, qp: &str, call_frame: usize, latency_ns: u64) -> Value {
    let decode = format!("qp={qp}:{proto}");
    let frames = read_json(
        std::path::Path::new(&capture(proto)),
        &["--decode", &decode],
    );
    assert_eq!(frames[call_frame - 1][proto]["recognised_by"], "option");
    let reply = &frames[call_frame][proto]["call"];
    assert_eq!(reply["frame"], call_frame);
    assert_eq!(reply["latency_ns"], latency_ns);
    frames[call_frame - 1][proto].clone()
}

#[test]
fn rpcrdma_fields_answer_to_wiresharks_names() {
    let rows = field_rows(
        "rpcrdma",
        &[
            "rpcordma.xid",
            "rpc.program",
            "nfs.opcode",
            "rpcrdma.call.latency_ns",
        ],
        "rpcordma",
    );
    assert!(rows.iter().any(|r| r == "4\t4097\t100003\t\t"), "{rows:?}");
    // The reply carries its call's program, as in Wireshark.
    assert!(
        rows.iter().any(|r| r == "5\t4097\t100003\t\t150000"),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|r| r == "13\t8194\t100003\t53,22,9\t"),
        "{rows:?}"
    );
    assert!(!rows.iter().any(|r| r.starts_with("11\t")), "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("7\t")), "{rows:?}");
}

#[test]
fn rpcrdma_decode_as_names_a_connection_traffic_has_not_taught_yet() {
    // Forced on the server QP of connection 1, its first call (frame 11) is decoded too.
    let call = forced("rpcrdma", "0x444", 11, 400000);
    assert_eq!(call["rpc"]["name"], "READ");
}

/// `analyze --json`'s section `proto` against the hand-typed analysis: counts, bytes,
/// errors and the latency percentiles by nearest rank over the hand-typed latencies.
fn check_analysis(proto: &str) {
    let out = rdmadump(&["analyze", "--json", &capture(proto)]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let got = report[proto].as_array().unwrap();
    let want = expected(proto)["analysis"].as_array().unwrap().clone();
    assert_eq!(got.len(), want.len());
    for (got, want) in got.iter().zip(&want) {
        let session = want["session"].as_u64().unwrap();
        for key in [
            "session",
            "recognised_by",
            "answered",
            "unanswered",
            "bytes_read",
            "bytes_written",
            "errors",
        ] {
            assert_eq!(got[key], want[key], "{proto} session {session}: {key}");
        }
        assert_eq!(got["calls"], want["commands"], "{proto} session {session}");
        let mut latencies: Vec<u64> = want["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        latencies.sort_unstable();
        let rank = |p: usize| latencies[(p * latencies.len()).div_ceil(100).max(1) - 1];
        assert_eq!(
            got["latency"]["p50_ns"],
            rank(50),
            "{proto} session {session}"
        );
        assert_eq!(
            got["latency"]["p99_ns"],
            rank(99),
            "{proto} session {session}"
        );
        assert_eq!(
            got["latency"]["max_ns"],
            *latencies.last().unwrap(),
            "{proto} session {session}"
        );
    }
}

#[test]
fn rpcrdma_analyze_times_each_connection_as_typed_by_hand() {
    check_analysis("rpcrdma");
}

#[test]
fn a_capture_without_these_protocols_has_no_such_section() {
    let out = rdmadump(&[
        "analyze",
        "--json",
        fixture("nvme/nvme_rdma.pcap").to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let frames = read_json(&fixture("nvme/nvme_rdma.pcap"), &[]);
    for layer in ["rpcrdma", "iser", "smbd"] {
        assert!(report.get(layer).is_none(), "{layer}");
        assert!(frames.iter().all(|f| f.get(layer).is_none()), "{layer}");
    }
    // Nor does a capture of one have the other's.
    let frames = read_json(std::path::Path::new(&capture("iser")), &[]);
    assert!(frames.iter().all(|f| f.get("rpcrdma").is_none()));
    let frames = read_json(std::path::Path::new(&capture("rpcrdma")), &[]);
    assert!(frames.iter().all(|f| f.get("iser").is_none()));
    let frames = read_json(std::path::Path::new(&capture("smbd")), &[]);
    assert!(
        frames
            .iter()
            .all(|f| f.get("iser").is_none() && f.get("rpcrdma").is_none())
    );
}

#[test]
fn iser_headers_and_iscsi_pdus_decode_as_assembled() {
    check_frames("iser", "iser", &[]);
}

#[test]
fn iser_text_lines_name_the_scsi_command() {
    let out = rdmadump(&["read", &capture("iser")]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    for (frame, tail) in [
        (4, "| iSCSI Login Command itt 0x1"),
        (6, "| iSCSI SCSI Command READ(10) itt 0x2 lba 4096 blocks 8"),
        (
            8,
            "| iSCSI SCSI Response READ(10) itt 0x2 GOOD call frame 6 latency 200.000 us",
        ),
        (
            13,
            "| iSCSI SCSI Response TEST UNIT READY itt 0x4 CHECK CONDITION call frame 12 latency 50.000 us",
        ),
    ] {
        assert!(lines[frame - 1].ends_with(tail), "{}", lines[frame - 1]);
    }
    assert!(!lines[13].contains('|'), "{}", lines[13]);
}

#[test]
fn iser_fields_answer_to_wiresharks_names() {
    let rows = field_rows(
        "iser",
        &[
            "iser.flags",
            "iscsi.opcode",
            "iscsi.initiatortasktag",
            "iscsi.scsiresponse.status",
            "iser.call.latency_ns",
        ],
        "iser && iscsi",
    );
    assert!(rows.iter().any(|r| r == "6\t20\t1\t2\t\t"), "{rows:?}");
    assert!(
        rows.iter().any(|r| r == "13\t16\t33\t4\t2\t50000"),
        "{rows:?}"
    );
    assert!(!rows.iter().any(|r| r.starts_with("14\t")), "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with("7\t")), "{rows:?}");
    assert_eq!(rows.len(), 12, "{rows:?}");
}

#[test]
fn iser_decode_as_names_a_connection_traffic_has_not_taught_yet() {
    // Forced on the target QP of connection 1, its first command (frame 14) is decoded too.
    let command = forced("iser", "0x544", 14, 300000);
    assert_eq!(command["iscsi"]["cdb_name"], "READ(16)");
}

#[test]
fn iser_analyze_times_each_connection_as_typed_by_hand() {
    check_analysis("iser");
}

#[test]
fn smbd_negotiate_data_messages_and_smb2_decode_as_assembled() {
    check_frames("smbd", "smbd", &[]);
}

#[test]
fn smbd_text_lines_name_the_smb2_command() {
    let out = rdmadump(&["read", &capture("smbd")]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    for (frame, tail) in [
        (4, "| SMBD NegotiateRequest credits 255"),
        (
            6,
            "| SMB2 READ Request mid 5 len 65536 off 0 channel RDMA_V1",
        ),
        (
            9,
            "| SMB2 WRITE Request mid 6 len 32768 off 65536 channel RDMA_V1",
        ),
        (11, "| SMB2 WRITE Response mid 6 STATUS_PENDING"),
        (
            12,
            "| SMB2 WRITE Response mid 6 STATUS_SUCCESS call frame 9 latency 500.000 us",
        ),
        (17, "| SMB2 FLUSH Request mid 21 (compounded)"),
    ] {
        assert!(lines[frame - 1].ends_with(tail), "{}", lines[frame - 1]);
    }
    assert!(!lines[14].contains('|'), "{}", lines[14]);
}

#[test]
fn smbd_fields_answer_to_wiresharks_names() {
    let rows = field_rows(
        "smbd",
        &[
            "smb_direct.credits.granted",
            "smb2.cmd",
            "smb2.msg_id",
            "smb2.nt_status",
            "smb2.buffer_descriptor.token",
            "smbd.call.latency_ns",
        ],
        "smb_direct",
    );
    assert!(
        rows.iter().any(|r| r == "6\t10\t8\t5\t\t3235774465\t"),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r == "14\t254\t5\t7\t3221225524\t\t80000"),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|r| r == "5\t255\t\t\t\t\t50000"),
        "{rows:?}"
    );
    assert!(!rows.iter().any(|r| r.starts_with("15\t")), "{rows:?}");
    assert_eq!(rows.len(), 13, "{rows:?}");
    assert_eq!(field_rows("smbd", &[], "smb2").len(), 11);
}

#[test]
fn smbd_decode_as_names_a_connection_traffic_has_not_taught_yet() {
    // Forced on the server QP of connection 1, its first request (frame 15) is decoded too.
    let request = forced("smbd", "0x644", 15, 200000);
    assert_eq!(request["smb2"]["command_name"], "READ");
}

#[test]
fn smbd_analyze_times_each_connection_as_typed_by_hand() {
    check_analysis("smbd");
}

/// The export's `commands` table for `proto`'s capture, read back with the parquet crate:
/// one row per call, as the generator typed it, beside NVMe-oF's columns left null.
#[cfg(feature = "export")]
fn check_commands(proto: &str) {
    use crate::export::{export, files_under, rows_of};
    let base_ns: u64 = 1_700_000_000 * 1_000_000_000;
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = capture(proto);
    let out = export(
        scratch.path(),
        &["--partition", "none"],
        &[std::path::Path::new(&capture)],
    );
    assert!(out.status.success(), "{}", crate::harness::stderr(&out));
    let rows = rows_of(&files_under(&scratch.path().join("commands")));
    let truth = expected(proto);
    let want = truth["commands"].as_array().unwrap();
    assert_eq!(rows.len(), want.len(), "{rows:#?}");
    let null = Value::Null;
    for (row, w) in rows.iter().zip(want) {
        let at = |key: &str| row.get(key).unwrap_or(&null);
        let frame = &w["command_frame"];
        assert_eq!(at("capture"), &truth["file"]);
        assert_eq!(at("protocol"), proto);
        for key in [
            "session",
            "key",
            "name",
            "command_frame",
            "response_frame",
            "status",
            "bytes",
        ] {
            assert_eq!(at(key), &w[key], "{proto} frame {frame}: {key}");
        }
        let unanswered = w.get("unanswered").is_some_and(|u| u == true);
        assert_eq!(at("unanswered"), &Value::from(unanswered));
        let ns = |us: &Value| us.as_u64().map(|us| base_ns + us * 1000);
        let (start, end) = (ns(&w["start_us"]), ns(&w["end_us"]));
        assert_eq!(at("start_ts_ns").as_u64(), start, "{proto} frame {frame}");
        assert_eq!(at("end_ts_ns").as_u64(), end, "{proto} frame {frame}");
        // Latency is the difference of the times the generator chose.
        let latency = start.zip(end).map(|(s, e)| e - s);
        assert_eq!(at("latency_ns").as_u64(), latency, "{proto} frame {frame}");
        assert_eq!(at("start_ts").is_null(), start.is_none());
        assert_eq!(at("end_ts").is_null(), end.is_none());
        for nvme_only in ["queue", "qid", "cid", "opcode", "sct", "sc", "dnr"] {
            assert!(
                at(nvme_only).is_null(),
                "{proto} frame {frame}: {nvme_only}"
            );
        }
    }
}

#[cfg(feature = "export")]
#[test]
fn rpcrdma_export_writes_one_row_per_call() {
    check_commands("rpcrdma");
}

#[cfg(feature = "export")]
#[test]
fn iser_export_writes_one_row_per_task() {
    check_commands("iser");
}

#[cfg(feature = "export")]
#[test]
fn smbd_export_writes_one_row_per_request() {
    check_commands("smbd");
}

/// `analyze --html` of `proto`'s capture: per connection a latency histogram and a
/// latency-over-time graph, whose marks carry the calls the generator typed by hand.
fn check_html(proto: &str) {
    let scratch = tempfile::tempdir().expect("tempdir");
    let page = scratch.path().join("report.html");
    let out = rdmadump(&["analyze", "--html", page.to_str().unwrap(), &capture(proto)]);
    assert!(out.status.success(), "{}", crate::harness::stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(&format!(r#"<section id="{proto}">"#)));
    assert!(html.contains(&format!(r##"<a href="#{proto}">"##)));
    assert!(!html.contains(r#"<section id="nvme">"#));
    let attr = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next().map(str::to_string)
    };
    let number = |tag: &str, name: &str| attr(tag, name).and_then(|v| v.parse::<u64>().ok());
    let marks = |kind: &str, session: u64| -> Vec<String> {
        html.split('<')
            .filter(|t| t.contains(&format!("data-mark=\"{proto}_{kind}\"")))
            .filter(|t| number(t, "data-session") == Some(session))
            .map(str::to_string)
            .collect()
    };
    let truth = expected(proto);
    for want in truth["analysis"].as_array().unwrap() {
        let session = want["session"].as_u64().unwrap();
        // The time graph: one mark per answered call, each the generator's call.
        let mut drawn: Vec<(u64, Value, u64, u64, String)> = marks("latency", session)
            .iter()
            .map(|t| {
                (
                    number(t, "data-command-frame").unwrap(),
                    number(t, "data-key").map_or(Value::Null, Value::from),
                    number(t, "data-frame").unwrap(),
                    number(t, "data-latency-ns").unwrap(),
                    attr(t, "data-status").unwrap(),
                )
            })
            .collect();
        drawn.sort_by_key(|d| d.0);
        let typed: Vec<(u64, Value, u64, u64, String)> = truth["commands"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["session"] == session && c.get("unanswered").is_none())
            .map(|c| {
                let us = |key: &str| c[key].as_u64().unwrap();
                (
                    us("command_frame"),
                    c["key"].clone(),
                    us("response_frame"),
                    (us("end_us") - us("start_us")) * 1000,
                    c["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(drawn, typed, "{proto} session {session}");
        // The histogram: every hand-typed latency in the bin that holds it.
        let latencies: Vec<u64> = want["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let bins: Vec<(u64, u64, u64)> = marks("bin", session)
            .iter()
            .map(|t| {
                let get = |name| number(t, name).unwrap();
                (get("data-lo-ns"), get("data-hi-ns"), get("data-count"))
            })
            .collect();
        for (lo, hi, count) in &bins {
            let inside = latencies.iter().filter(|l| (*lo..*hi).contains(l)).count();
            assert_eq!(
                inside as u64, *count,
                "{proto} session {session} bin {lo}..{hi}"
            );
        }
        let total: u64 = bins.iter().map(|b| b.2).sum();
        assert_eq!(total, latencies.len() as u64, "{proto} session {session}");
    }
    assert!(html.contains(&format!("chart-{proto}-histogram")));
    assert!(html.contains(&format!("chart-{proto}-latency")));
}

#[test]
fn rpcrdma_html_report_draws_each_connection_latencies() {
    check_html("rpcrdma");
}

#[test]
fn iser_html_report_draws_each_connection_latencies() {
    check_html("iser");
}

#[test]
fn smbd_html_report_draws_each_connection_latencies() {
    check_html("smbd");
}

/// The tooltip the report's script writes for the latency mark of the fixture's first
/// answered call, run in node with the few DOM calls the script makes faked.
fn latency_tooltip(proto: &str, command_frame: u64) -> Option<String> {
    if !crate::harness::tool_available("node") {
        return None;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let page = scratch.path().join("report.html");
    let out = rdmadump(&["analyze", "--html", page.to_str().unwrap(), &capture(proto)]);
    assert!(out.status.success(), "{}", crate::harness::stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    let tag = html
        .split('<')
        .find(|t| {
            t.contains(&format!("data-mark=\"{proto}_latency\""))
                && t.contains(&format!("data-command-frame=\"{command_frame}\""))
        })
        .expect("the call's mark");
    let attrs: Vec<(String, String)> = tag
        .split("\" ")
        .filter_map(|part| {
            let (name, value) = part.rsplit_once("=\"")?;
            let name = name.rsplit(' ').next()?;
            Some((
                name.to_string(),
                value.trim_end_matches(['"', '>']).to_string(),
            ))
        })
        .filter(|(name, _)| name.starts_with("data-"))
        .collect();
    let attrs = serde_json::to_string(
        &attrs
            .iter()
            .map(|(n, v)| serde_json::json!({"name": n, "value": v}))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let script =
        std::fs::read_to_string(crate::harness::root().join("src/output/html/report.js")).unwrap();
    let harness = format!(
        "var handlers = {{}}; var tip = {{ hidden: true, style: {{}} }};\n\
         var attrs = {attrs};\n\
         var mark = {{ attributes: attrs, getAttribute: function (n) {{\n\
           var a = attrs.find(function (a) {{ return a.name === n; }}); return a ? a.value : null; }} }};\n\
         var document = {{ getElementById: function () {{ return tip; }},\n\
           addEventListener: function (k, f) {{ (handlers[k] = handlers[k] || []).push(f); }},\n\
           body: {{ setAttribute: function () {{}} }} }};\n\
         {script}\n\
         handlers.mouseover[0]({{ target: {{ closest: function () {{ return mark; }} }} }});\n\
         process.stdout.write(tip.textContent);\n"
    );
    let js = scratch.path().join("tip.js");
    std::fs::write(&js, harness).unwrap();
    let out = std::process::Command::new("node")
        .arg(&js)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn a_latency_marks_tooltip_names_the_call_its_key_and_latency() {
    for (proto, key_name) in [("rpcrdma", "XID"), ("iser", "ITT"), ("smbd", "message ID")] {
        let truth = expected(proto);
        let call = truth["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c.get("unanswered").is_none() && c["key"].is_u64())
            .unwrap();
        let frame = call["command_frame"].as_u64().unwrap();
        let Some(tip) = latency_tooltip(proto, frame) else {
            return;
        };
        let latency =
            (call["end_us"].as_u64().unwrap() - call["start_us"].as_u64().unwrap()) * 1000;
        let key = call["key"].as_u64().unwrap();
        for line in [
            format!("command: {}", call["name"].as_str().unwrap()),
            format!("{key_name}: {key:#x}"),
            format!("latency (ns): {latency}"),
            format!("frame: {}", call["response_frame"]),
            format!("command frame: {frame}"),
        ] {
            assert!(
                tip.lines().any(|l| l == line),
                "{proto}: no {line:?} in {tip:?}"
            );
        }
    }
}
