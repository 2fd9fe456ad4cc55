//! `rdmadump analyze --html` on the scenarios: where the marks of the graphs fall (read from
//! their data attributes, checked against fixtures/scenarios/expected.json and the
//! scenarios' construction in fixtures/gen/make_scenarios.py), that the page names no
//! outside resource, and that a real browser (headless Chromium) renders it without errors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::Regex;
use serde_json::Value;

use crate::harness::{fixture, rdmadump, root, stderr};

/// One element with a `data-mark`: its attributes by name.
type Mark = BTreeMap<String, String>;

/// Where the test keeps its reports and screenshots for a person to look at.
fn out_dir() -> PathBuf {
    let dir = root().join("target/html-report");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `analyze --html` on a scenario; returns the page. Tests run at once: each run
/// writes a file of its own.
fn report(scenario: &str, extra: &[&str]) -> String {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let scratch = tempfile::tempdir().unwrap();
    let html = scratch.path().join(format!("{run}.html"));
    let capture = fixture(&format!("scenarios/{scenario}"));
    let mut args = vec!["analyze", "--html", html.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(capture.to_str().unwrap());
    let out = rdmadump(&args);
    assert!(out.status.success(), "{scenario}: {}", stderr(&out));
    assert!(!out.stdout.is_empty(), "the text report is still written");
    std::fs::read_to_string(&html).unwrap()
}

fn marks(page: &str, kind: &str) -> Vec<Mark> {
    let tag = Regex::new(r#"<(?:g|rect) (data-mark="[a-z_]+"[^>]*)>"#).unwrap();
    let attr = Regex::new(r#"([a-z-]+)="([^"]*)""#).unwrap();
    tag.captures_iter(page)
        .map(|c| {
            attr.captures_iter(&c[1])
                .map(|a| (a[1].to_string(), a[2].to_string()))
                .collect::<Mark>()
        })
        .filter(|m| m["data-mark"] == kind)
        .collect()
}

fn num(m: &Mark, key: &str) -> u64 {
    m[key].parse().unwrap_or_else(|_| panic!("{key} of {m:?}"))
}

/// What marks stand for: on-screen neighbours of the common kinds are drawn as one, with
/// `data-count`.
fn total(marks: &[Mark]) -> u64 {
    marks.iter().map(|m| num(m, "data-count")).sum()
}

fn truth(scenario: &str) -> Value {
    let all: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("scenarios/expected.json")).unwrap())
            .unwrap();
    all[scenario].clone()
}

fn charts(page: &str, class: &str) -> usize {
    page.matches(&format!("class=\"chart {class}\"")).count()
}

#[test]
fn html_gbn_wrap_marks_the_go_back_n_at_the_resent_psns() {
    let t = truth("gbn_wrap.pcap");
    let page = report("gbn_wrap.pcap", &[]);
    let gbn = &t["go_back_n_episodes"][0];
    let (frame, ts, to) = (
        gbn["frame"].as_u64().unwrap(),
        gbn["ts_ns"].as_u64().unwrap(),
        gbn["to_psn"].as_u64().unwrap(),
    );
    let resent = gbn["psns_resent"].as_u64().unwrap();
    // make_scenarios.py sends the retransmissions back to back, one frame and 10 us apart,
    // on a flow that started at 0xFFFFFA: after the wrap, so unwrapped they are 2^24 up.
    let want: Vec<(u64, u64, u64, u64)> = (0..resent)
        .map(|k| (frame + k, to + k, (1 << 24) + to + k, ts + k * 10_000))
        .collect();
    let mut got: Vec<(u64, u64, u64, u64)> = marks(&page, "retransmitted")
        .iter()
        .map(|m| {
            (
                num(m, "data-frame"),
                num(m, "data-psn"),
                num(m, "data-upsn"),
                num(m, "data-ts-ns"),
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, want);

    let nak = &t["naks"][0];
    let naks = marks(&page, "nak");
    assert_eq!(naks.len(), 1);
    assert_eq!(num(&naks[0], "data-frame"), nak["frame"].as_u64().unwrap());
    assert_eq!(num(&naks[0], "data-psn"), nak["psn"].as_u64().unwrap());
    assert_eq!(num(&naks[0], "data-ts-ns"), nak["ts_ns"].as_u64().unwrap());

    let gap = &t["psn_gap_events"][0];
    let gaps = marks(&page, "gap");
    assert_eq!(gaps.len(), 1);
    assert_eq!(num(&gaps[0], "data-frame"), gap["frame"].as_u64().unwrap());
    assert_eq!(num(&gaps[0], "data-psn"), gap["psn"].as_u64().unwrap());

    // The go-back-N is the line stepping back: the first retransmission is below the
    // highest PSN sent before it.
    let highest_before = marks(&page, "new")
        .iter()
        .chain(&gaps)
        .filter(|m| num(m, "data-frame") < frame)
        .map(|m| num(m, "data-upsn"))
        .max()
        .unwrap();
    assert!(want[0].2 < highest_before);
    // 15 requests, 4 of them resent: 11 sent once (one of those skipped a PSN).
    let requests = t["flows"][0]["packets"].as_u64().unwrap();
    assert_eq!(
        total(&marks(&page, "new")) + 1,
        requests - t["flows"][0]["retransmitted"].as_u64().unwrap()
    );
    // One connection, one direction with requests: its sequence, goodput and RTT.
    assert_eq!(charts(&page, "chart-sequence"), 1);
    assert_eq!(charts(&page, "chart-throughput"), 1);
    assert_eq!(charts(&page, "chart-latency"), 1);
}

#[test]
fn html_two_qps_each_go_back_n_in_its_own_connection() {
    let t = truth("two_qps_two_naks.pcap");
    let page = report("two_qps_two_naks.pcap", &[]);
    let mut want: Vec<(u64, u64)> = t["go_back_n_episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["frame"].as_u64().unwrap(), e["to_psn"].as_u64().unwrap()))
        .collect();
    want.sort();
    let first_retx: BTreeSet<(u64, u64)> = marks(&page, "retransmitted")
        .iter()
        .map(|m| (num(m, "data-frame"), num(m, "data-psn")))
        .collect();
    for w in &want {
        assert!(first_retx.contains(w), "{w:?} not in {first_retx:?}");
    }
    let naks: BTreeSet<(u64, u64)> = marks(&page, "nak")
        .iter()
        .map(|m| (num(m, "data-frame"), num(m, "data-psn")))
        .collect();
    let want_naks: BTreeSet<(u64, u64)> = t["naks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["frame"].as_u64().unwrap(), n["psn"].as_u64().unwrap()))
        .collect();
    assert_eq!(naks, want_naks);
    // Each connection's graph holds its own episode: the two articles split them.
    let articles: Vec<&str> = page.split("<article").skip(1).collect();
    assert_eq!(articles.len(), 2);
    for a in articles {
        assert_eq!(marks(a, "nak").len(), 1);
        assert_eq!(marks(a, "gap").len(), 1);
    }
}

#[test]
fn html_pfc_cascade_lanes_and_the_cascade_across_them() {
    let t = truth("pfc_cascade.pcap");
    let page = report("pfc_cascade.pcap", &[]);
    let pauses: Vec<Mark> = marks(&page, "pause");
    let lanes: BTreeSet<(String, u64)> = pauses
        .iter()
        .map(|m| (m["data-src"].clone(), num(m, "data-priority")))
        .collect();
    let want_lanes: BTreeSet<(String, u64)> = t["pfc"]["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["src"].as_str().unwrap().to_string(),
                s["priority"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(lanes, want_lanes);
    assert!(marks(&page, "storm").is_empty());

    let want = &t["pfc"]["cascades"][0];
    let cascades = marks(&page, "cascade");
    assert_eq!(cascades.len(), 1);
    let c = &cascades[0];
    assert_eq!(num(c, "data-priority"), want["priority"].as_u64().unwrap());
    assert_eq!(num(c, "data-ts-ns"), want["start_ns"].as_u64().unwrap());
    assert_eq!(num(c, "data-end-ns"), want["end_ns"].as_u64().unwrap());
    assert_eq!(
        num(c, "data-frame"),
        want["start_frames"][0].as_u64().unwrap()
    );
    // Drawn across the lanes of its three senders, in the order they joined.
    let lane_of = |src: &str| {
        pauses
            .iter()
            .find(|m| m["data-src"] == src && num(m, "data-priority") == 3)
            .map(|m| m["data-lane"].clone())
            .unwrap()
    };
    let want_lanes: Vec<String> = want["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| lane_of(s.as_str().unwrap()))
        .collect();
    assert_eq!(c["data-lanes"], want_lanes.join(","));
    // Each member's first pause bar starts where it joined.
    for m in want["members"].as_array().unwrap() {
        let src = m["src"].as_str().unwrap();
        assert!(pauses.iter().any(|p| p["data-src"] == src
            && num(p, "data-frame") == m["frame"].as_u64().unwrap()
            && num(p, "data-ts-ns") == m["joined_ns"].as_u64().unwrap()));
    }
    assert_eq!(charts(&page, "chart-pause"), 1);
}

#[test]
fn html_pfc_storm_is_highlighted() {
    let t = truth("pfc_storm.pcap");
    let page = report("pfc_storm.pcap", &[]);
    let want = &t["pfc"]["storms"][0];
    let storms = marks(&page, "storm");
    assert_eq!(storms.len(), 1);
    let s = &storms[0];
    assert_eq!(s["data-src"], want["src"].as_str().unwrap());
    assert_eq!(num(s, "data-priority"), want["priority"].as_u64().unwrap());
    assert_eq!(num(s, "data-ts-ns"), want["start_ns"].as_u64().unwrap());
    assert_eq!(num(s, "data-end-ns"), want["end_ns"].as_u64().unwrap());
    // The 5 ms pause on priority 5 is no storm at the default 100 ms threshold...
    let pauses = marks(&page, "pause");
    assert!(pauses.iter().all(|p| num(p, "data-priority") == 5));
    assert!(!pauses.is_empty());
    // ...and is one at 1 ms, as the scenario's variant says.
    let variant = &t["variants"]["--storm-threshold 1ms"]["pfc"]["storms"];
    let page = report("pfc_storm.pcap", &["--storm-threshold", "1ms"]);
    assert_eq!(
        marks(&page, "storm").len(),
        variant.as_array().unwrap().len()
    );
}

#[test]
fn html_icrc_failures_by_source() {
    let t = truth("icrc_bad_vlan.pcap");
    let page = report("icrc_bad_vlan.pcap", &[]);
    let bad = marks(&page, "icrc_bad");
    let want: Vec<(u64, String)> = t["crc_anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["frame"].as_u64().unwrap(),
                a["src"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let got: Vec<(u64, String)> = bad
        .iter()
        .map(|m| (num(m, "data-frame"), m["data-src"].clone()))
        .collect();
    assert_eq!(got, want);
    assert!(marks(&page, "vcrc_bad").is_empty());
    assert_eq!(charts(&page, "chart-crc"), 1);
}

#[test]
fn html_ecn_cnp_ce_and_cnp_marks() {
    let t = truth("ecn_cnp.pcap");
    let page = report("ecn_cnp.pcap", &[]);
    let ce = marks(&page, "ce");
    assert_eq!(total(&ce), t["ecn_ce"].as_u64().unwrap());
    let first_ce = ce.iter().map(|m| num(m, "data-frame")).min().unwrap();
    assert_eq!(first_ce, t["first_ce"]["frame"].as_u64().unwrap());
    let cnps = marks(&page, "cnp");
    assert_eq!(total(&cnps), t["cnp"].as_u64().unwrap());
    let first_cnp = cnps.iter().map(|m| num(m, "data-frame")).min().unwrap();
    assert_eq!(first_cnp, t["first_cnp"]["frame"].as_u64().unwrap());
    // The CNPs slow down the flow to QP 690 (ce_dest_qp): they sit on its graph, with its
    // 8 CE marks; the other flow's one CE mark is on its own graph.
    let qp = t["cnp_targets"][0]["ce_dest_qp"].as_u64().unwrap();
    let articles: Vec<&str> = page.split("<article").skip(1).collect();
    let with_cnps: Vec<&&str> = articles
        .iter()
        .filter(|a| !marks(a, "cnp").is_empty())
        .collect();
    assert_eq!(with_cnps.len(), 1);
    assert!(with_cnps[0].contains(&format!("qp {qp:#x}")));
    assert_eq!(
        total(&marks(with_cnps[0], "ce")),
        t["flows"][0]["ecn_ce"].as_u64().unwrap()
    );
}

#[test]
fn html_names_no_outside_resource() {
    let href = Regex::new(r#"(?i)\s(?:href|src)\s*=\s*"?([^"\s>]*)"#).unwrap();
    for scenario in SCENARIOS {
        let page = report(scenario, &[]);
        assert!(!page.contains("http://"), "{scenario}");
        assert!(!page.contains("https://"), "{scenario}");
        assert!(!page.contains("url("), "{scenario}");
        assert!(!page.contains("@import"), "{scenario}");
        for c in href.captures_iter(&page) {
            assert!(c[1].starts_with('#'), "{scenario}: {}", &c[0]);
        }
    }
}

#[test]
fn html_top_picks_how_many_connections_are_drawn() {
    let page = report("two_qps_two_naks.pcap", &["--html-top", "1"]);
    assert_eq!(page.matches("<article").count(), 1);
    // Both stay in the table.
    assert!(page.contains("qp 0x2b2"));
    assert!(page.contains("qp 0x2b4"));
}

/// The connections' charts are drawn on every thread given, each taking the next one
/// undrawn: the page must still list them in rank order, as one thread draws them.
#[test]
fn html_page_is_the_same_on_one_thread_and_several() {
    let capture = fixture("roce_v2_opcodes.pcap");
    let scratch = tempfile::tempdir().unwrap();
    let page = |threads: &str| {
        let html = scratch.path().join(format!("{threads}.html"));
        let out = rdmadump(&[
            "analyze",
            "--threads",
            threads,
            "--html",
            html.to_str().unwrap(),
            capture.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(&html).unwrap()
    };
    let one = page("1");
    assert_eq!(
        one.matches("<article").count(),
        18,
        "every connection drawn"
    );
    for threads in ["2", "5"] {
        assert!(page(threads) == one, "--threads {threads} changes the page");
    }
}

/// Scenarios rendered in the browser, with the charts each must show, from its
/// construction: a sequence graph per direction that carries requests, goodput per
/// connection, RTT where a request was answered cleanly, a pause timeline, CRC lanes.
const SCENARIOS: [&str; 6] = [
    "gbn_wrap.pcap",
    "two_qps_two_naks.pcap",
    "pfc_cascade.pcap",
    "pfc_storm.pcap",
    "icrc_bad_vlan.pcap",
    "ecn_cnp.pcap",
];

fn expected_charts(scenario: &str) -> usize {
    match scenario {
        // Sequence, goodput, RTT.
        "gbn_wrap.pcap" => 3,
        // Two connections, each sequence and goodput; every answer came after a loss.
        "two_qps_two_naks.pcap" => 4,
        // The pause timeline alone.
        "pfc_cascade.pcap" | "pfc_storm.pcap" => 1,
        // Sequence and goodput (no responses), CRC lanes.
        "icrc_bad_vlan.pcap" => 3,
        // Two request flows: sequence and goodput each, RTT of the acknowledged one.
        "ecn_cnp.pcap" => 5,
        _ => unreachable!(),
    }
}

/// Chromium under either of its names, or None (see `harness::required`).
pub fn chromium() -> Option<&'static str> {
    let name = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|name| crate::harness::tool_available(name));
    crate::harness::required(name.is_some(), "chromium", "apt-get install -y chromium");
    name
}

pub fn run_browser(browser: &str, args: &[&str], page: &Path) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(page)
        .output()
        .expect("run chromium");
    assert!(out.status.success(), "chromium: {}", stderr(&out));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr(&out),
    )
}

/// A screenshot's distinct colours and its share of pixels that are not white.
fn picture(png_path: &Path) -> (usize, f64) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = &buf[..info.buffer_size()];
    let mut colours = BTreeSet::new();
    let mut inked = 0usize;
    let total = pixels.len() / channels;
    for px in pixels.chunks(channels) {
        let rgb = (px[0], px[1], px[2]);
        colours.insert(rgb);
        if rgb != (255, 255, 255) {
            inked += 1;
        }
    }
    (colours.len(), inked as f64 / total as f64)
}

#[test]
fn html_renders_in_a_real_browser() {
    let Some(browser) = chromium() else { return };
    let dir = out_dir();
    let errors = Regex::new(r#"<html[^>]* data-errors="([^"]*)""#).unwrap();
    let charts = Regex::new(r#"<svg[^>]* class="chart chart-[a-z]+""#).unwrap();
    let tip_attr = Regex::new(r#"data-tip="([^"]*)""#).unwrap();
    for scenario in SCENARIOS {
        let page = report(scenario, &[]);
        // The page under test, with a first script that writes any error into the DOM.
        let trap = "<script>(function(){var d=document.documentElement;function note(m){\
            d.setAttribute('data-errors',(d.getAttribute('data-errors')||'')+m+';');}\
            window.addEventListener('error',function(e){note(e.message);});\
            var ce=console.error;console.error=function(){note([].join.call(arguments,' '));\
            ce.apply(console,arguments);};})();</script>";
        // And a last one that hovers over a mark and clicks the first chart, as a reader
        // would, and writes what the tooltip said and whether the chart widened.
        let reader = "<script>(function(){var m=document.querySelector('[data-mark]');\
            m.dispatchEvent(new MouseEvent('mouseover',{bubbles:true}));\
            var t=document.getElementById('tooltip');\
            document.body.setAttribute('data-tip',t.hidden?'hidden':t.textContent.split('\\n').join('|'));\
            var c=document.querySelector('svg.chart');\
            c.dispatchEvent(new MouseEvent('click',{bubbles:true}));\
            document.body.setAttribute('data-zoomed',c.parentNode.classList.contains('zoomed'));\
            })();</script>";
        let trapped = page
            .replacen("<head>", &format!("<head>{trap}"), 1)
            .replacen("</body>", &format!("{reader}</body>"), 1);
        assert_ne!(trapped, page);
        let probe = dir.join(scenario.replace(".pcap", ".probe.html"));
        std::fs::write(&probe, trapped).unwrap();
        let (dom, log) = run_browser(browser, &["--dump-dom"], &probe);
        assert!(
            errors.captures(&dom).is_none(),
            "{scenario}: script errors: {:?}",
            errors.captures(&dom).map(|c| c[1].to_string())
        );
        assert!(!log.contains("Uncaught"), "{scenario}: {log}");
        assert!(
            !log.contains(":CONSOLE(") || !log.to_lowercase().contains("error"),
            "{scenario}: console: {log}"
        );
        // The report's own script ran to its end, the tooltip names the mark's frame, and
        // a click widens the chart.
        assert!(dom.contains("data-script=\"ready\""), "{scenario}");
        let tip = tip_attr
            .captures(&dom)
            .map(|c| c[1].to_string())
            .unwrap_or_default();
        assert!(tip.contains("|frame: "), "{scenario}: tooltip {tip:?}");
        assert!(dom.contains("data-zoomed=\"true\""), "{scenario}");
        assert_eq!(
            charts.find_iter(&dom).count(),
            expected_charts(scenario),
            "{scenario}: charts in the DOM"
        );

        let html = dir.join(scenario.replace(".pcap", ".html"));
        std::fs::write(&html, &page).unwrap();
        let png = dir.join(scenario.replace(".pcap", ".png"));
        let _ = std::fs::remove_file(&png);
        let shot = format!("--screenshot={}", png.display());
        run_browser(browser, &[&shot, "--window-size=1280,2400"], &html);
        let (colours, inked) = picture(&png);
        assert!(
            colours >= 12,
            "{scenario}: {colours} colours in the screenshot"
        );
        assert!(
            inked > 0.02,
            "{scenario}: {inked:.3} of the screenshot inked"
        );
        // The README's picture is this test's screenshot of the go-back-N scenario; it is
        // refreshed on request, as browsers' anti-aliasing differs from build to build.
        if scenario == "gbn_wrap.pcap" && std::env::var_os("UPDATE_README_SCREENSHOT").is_some() {
            std::fs::copy(&png, root().join("docs/report.png")).unwrap();
        }
    }
}

/// Every capture among the fixtures, damaged ones included (truncated, malformed, bad
/// lengths), in any directory.
fn all_captures(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all_captures(&path, out);
        } else if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains(".pcap"))
        {
            out.push(path);
        }
    }
}

#[test]
fn html_of_every_fixture_renders_without_a_panic() {
    let mut captures = Vec::new();
    all_captures(&root().join("fixtures"), &mut captures);
    assert!(captures.len() > 30, "{} fixtures", captures.len());
    let scratch = tempfile::tempdir().unwrap();
    for (i, capture) in captures.iter().enumerate() {
        let html = scratch.path().join(format!("{i}.html"));
        let out = rdmadump(&[
            "analyze",
            "--html",
            html.to_str().unwrap(),
            capture.to_str().unwrap(),
        ]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{}: {err}", capture.display());
        // Damaged input may fail the run (exit 2): then no page is written, since it could
        // not say that frames are missing from it (tests/it/outputs.rs).
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{}: {:?} {err}",
            capture.display(),
            out.status
        );
        if out.status.code() == Some(2) {
            assert!(!html.exists(), "{}", capture.display());
            continue;
        }
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{}", capture.display());
        assert!(
            page.trim_end().ends_with("</html>"),
            "{}",
            capture.display()
        );
    }
}
