//! DCQCN as `analyze` sees it (issue 30): each CNP paired with the CE mark it answered,
//! the sender's rate around each CNP, and goodput per direction, against the truth
//! fixtures/gen/make_dcqcn.py typed in when it built fixtures/dcqcn/.

use serde_json::Value;

use crate::harness::{fixture, rdmadump_ok, stdout};

fn truth(file: &str) -> Value {
    let all: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("dcqcn/expected.json")).expect("dcqcn truth"),
    )
    .unwrap();
    all[file].clone()
}

fn analyze(file: &str, args: &[&str]) -> String {
    let path = fixture(&format!("dcqcn/{file}"));
    let mut argv = vec!["analyze"];
    argv.extend_from_slice(args);
    argv.push(path.to_str().unwrap());
    stdout(&rdmadump_ok(&argv))
}

fn analyze_json(file: &str) -> Value {
    serde_json::from_str(&analyze(file, &["--json"])).expect("one JSON document")
}

/// The only connection's A→B direction.
fn a_to_b(report: &Value) -> &Value {
    let connections = report["connections"].as_array().unwrap();
    assert_eq!(connections.len(), 1);
    &connections[0]["a_to_b"]
}

#[test]
fn each_cnp_is_paired_with_the_mark_it_answered_not_the_first_since_the_last() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let d = a_to_b(&report);
    assert_eq!(d["ecn_ce"], t["ecn_ce"]);
    assert_eq!(d["cnps"], t["cnps"]);
    // The rate-limited NIC reacts in 1.3 µs; the marks it did not answer are not delay.
    assert_eq!(d["ce_to_cnp_ns"], t["ce_to_cnp_ns"]);
    assert_eq!(d["ce_per_cnp"], t["ce_per_cnp"]);
    // min_time_between_cnps shows as the minimum interval.
    assert_eq!(d["cnp_interval_ns"], t["cnp_interval_ns"]);
}

/// The congestion summary's delays follow the same rule: a CNP flow's first CNP, and the
/// capture's, from the CE mark it answered.
#[test]
fn the_congestion_summary_pairs_the_first_cnp_with_the_mark_it_answered() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let congestion = &report["congestion"];
    let targets = congestion["cnp_targets"].as_array().unwrap();
    assert_eq!(targets.len(), 1);
    assert_eq!(targets[0]["ce_to_cnp_ns"], t["first_cnp_ce_to_cnp_ns"]);
    assert_eq!(congestion["ce_to_cnp_ns"], t["first_cnp_ce_to_cnp_ns"]);
}

#[test]
fn the_senders_rate_is_measured_each_side_of_every_cnp() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let d = a_to_b(&report);
    let (before, want) = (&d["rate_before_cnp_bps"], &t["rate_before_cnp_bps"]);
    for key in ["samples", "min", "max"] {
        assert_eq!(before[key], want[key], "rate_before_cnp_bps.{key}");
    }
    // A median of different values comes from the sketch, within 1%.
    let (got, exact) = (
        before["p50"].as_f64().unwrap(),
        want["p50"].as_f64().unwrap(),
    );
    assert!((got - exact).abs() <= exact / 100.0, "p50 {got} vs {exact}");
    let (after, want) = (&d["rate_after_cnp_bps"], &t["rate_after_cnp_bps"]);
    for key in ["samples", "min", "max"] {
        assert_eq!(after[key], want[key], "rate_after_cnp_bps.{key}");
    }
    assert_eq!(d["rate_cut_after_cnp"], t["rate_cut_after_cnp"]);
}

#[test]
fn goodput_is_per_direction_in_bits_per_second() {
    let t = truth("rate_limited_cnp.pcap");
    let report = analyze_json("rate_limited_cnp.pcap");
    let c = &report["connections"][0];
    assert_eq!(c["a_to_b"]["goodput_bps"], t["goodput_bps"]["a_to_b"]);
    // B sent no requests: the direction has no numbers at all.
    assert!(c["b_to_a"].is_null());
    assert!(t["goodput_bps"]["b_to_a"].is_null());
}

/// The export's `connections` rows carry the same figures, the ratio in millionths.
#[cfg(feature = "export")]
#[test]
fn the_export_has_the_dcqcn_columns() {
    use crate::export::{export, files_under, rows_of};
    let t = truth("rate_limited_cnp.pcap");
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = fixture("dcqcn/rate_limited_cnp.pcap");
    let out = export(scratch.path(), &["--partition", "none"], &[&capture]);
    assert!(out.status.success());
    let rows = rows_of(&files_under(&scratch.path().join("connections")));
    let a_to_b = rows
        .iter()
        .find(|r| r.get("direction").is_some_and(|d| d == "a_to_b"))
        .expect("the a_to_b row");
    assert_eq!(a_to_b["ce_to_cnp_ns_p50"], t["ce_to_cnp_ns"]["p50"]);
    assert_eq!(a_to_b["ce_per_cnp_max"], t["ce_per_cnp"]["max"]);
    assert_eq!(a_to_b["cnp_interval_ns_min"], t["cnp_interval_ns"]["min"]);
    assert_eq!(
        a_to_b["rate_after_cnp_bps_min"],
        t["rate_after_cnp_bps"]["min"]
    );
    assert_eq!(
        a_to_b["rate_before_cnp_bps_max"],
        t["rate_before_cnp_bps"]["max"]
    );
    assert_eq!(a_to_b["rate_cut_after_cnp_p50_ppm"], 500_000);
    assert_eq!(a_to_b["goodput_bps"], t["goodput_bps"]["a_to_b"]);
}

#[test]
fn the_text_names_the_reaction_and_gives_goodput_per_direction_in_gbps() {
    let t = truth("rate_limited_cnp.pcap");
    let text = analyze("rate_limited_cnp.pcap", &[]);
    let delay_us = t["ce_to_cnp_ns"]["p50"].as_f64().unwrap() / 1000.0;
    let line = format!(
        "CNPs to 10.0.0.1 qp 0x1a1: {}; CE mark to CNP p50 {delay_us:.1} us, max {delay_us:.1} \
         us; CE marks per CNP p50 {}; interval min {:.1} us; rate after/before p50 {:.2}",
        t["cnps"],
        t["ce_per_cnp"]["p50"],
        t["cnp_interval_ns"]["min"].as_f64().unwrap() / 1000.0,
        t["rate_cut_after_cnp"]["p50"].as_f64().unwrap(),
    );
    assert!(text.contains(&line), "{line}\n{text}");
    assert!(text.contains("goodput Gb/s"), "{text}");
    // a→b, then b→a, which sent no requests.
    let a_to_b = t["goodput_bps"]["a_to_b"].as_f64().unwrap() / 1e9;
    assert!(text.contains(&format!(" {a_to_b:.2}/- ")), "{text}");
}

/// `analyze --html` of `capture`, as a page.
fn html_page(capture: &std::path::Path) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let html = scratch.path().join("report.html");
    rdmadump_ok(&[
        "analyze",
        "--html",
        html.to_str().unwrap(),
        capture.to_str().unwrap(),
    ]);
    std::fs::read_to_string(&html).unwrap()
}

/// The `svg` element of the first chart of class `kind`.
fn chart<'p>(page: &'p str, kind: &str) -> &'p str {
    let start = page
        .find(&format!("class=\"chart {kind}\""))
        .unwrap_or_else(|| panic!("no {kind} chart"));
    let end = start + page[start..].find("</svg>").unwrap();
    &page[start..end]
}

/// The text of a chart's labels, in order.
fn labels(svg: &str) -> Vec<String> {
    let text = regex::Regex::new(r"<text[^>]*>([^<]*)</text>").unwrap();
    text.captures_iter(svg)
        .map(|c| c[1].trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// The chart fixes of issue 30, as a browser shows them: lane labels as tall as other
/// charts' text, the CRC chart over the capture's span with distinct ticks, goodput in
/// intervals of several packets drawn as a line in Gb/s, and the ICRC-bad packet marked on
/// its connection's time-sequence graph.
#[test]
fn html_chart_fixes_show_in_a_real_browser() {
    let Some(browser) = crate::html::chromium() else {
        return;
    };
    let t = truth("icrc_bad_span.pcap");
    let crc_page = html_page(&fixture("dcqcn/icrc_bad_span.pcap"));
    // One PFC lane: the chart whose labels plotters shrank most.
    let pause_page = html_page(&fixture("scenarios/pause_8023x.pcap"));

    // The CRC chart spans the capture: its ticks are distinct and reach its end.
    let ticks: Vec<f64> = labels(chart(&crc_page, "chart-crc"))
        .iter()
        .filter_map(|l| l.parse().ok())
        .collect();
    let distinct: std::collections::BTreeSet<String> =
        ticks.iter().map(|t| t.to_string()).collect();
    assert_eq!(distinct.len(), ticks.len(), "{ticks:?}");
    let span_us = t["span_ns"].as_f64().unwrap() / 1000.0;
    assert!(
        ticks.iter().any(|&x| x >= span_us * 0.9) && ticks.contains(&0.0),
        "{ticks:?} over 0..{span_us} us"
    );

    // Goodput: a line (not steps) in Gb/s, one point per interval of several packets.
    let throughput = chart(&crc_page, "chart-throughput");
    assert!(labels(throughput).iter().any(|l| l == "goodput (Gb/s)"));
    let line = regex::Regex::new(r##"stroke="#0072B2"[^>]*points="([^"]*)""##).unwrap();
    let points: Vec<(f64, f64)> = line.captures(throughput).expect("the goodput line")[1]
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert_eq!(
        points.len() as u64,
        t["goodput_intervals"].as_u64().unwrap()
    );
    // A steady sender is a level line: 7 or 8 packets an interval, never an empty one.
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    let (lo, hi) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    assert!(hi - lo < 40.0, "goodput line from y {lo} to {hi}");

    // The browser measures the labels, and finds the ICRC-bad mark on the sequence graph.
    let measure = "<script>(function(){function tallest(kind){var h=0;\
        document.querySelectorAll('svg.'+kind+' text').forEach(function(t){\
        if(t.textContent.trim())h=Math.max(h,t.getBBox().height);});return h;}\
        var b=document.body;['chart-crc','chart-pause','chart-sequence','chart-throughput']\
        .forEach(function(k){b.setAttribute('data-'+k,tallest(k));});\
        var m=document.querySelector('svg.chart-sequence [data-mark=\"icrc_bad_packet\"]');\
        b.setAttribute('data-icrc-frame',m?m.getAttribute('data-frame'):'none');})();</script>";
    let dir = crate::harness::root().join("target/html-report");
    std::fs::create_dir_all(&dir).unwrap();
    let px = |dom: &str, kind: &str| -> f64 {
        let attr = regex::Regex::new(&format!(r#"data-{kind}="([0-9.]+)""#)).unwrap();
        attr.captures(dom).map_or(0.0, |c| c[1].parse().unwrap())
    };
    let mut tallest = std::collections::BTreeMap::new();
    for (name, page) in [
        ("dcqcn_icrc_bad_span", &crc_page),
        ("dcqcn_pause", &pause_page),
    ] {
        let probe = dir.join(format!("{name}.probe.html"));
        std::fs::write(
            &probe,
            page.replacen("</body>", &format!("{measure}</body>"), 1),
        )
        .unwrap();
        let (dom, _) = crate::html::run_browser(browser, &["--dump-dom"], &probe);
        for kind in [
            "chart-crc",
            "chart-pause",
            "chart-sequence",
            "chart-throughput",
        ] {
            let h = px(&dom, kind);
            if h > 0.0 {
                tallest.insert(kind, h);
            }
        }
        if name == "dcqcn_icrc_bad_span" {
            assert!(
                dom.contains(&format!("data-icrc-frame=\"{}\"", t["icrc_bad_frame"])),
                "the ICRC-bad packet is not marked on its time-sequence graph"
            );
        }
        let png = dir.join(format!("{name}.png"));
        let shot = format!("--screenshot={}", png.display());
        let html = dir.join(format!("{name}.html"));
        std::fs::write(&html, page).unwrap();
        crate::html::run_browser(browser, &[&shot, "--window-size=1280,2400"], &html);
    }
    // Lane labels are as tall as the sequence graph's labels (they were 5.6 of 9.7).
    let reference = tallest["chart-sequence"];
    for kind in ["chart-crc", "chart-pause"] {
        assert!(
            tallest[kind] >= reference * 0.95,
            "{kind} labels {} px against {reference} px: {tallest:?}",
            tallest[kind]
        );
    }
}

#[test]
fn the_html_report_has_a_row_per_sender_that_got_cnps() {
    let t = truth("rate_limited_cnp.pcap");
    let page = html_page(&fixture("dcqcn/rate_limited_cnp.pcap"));
    let start = page
        .find(r#"data-cnp-sender="10.0.0.1 qp 0x1a1""#)
        .expect("the sender's row");
    let row = &page[start..start + page[start..].find("</tr>").unwrap()];
    let cells: Vec<&str> = regex::Regex::new(r#"<td[^>]*>([^<]*)</td>"#)
        .unwrap()
        .captures_iter(row)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    let us = |v: &Value| format!("{:.1}", v.as_f64().unwrap() / 1000.0);
    assert_eq!(
        cells,
        [
            "10.0.0.1 qp 0x1a1".to_string(),
            t["cnps"].to_string(),
            us(&t["ce_to_cnp_ns"]["p50"]),
            us(&t["ce_to_cnp_ns"]["max"]),
            t["ce_per_cnp"]["p50"].to_string(),
            us(&t["cnp_interval_ns"]["min"]),
            // The median of three rates is the sketch's, within 1%: 1.024 shows as 1.028.
            cells[6].to_string(),
            cells[7].to_string(),
            format!("{:.2}", t["rate_cut_after_cnp"]["p50"].as_f64().unwrap()),
        ]
    );
    let before: f64 = cells[6].parse().unwrap();
    let want = t["rate_before_cnp_bps"]["p50"].as_f64().unwrap() / 1e9;
    assert!((before - want).abs() <= want / 100.0, "{before} vs {want}");
    assert_ne!(cells[7], "-");
}
