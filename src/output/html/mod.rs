//! `analyze --html FILE`: one self-contained page of what the analysis found. Summary,
//! connection table and anomalies first, then per connection (the worst first) a
//! time-sequence graph of each direction, goodput and RTT over time, then the PFC pause
//! timeline, the CRC failures, and the storage protocols' command latencies. Inline CSS,
//! inline SVG and a small inline script for the tooltip; no URL at all, so it opens
//! offline, attaches to a ticket and prints.

mod calls;
mod chart;
mod crc;
mod dcqcn;
mod latency;
mod nvme;
mod overlap;
mod palette;
mod pause;
mod priorities;
mod rates;
mod sequence;
mod sessions;
mod throughput;

use std::sync::atomic::{AtomicUsize, Ordering};

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::analyze_text::{self as text, describe, where_};
use crate::analyze::{Analyzer, AnomalyDetail};
use crate::dissect::Address;
use crate::report::Report;
use crate::report::connections::{Connection, Direction, retx_causes};
use crate::report::rank::Place;

/// Rows of the connection table at most; a capture with more says how many it leaves out.
const TABLE_ROWS: usize = 2000;
/// Anomalies listed at most (the analysis keeps up to `--max-anomalies` of them).
const ANOMALY_ROWS: usize = 500;

const CSS: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// The page for `report`; `analyzer` holds what `AnalyzeConfig::graphs` recorded, and
/// `top` connections are drawn, on up to `threads` threads.
pub fn render(report: &Report<'_>, analyzer: &Analyzer, top: usize, threads: usize) -> String {
    let origin = analyzer.first_ts.unwrap_or(0);
    let files = report.files();
    let ranked = report.connections.ranked();
    let drawn = ranked.len().min(top);
    let icrc_bad = icrc_bad_packets(analyzer);
    let charts = draw_connections(&ranked[..drawn], origin, &icrc_bad, threads);
    let summary = text::render(
        report,
        text::Style {
            color: false,
            width: None,
            connections: Some(text::CONNECTIONS_SHOWN),
        },
    );
    let sink = &analyzer.anomalies;
    let nvme_queues: Vec<_> = analyzer.nvme.queues.values().collect();
    let session_protocols = sessions::present(analyzer);
    // The file's name, not its path: the page travels (attached to a ticket) without it.
    let title = match files {
        [one] => {
            let name = std::path::Path::new(one)
                .file_name()
                .map_or(one.clone(), |n| n.to_string_lossy().into_owned());
            format!("rdmadump analyze: {name}")
        }
        _ => format!("rdmadump analyze: {} files", files.len()),
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { (title) }
                nav {
                    a href="#summary" { "Summary" } " · "
                    a href="#connections" { "Connections" } " · "
                    a href="#anomalies" { "Anomalies" } " · "
                    a href="#graphs" { "Graphs" } " · "
                    a href="#pfc" { "PFC" } " · "
                    a href="#crc" { "CRC" }
                    @if !nvme_queues.is_empty() {
                        " · " a href="#nvme" { "NVMe-oF" }
                    }
                    @for (protocol, _) in &session_protocols {
                        " · " a href=(format!("#{}", protocol.id)) { (protocol.title) }
                    }
                }
                section #summary {
                    h2 { "Summary" }
                    @if let Some(budget) = &report.budget {
                        p.note.budget { (budget.sentence()) "." }
                    }
                    (counts(report, analyzer))
                    details {
                        summary { "The text report (rdmadump analyze)" }
                        pre { (summary) }
                    }
                }
                section #connections {
                    h2 { "Connections (" (ranked.len()) ")" }
                    p { "Worst first: by time lost (stall + retransmission waits + paused, both directions; the parts may overlap), then retransmissions, NAKs, CNPs and bytes. Click a header to sort by it. The first "
                        (drawn) " are drawn below (--html-top)." }
                    (connection_table(&ranked, drawn))
                    (dcqcn::render(&ranked.iter().map(|(c, _)| *c).collect::<Vec<_>>()))
                }
                section #anomalies {
                    h2 { "Anomalies (" (sink.total()) ")" }
                    @if sink.kept.is_empty() {
                        p { "None." }
                    } @else {
                        table {
                            thead { tr { th { "frame" } th { "time (µs)" } th { "kind" } th { "detail" } } }
                            tbody {
                                @for a in sink.kept.iter().take(ANOMALY_ROWS) {
                                    tr data-anomaly=(a.detail.kind().name()) data-frame=(a.at.frame) {
                                        td.num { (where_(a.at, files)) }
                                        td.num { (a.at.ts_ns.map(|t| format!("{:.3}", t.saturating_sub(origin) as f64 / 1e3)).unwrap_or_default()) }
                                        td { (a.detail.kind().name()) }
                                        td { (describe(&a.detail, files)) }
                                    }
                                }
                            }
                        }
                        @if sink.total() > ANOMALY_ROWS.min(sink.kept.len()) as u64 {
                            p.note { (sink.total() - ANOMALY_ROWS.min(sink.kept.len()) as u64) " more, in the JSON report." }
                        }
                    }
                }
                section #graphs {
                    h2 { "Connections over time" }
                    p { "Times are µs from the first packet analysed. Hover a mark for its frame, PSN and time; click a chart to widen it." }
                    @if drawn == 0 {
                        p { "No connection to draw." }
                    }
                    @for chart in &charts {
                        (chart)
                    }
                }
                section #pfc {
                    h2 { "PFC pauses" }
                    @if !report.priorities.is_empty() {
                        h3 { "Per priority" }
                        p { "Priority from the VLAN PCP, or the DSCP through --dscp-map. Paused time is the longest any one sender paused the priority, as a PFC watchdog on that port sees it." }
                        (priorities::render(&report.priorities))
                    }
                    @match &analyzer.pfc.lanes {
                        Some(lanes) if !lanes.lanes.is_empty() => (pause::render(lanes, &analyzer.pfc.cascades, &stalled(analyzer), origin)),
                        _ => p { "No pause frames." },
                    }
                }
                section #crc {
                    h2 { "CRC failures" }
                    @match &analyzer.crc_lanes {
                        Some(lanes) if !lanes.lanes.is_empty() => (crc::render(lanes, origin, analyzer.last_ts.unwrap_or(origin))),
                        _ => p { "No ICRC or VCRC failures." },
                    }
                }
                @if !nvme_queues.is_empty() {
                    section #nvme {
                        h2 { "NVMe-oF queues (" (nvme_queues.len()) ")" }
                        p { "Times are µs from the first packet analysed. Hover a mark for its command." }
                        (nvme::render(&nvme_queues, origin))
                    }
                }
                @for (protocol, connections) in &session_protocols {
                    section id=(protocol.id) {
                        h2 { (protocol.title) " connections (" (connections.len()) ")" }
                        p { "Times are µs from the first packet analysed. Hover a mark for its " (protocol.words.one) "." }
                        (sessions::render(protocol, connections, origin))
                    }
                }
                div #tooltip role="tooltip" hidden {}
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    page.into_string()
}

fn counts(report: &Report<'_>, analyzer: &Analyzer) -> Markup {
    let sink = &analyzer.anomalies;
    let mut rows: Vec<(&str, String)> = vec![
        ("packets analysed", report.capture.analyzed.to_string()),
        (
            "capture span (µs)",
            match (analyzer.first_ts, analyzer.last_ts) {
                (Some(a), Some(b)) => format!("{:.3}", b.saturating_sub(a) as f64 / 1e3),
                _ => "-".into(),
            },
        ),
        ("ICRC bad", report.icrc.bad.to_string()),
        ("VCRC bad", report.vcrc.bad.to_string()),
        ("ECN CE", report.ecn_ce.to_string()),
        ("CNPs", analyzer.counts.cnp.to_string()),
        ("PFC frames", analyzer.pfc.pfc_frames.to_string()),
        ("anomalies", sink.total().to_string()),
    ];
    rows.extend(capture_loss(report));
    html! {
        table.counts {
            @for (name, value) in &rows {
                tr { th { (name) } td.num { (value) } }
            }
        }
    }
}

/// What the capture missed, when it missed anything: not network loss, as the responders
/// acknowledged it.
fn capture_loss(report: &Report<'_>) -> Vec<(&'static str, String)> {
    let loss = &report.capture_loss;
    let mut rows = Vec::new();
    if loss.missed > 0 {
        rows.push((
            "capture missed (acknowledged, not network loss)",
            format!(
                "{} of {} ({:.1}%)",
                loss.missed,
                loss.expected(),
                loss.ratio() * 100.0
            ),
        ));
    }
    if loss.unconfirmed > 0 {
        rows.push(("skipped PSNs unconfirmed", loss.unconfirmed.to_string()));
    }
    rows
}

/// Every connection direction that stalled with a known priority, in connection order.
fn stalled(analyzer: &Analyzer) -> Vec<pause::Stalled<'_>> {
    let mut out = Vec::new();
    for c in Connection::all(&analyzer.connections) {
        let ways = [
            (c.a_to_b(), c.a_addr, c.b_addr, c.b_qpn),
            (c.b_to_a(), c.b_addr, c.a_addr, c.a_qpn),
        ];
        for (d, from, to, qpn) in ways {
            let Some(class) = d.req.class else { continue };
            if d.stalls().is_empty() {
                continue;
            }
            out.push(pause::Stalled {
                name: format!("{from} → {}", end_name(&to, qpn)),
                priority: class.priority,
                stalls: d.stalls(),
            });
        }
    }
    out
}

fn end_name(addr: &crate::dissect::Address, qpn: Option<u32>) -> String {
    match qpn {
        Some(q) => format!("{addr} qp {q:#x}"),
        None => format!("{addr} qp ?"),
    }
}

/// The connections in rank order (worst first, by time lost), every column sortable in the
/// browser by clicking its header: each cell's `data-sort` holds the number it sorts by.
fn connection_table(ranked: &[(Connection<'_>, Place)], drawn: usize) -> Markup {
    let micros = |ns: u64| format!("{:.1}", ns as f64 / 1e3);
    html! {
        table.sortable {
            thead { tr {
                th data-type="num" { "#" } th { "A" } th { "B" } th { "transport" }
                th data-type="num" title="stall + retransmission waits + paused, both directions" { "lost (µs)" }
                th data-type="num" { "stall (µs)" }
                th data-type="num" { "retx" }
                th data-type="num" { "goodput a→b (Gb/s)" } th data-type="num" { "goodput b→a (Gb/s)" }
                th data-type="num" title="goodput of the busier direction over the median of the connections between the same hosts, or of the capture" { "vs median" }
                th data-type="num" { "RTT p50 (µs)" }
                th data-type="num" { "CE" } th data-type="num" { "CNPs" } th data-type="num" { "NAKs" }
                th data-type="num" { "bytes" }
                th data-type="num" { "first frame" } th { "history" }
            } }
            tbody {
                @for (i, (c, place)) in ranked.iter().take(TABLE_ROWS).enumerate() {
                    @let (ab, ba) = (c.a_to_b(), c.b_to_a());
                    @let lost = place.time_lost.total_ns();
                    @let retx = ab.retransmission_episodes() + ba.retransmission_episodes();
                    @let rtt = [ab, ba].into_iter().map(|d| &d.rsp.rtt).find(|s| s.count() > 0).and_then(|s| s.quantile(0.5));
                    @let ce = u64::from(ab.req.ecn_ce) + u64::from(ba.req.ecn_ce);
                    tr {
                        td.num data-sort=(place.rank) { @if i < drawn { a href=(format!("#conn-{i}")) { (place.rank) } } @else { (place.rank) } }
                        td { (end_name(&c.a_addr, c.a_qpn)) }
                        td { (end_name(&c.b_addr, c.b_qpn)) }
                        td { (c.transport()) }
                        td.num data-sort=(lost) { (micros(lost)) }
                        td.num data-sort=(place.time_lost.stall_ns) { (micros(place.time_lost.stall_ns)) }
                        td.num data-sort=(retx) { (retx_causes(&ab, &ba)) }
                        td.num data-sort=[ab.req.goodput_bps()] data-goodput-bps=[ab.req.goodput_bps()] { (gbps(ab.req.goodput_bps())) }
                        td.num data-sort=[ba.req.goodput_bps()] data-goodput-bps=[ba.req.goodput_bps()] { (gbps(ba.req.goodput_bps())) }
                        td.num data-sort=[place.goodput_vs_median.map(|v| v.0)] { (place.goodput_vs_median.map_or("-".to_string(), |v| format!("{:.2}×", v.0))) }
                        td.num data-sort=[rtt] { (rtt.map_or("-".to_string(), micros)) }
                        td.num data-sort=(ce) { (ce) }
                        td.num data-sort=(place.badness.cnps) { (place.badness.cnps) }
                        td.num data-sort=(place.badness.naks) { (place.badness.naks) }
                        td.num data-sort=(place.badness.bytes) { (place.badness.bytes) }
                        td.num data-sort=(c.first().frame) { (c.first().frame) }
                        td { code { (c.history()) } }
                    }
                }
            }
        }
        @if ranked.len() > TABLE_ROWS {
            p.note { (ranked.len() - TABLE_ROWS) " more connections, in the JSON report." }
        }
    }
}

/// Gb/s with three decimals; `-` for a direction that sent no requests.
fn gbps(bps: Option<u64>) -> String {
    bps.map_or("-".to_string(), |b| format!("{:.3}", b as f64 / 1e9))
}

/// Each connection's charts, in rank order. Drawing them is most of what the page costs
/// once the analysis is done (4.2 of 8 ms on the benchmark capture, on two threads), and
/// each stands alone, so they are drawn side by side: the threads take the next undrawn
/// connection until none is left. A thread that cannot be started leaves its share to
/// the others; this one always draws.
fn draw_connections(
    ranked: &[(Connection<'_>, Place)],
    origin: u64,
    icrc_bad: &[BadPacket],
    threads: usize,
) -> Vec<Markup> {
    let next = AtomicUsize::new(0);
    let draw = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some((conn, _)) = ranked.get(i) else {
                return mine;
            };
            mine.push((i, connection(i, conn, origin, icrc_bad)));
        }
    };
    let mut drawn: Vec<(usize, Markup)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.min(ranked.len()))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, draw).ok())
            .collect();
        let mut drawn = draw();
        for helper in helpers {
            drawn.extend(
                helper
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        drawn
    });
    drawn.sort_unstable_by_key(|&(i, _)| i);
    drawn.into_iter().map(|(_, chart)| chart).collect()
}

/// An ICRC-bad packet of the anomalies kept, with where it went.
struct BadPacket {
    src: Address,
    dst: Address,
    dest_qp: u32,
    at: sequence::IcrcBad,
}

fn icrc_bad_packets(analyzer: &Analyzer) -> Vec<BadPacket> {
    analyzer
        .anomalies
        .kept
        .iter()
        .filter_map(|a| match &a.detail {
            AnomalyDetail::IcrcBad(_, e) => Some(BadPacket {
                src: e.src?,
                dst: e.dst?,
                dest_qp: e.dest_qp?,
                at: sequence::IcrcBad {
                    frame: a.at.frame,
                    ts_ns: a.at.ts_ns?,
                },
            }),
            _ => None,
        })
        .collect()
}

/// The ICRC-bad packets of the direction from `from` to `to`: its requests, and the
/// responses to them (which its time-sequence graph draws as ACKs).
fn bad_of(
    icrc_bad: &[BadPacket],
    from: (Address, Option<u32>),
    to: (Address, Option<u32>),
) -> Vec<sequence::IcrcBad> {
    icrc_bad
        .iter()
        .filter(|b| {
            let request = b.src == from.0 && b.dst == to.0 && Some(b.dest_qp) == to.1;
            let response = b.src == to.0 && b.dst == from.0 && Some(b.dest_qp) == from.1;
            request || response
        })
        .map(|b| b.at)
        .collect()
}

fn connection(i: usize, c: &Connection<'_>, origin: u64, icrc_bad: &[BadPacket]) -> Markup {
    let a = end_name(&c.a_addr, c.a_qpn);
    let b = end_name(&c.b_addr, c.b_qpn);
    let ab = format!("{a} → {b}");
    let ba = format!("{b} → {a}");
    let directions: [(&str, Direction<'_>); 2] = [(&ab, c.a_to_b()), (&ba, c.b_to_a())];
    let sequences = directions.map(|(_, d)| {
        d.req
            .series
            .as_ref()
            .and_then(|s| s.sequence.as_ref())
            .filter(|s| !s.points.is_empty())
    });
    // Both directions' charts share one time axis, cut into the same intervals.
    let span = rates::span(sequences.iter().flatten().copied());
    let rates = [0, 1].map(|i| {
        (
            directions[i].0,
            sequences[i]
                .zip(span)
                .map(|(s, span)| rates::Rates::of(s, span)),
        )
    });
    let (a_end, b_end) = ((c.a_addr, c.a_qpn), (c.b_addr, c.b_qpn));
    let bad = [
        bad_of(icrc_bad, a_end, b_end),
        bad_of(icrc_bad, b_end, a_end),
    ];
    let goodput = [0, 1].map(|i| {
        (
            directions[i].0,
            sequences[i]
                .zip(span)
                .map(|(s, span)| rates::Rates::of_goodput(s, span)),
        )
    });
    html! {
        article.connection #(format!("conn-{i}")) {
            h3 { (i + 1) ". " (a) " ↔ " (b) " (" (c.transport()) ")" }
            @for (i, (name, _)) in directions.iter().enumerate() {
                @if let Some(seq) = sequences[i] {
                    (sequence::render(seq, origin, &format!("Time sequence: {name}"), &bad[i]))
                }
            }
            (throughput::render(&goodput, origin))
            (latency::render(&rates, origin))
        }
    }
}
