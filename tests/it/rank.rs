//! Connections ranked worst first by time lost (stall + retransmission waits + paused), in
//! JSON, text and HTML, against the truth the stalls and causes generators typed in.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, stderr, stdout};

fn json(path: &str, extra: &[&str]) -> Value {
    let path = fixture(path);
    let mut args = vec!["analyze", "--json"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    let out = rdmadump(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("one JSON document")
}

fn truth(dir: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("{dir}/expected.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The host paused for 450 us on priority 3: its three stalled connections lose
/// stall + paused time each (stalls/expected.json) and rank first, longest first; the nine
/// unaffected ones lose nothing.
#[test]
fn the_pfc_stalled_connections_rank_first() {
    let truth = &truth("stalls")["pfc_stalled_host.pcap"];
    let report = json("stalls/pfc_stalled_host.pcap", &[]);
    let connections = report["connections"].as_array().unwrap();
    let by_qp = |qp: u64| {
        connections
            .iter()
            .find(|c| c["b"]["qpn"].as_u64() == Some(qp))
            .unwrap_or_else(|| panic!("no connection to qp {qp}"))
    };
    let mut stalled: Vec<(u64, u64)> = truth["stalled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let lost = u(&s["stall_ns"]) + u(&s["paused_total_ns"]);
            (u(&s["dest_qp"]), lost)
        })
        .collect();
    stalled.sort_by_key(|&(qp, lost)| (std::cmp::Reverse(lost), qp));
    for (rank, (qp, lost)) in stalled.iter().enumerate() {
        let c = by_qp(*qp);
        assert_eq!(u(&c["time_lost_ns"]), *lost, "qp {qp}");
        assert_eq!(u(&c["time_lost"]["retx_wait_ns"]), 0, "qp {qp}");
        assert_eq!(u(&c["rank"]), rank as u64 + 1, "qp {qp}");
    }
    for s in truth["unaffected"].as_array().unwrap() {
        let c = by_qp(u(&s["dest_qp"]));
        assert_eq!(u(&c["time_lost_ns"]), 0);
        assert!(u(&c["rank"]) > stalled.len() as u64);
    }
    // Every connection between the same hosts as its peers is set against their median.
    assert!(
        connections
            .iter()
            .all(|c| c["goodput_median_of"] == "host_pair"),
        "three connections per host pair"
    );
}

/// A tail loss retried after 4.2, 8.4 and 16.8 ms: the waits (causes/expected.json) are
/// the retransmission part of its time lost.
#[test]
fn timeout_waits_are_time_lost() {
    let truth = &truth("causes")["timeout_backoff.pcap"]["connections"][0]["a_to_b"];
    let report = json("causes/timeout_backoff.pcap", &[]);
    let c = &report["connections"][0];
    assert_eq!(u(&c["rank"]), 1);
    assert_eq!(
        u(&c["time_lost"]["retx_wait_ns"]),
        u(&truth["retx_wait_ns"])
    );
    let parts = u(&c["time_lost"]["stall_ns"])
        + u(&c["time_lost"]["retx_wait_ns"])
        + u(&c["time_lost"]["paused_ns"]);
    assert_eq!(u(&c["time_lost_ns"]), parts);
}

/// The text table lists the stalled connections first, with the time they lost, and
/// every connection (12 < 20) without `--all`.
#[test]
fn the_text_table_is_worst_first() {
    let path = fixture("stalls/pfc_stalled_host.pcap");
    let out = rdmadump(&["analyze", path.to_str().unwrap()]);
    let text = stdout(&out);
    let table = text.split("\nConnections (12)").nth(1).expect("table");
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with('─'))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 12, "{table}");
    for (row, qp) in rows.iter().zip(["0x510", "0x511", "0x512"]) {
        assert!(row.contains(qp), "{row}");
    }
    assert!(rows[0].contains("883us"), "{}", rows[0]);
    assert!(rows[11].contains("  0  "), "{}", rows[11]);
}

/// The HTML table is in rank order and sortable, and `--html-top 3` draws exactly the three
/// stalled connections.
#[test]
fn html_draws_the_worst_and_sorts_by_any_column() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("r.html");
    let path = fixture("stalls/pfc_stalled_host.pcap");
    let out = rdmadump(&[
        "analyze",
        "--html",
        page.to_str().unwrap(),
        "--html-top",
        "3",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<table class=\"sortable\">"));
    let body = html.split("<tbody>").nth(1).unwrap();
    let first_row = body.split("</tr>").next().unwrap();
    assert!(first_row.contains("qp 0x510"), "{first_row}");
    for i in 0..3 {
        assert!(html.contains(&format!("id=\"conn-{i}\"")), "conn-{i}");
    }
    assert!(!html.contains("id=\"conn-3\""));
}

/// In a real browser, a click on the `lost` header sorts the connections by the time they
/// lost, worst first: the three stalled connections in the order of their truth's stall +
/// paused time, then the nine that lost nothing; a second click reverses it.
#[test]
fn html_sorts_by_time_lost_when_its_header_is_clicked() {
    let Some(browser) = crate::html::chromium() else {
        return;
    };
    let truth = &truth("stalls")["pfc_stalled_host.pcap"];
    let mut stalled: Vec<(u64, String)> = truth["stalled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let lost = u(&s["stall_ns"]) + u(&s["paused_total_ns"]);
            (
                lost,
                format!("{} qp {:#x}", s["dst"].as_str().unwrap(), u(&s["dest_qp"])),
            )
        })
        .collect();
    stalled.sort_by(|a, b| b.cmp(a));
    let worst_first: Vec<&str> = stalled.iter().map(|(_, b)| b.as_str()).collect();
    let unaffected: std::collections::BTreeSet<String> = truth["unaffected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} qp {:#x}", s["dst"].as_str().unwrap(), u(&s["dest_qp"])))
        .collect();

    let dir = crate::harness::root().join("target/html-report");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("rank_sort.html");
    let path = fixture("stalls/pfc_stalled_host.pcap");
    let out = rdmadump(&[
        "analyze",
        "--html",
        page.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Before the clicks, start from another order (the first frame's, latest first), so
    // that the click on `lost` has rows to move; after each click, the B column of every
    // row and the header's state go into the DOM.
    let clicks = "<script>(function(){var t=document.querySelector('table.sortable');\
        function header(name){return Array.prototype.find.call(t.tHead.rows[0].cells,\
        function(h){return h.textContent.indexOf(name)===0;});}\
        function note(step,h){document.body.setAttribute('data-'+step,\
        Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[2].textContent;})\
        .join('|'));document.body.setAttribute('data-'+step+'-sorted',h.getAttribute('data-sorted'));}\
        var first=header('first frame'),lost=header('lost');\
        first.click();note('first',first);lost.click();note('lost',lost);\
        lost.click();note('again',lost);})();</script>";
    let html = std::fs::read_to_string(&page).unwrap();
    let probe = dir.join("rank_sort.probe.html");
    std::fs::write(
        &probe,
        html.replacen("</body>", &format!("{clicks}</body>"), 1),
    )
    .unwrap();
    let (dom, _) = crate::html::run_browser(browser, &["--dump-dom"], &probe);
    let rows = |step: &str| -> Vec<String> {
        let attr = regex::Regex::new(&format!(r#" data-{step}="([^"]*)""#)).unwrap();
        let found = attr
            .captures(&dom)
            .unwrap_or_else(|| panic!("no rows after the {step} click"));
        found[1].split('|').map(str::to_string).collect()
    };
    let (first, lost, again) = (rows("first"), rows("lost"), rows("again"));
    assert_eq!(lost.len(), 12, "{lost:?}");
    // The first click put the stalled connections elsewhere than on top.
    assert_ne!(first[..3], worst_first[..], "{first:?}");
    assert!(
        dom.contains(" data-lost-sorted=\"desc\""),
        "the header's state"
    );
    assert_eq!(lost[..3], worst_first[..], "{lost:?}");
    let rest: std::collections::BTreeSet<String> = lost[3..].iter().cloned().collect();
    assert_eq!(rest, unaffected);
    // Again: least lost first, the stalled ones last, the worst at the bottom.
    assert!(
        dom.contains(" data-again-sorted=\"asc\""),
        "the header's state"
    );
    let mut best_first = worst_first.clone();
    best_first.reverse();
    assert_eq!(again[9..], best_first[..], "{again:?}");
    let rest: std::collections::BTreeSet<String> = again[..9].iter().cloned().collect();
    assert_eq!(rest, unaffected);
}
