//! The human report: summary, flow table, PFC table, anomaly list. Laid out to read in an
//! 80-column terminal for IPv4 and LID addresses; wider addresses wrap when stdout is a
//! terminal and run long when it is not.

use std::fmt::Write;

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, LineStyle, Table, TableStyle};

use crate::analyze::key::{FrameRef, PmtuSource};
use crate::analyze::pfc::ALL_PRIORITIES;
use crate::analyze::{AnomalyDetail, AnomalyKind, CrcCounts};
use crate::capture::merge::InputStatus;
use crate::dissect::Kind;
use crate::output::time::UtcDateTime;
use crate::report::{Priority, Report, Seconds};
use crate::wire::opcode::Role;

/// Flows listed; a capture with more shows the most eventful ones.
const FLOWS_SHOWN: usize = 40;

/// CNP targets whose CE-to-CNP delay the summary names.
const CNP_DELAYS_SHOWN: usize = 2;

/// Anomalies listed in full before the rest are summarised.
const ANOMALIES_SHOWN: usize = 25;

/// Connections the text report lists by default, worst first; `--all` lists every one.
pub const CONNECTIONS_SHOWN: usize = 20;

#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    /// Terminal width to wrap tables to; `None` when stdout is not a terminal.
    pub width: Option<u16>,
    /// Connections listed, worst first; `None` for all of them (`--all`).
    pub connections: Option<usize>,
}

pub(super) fn table(style: Style, header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')));
    t.set_header(header.iter().map(Cell::new));
    match style.width {
        Some(width) => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
            t.set_width(width);
        }
        None => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    if !style.color {
        t.force_no_tty();
    } else {
        t.enforce_styling();
    }
    for column in t.column_iter_mut() {
        column.set_padding((0, 1));
    }
    t
}

/// Nanoseconds as milliseconds to the microsecond, `-` for none: the latency columns.
pub(super) fn ms(ns: Option<u64>) -> String {
    ns.map_or("-".to_string(), |ns| format!("{:.3}", ns as f64 / 1e6))
}

pub(super) fn number(n: impl Into<u64>) -> Cell {
    Cell::new(n.into()).set_alignment(CellAlignment::Right)
}

pub(super) fn flagged(n: impl Into<u64>, style: Style) -> Cell {
    let n = n.into();
    let cell = number(n);
    if n > 0 && style.color {
        cell.fg(Color::Red)
    } else {
        cell
    }
}

fn role(role: Role) -> &'static str {
    match role {
        Role::Request => "req",
        Role::Response => "rsp",
        Role::Cnp => "cnp",
        Role::Unknown => "?",
    }
}

pub(super) fn where_(at: FrameRef, files: &[String]) -> String {
    if files.len() > 1 {
        let path = files.get(usize::from(at.file)).map_or("?", |s| s.as_str());
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.into(), |n| n.to_string_lossy());
        format!("{name}:{}", at.frame)
    } else {
        at.frame.to_string()
    }
}

pub fn render(report: &Report<'_>, style: Style) -> String {
    let mut out = String::new();
    failed_inputs(&mut out, report);
    summary(&mut out, report);
    super::analyze_connections::render(&mut out, report, style);
    flows(&mut out, report, style);
    pfc(&mut out, report, style);
    priorities(&mut out, report, style);
    super::analyze_nvme::render(&mut out, report, style);
    super::analyze_sessions::render(&mut out, report, style);
    anomalies(&mut out, report, style);
    out
}

/// First, since the rest of the report lacks their frames: a pipeline that reads only the
/// report must not take it for a whole capture.
fn failed_inputs(out: &mut String, report: &Report<'_>) {
    let Some(inputs) = &report.inputs else {
        return;
    };
    let failed: Vec<String> = inputs
        .iter()
        .filter(|i| i.status == InputStatus::Failed.name())
        .map(|i| format!("{}: {}", i.path, i.error.unwrap_or("failed")))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "rdmadump: {} of {} inputs failed: {}",
            failed.len(),
            inputs.len(),
            failed.join("; ")
        );
    }
    for input in inputs {
        if let Some(skipped) = &input.skipped {
            let _ = write!(
                out,
                "rdmadump: {} was read past damage: {} damaged blocks and {} bytes skipped",
                input.path, skipped.blocks, skipped.bytes
            );
            if skipped.warnings_not_listed > 0 {
                let _ = write!(out, ", {} warnings not listed", skipped.warnings_not_listed);
            }
            out.push('\n');
        }
    }
}

fn summary(out: &mut String, a: &Report<'_>) {
    let capture = &a.capture;
    let _ = writeln!(out, "Capture: {}", capture.files.join(", "));
    let (span, dates) = match (capture.first_ts, capture.last_ts) {
        (Some(first), Some(last)) => {
            let (first, last) = (first.0, last.0);
            (
                format!(", {} s", Seconds(last.saturating_sub(first))),
                // On lines of their own, as capinfos gives them, so that the summary fits
                // a narrow terminal.
                format!(
                    "  first packet {} UTC\n  last packet  {} UTC\n",
                    UtcDateTime(first),
                    UtcDateTime(last)
                ),
            )
        }
        _ => (String::new(), String::new()),
    };
    // With --qp, the capture's own total alone would read as the connection's.
    let packets = match a.config.qp {
        Some(qp) => format!(
            "{} packets analysed (--qp {qp:#x}), {} in the capture",
            capture.analyzed, capture.packets
        ),
        None => format!("{} packets", capture.packets),
    };
    let _ = writeln!(
        out,
        "  {packets}{span}{}",
        if capture.truncated {
            ", capture cut short"
        } else {
            ""
        }
    );
    out.push_str(&dates);
    capture_points(out, a);
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .filter(|k| a.counts.get(**k) > 0)
        .map(|k| format!("{} {}", k.name(), a.counts.get(*k)))
        .collect();
    let _ = writeln!(
        out,
        "  kinds: {}",
        if kinds.is_empty() {
            "none".into()
        } else {
            kinds.join(", ")
        }
    );
    let crc = |c: CrcCounts| {
        format!(
            "{} ok, {} bad, {} unverifiable",
            c.ok, c.bad, c.unverifiable
        )
    };
    let _ = write!(out, "  ICRC: {}", crc(a.icrc));
    if capture.seen_twice_crc_bad > 0 {
        let _ = write!(
            out,
            " ({} bad again at another point, counted once)",
            grouped(capture.seen_twice_crc_bad)
        );
    }
    out.push('\n');
    if a.vcrc.ok + a.vcrc.bad + a.vcrc.unverifiable > 0 {
        let _ = writeln!(out, "  VCRC: {}", crc(a.vcrc));
    }
    let _ = write!(
        out,
        "  congestion: {} ECN-CE marked, {} CNPs",
        a.ecn_ce, a.counts.cnp
    );
    if a.fecn + a.becn > 0 {
        let _ = write!(out, ", {} FECN, {} BECN", a.fecn, a.becn);
    }
    out.push('\n');
    // Only delays paired on one QP: the capture-wide first-CE-to-first-CNP figure may join
    // marks and CNPs of unrelated connections, so it stays in the JSON alone.
    let paired: Vec<String> = a
        .congestion
        .cnp_targets
        .iter()
        .filter_map(|t| {
            t.ce_to_cnp_ns.map(|delay| {
                format!(
                    "{} us (to {} qp {:#x})",
                    delay / 1000,
                    t.id.dst,
                    t.id.dest_qp
                )
            })
        })
        .collect();
    if !paired.is_empty() {
        let shown = paired.len().min(CNP_DELAYS_SHOWN);
        let _ = write!(
            out,
            "  CE to first CNP, same QP: {}",
            paired[..shown].join(", ")
        );
        if paired.len() > shown {
            let _ = write!(out, ", ... {} more (see --json)", paired.len() - shown);
        }
        out.push('\n');
    }
    super::analyze_cnp::render(out, a);
    capture_loss(out, a);
    stalls(out, a);
    if let Some(budget) = &a.budget {
        let _ = writeln!(out, "  {}", budget.sentence());
    }
    // Flows `--max-flows` evicted, not the budget.
    let idle = a.flow_table.evicted - a.budget.map_or(0, |b| b.evicted_flows);
    if idle > 0 {
        let _ = writeln!(out, "  flow table full: {idle} idle flows evicted");
    }
    if let Some(pmtu) = a.config.pmtu {
        let _ = writeln!(out, "  PMTU {pmtu} (given)");
    }
}

/// The estimate of what the capture missed, so that a reader of a lossy sniffer's capture
/// does not take its gaps for network loss.
/// What the files are: one capture (whole or in pieces), or several points of the same
/// traffic with their clock offsets; a reader of the counts below needs to know which.
fn capture_points(out: &mut String, a: &Report<'_>) {
    let capture = &a.capture;
    if capture.files.len() < 2 {
        return;
    }
    let Some(points) = &a.capture_points else {
        let why = if a.config.single_point {
            "--single-point"
        } else {
            "no packet seen twice"
        };
        let _ = writeln!(
            out,
            "  {} files, one capture point ({why})",
            capture.files.len()
        );
        return;
    };
    let rows = points.rows();
    let _ = writeln!(
        out,
        "  {} files, {} capture points; times on {}'s clock",
        capture.files.len(),
        rows.len(),
        rows.first().map_or("", |r| r.file)
    );
    for row in &rows {
        let pieces = if row.files.len() > 1 {
            format!(" (+{} pieces)", row.files.len() - 1)
        } else {
            String::new()
        };
        let offset = match (row.offset_ns, row.offset_method) {
            (_, "reference") => "reference clock".to_string(),
            (Some(ns), method) => {
                let mut s = format!("offset {:+.3} us, {method}", ns as f64 / 1e3);
                if row.offset_samples > 0 {
                    let _ = write!(s, ", {} matches", grouped(row.offset_samples));
                }
                if let Some(spread) = row.offset_spread_ns {
                    let _ = write!(s, ", spread {:.3} us", spread as f64 / 1e3);
                }
                s
            }
            (None, _) => "offset unknown (no packet matched a point of known offset)".to_string(),
        };
        let _ = writeln!(
            out,
            "    {}{pieces}: {offset}; {} first seen here, {} copies",
            row.file,
            grouped(row.first_seen),
            grouped(row.copies)
        );
    }
    if capture.seen_twice > 0 {
        let _ = writeln!(
            out,
            "  seen at 2 points or more: {} frames, counted once",
            grouped(capture.seen_twice)
        );
    }
    for lost in points.lost() {
        let _ = writeln!(
            out,
            "  lost between points: {} packets seen at {} and missing at {}",
            grouped(lost.packets),
            lost.seen_at,
            lost.missing_at
        );
    }
}

fn capture_loss(out: &mut String, a: &Report<'_>) {
    let loss = &a.capture_loss;
    if loss.missed > 0 {
        let _ = writeln!(
            out,
            "  capture missed ≈ {} of {} request packets ({}): the responders acknowledged \
             them; this is not network loss",
            grouped(loss.missed),
            grouped(loss.expected()),
            percent(loss.ratio())
        );
    }
    if loss.unconfirmed > 0 {
        let _ = writeln!(
            out,
            "  {} skipped PSNs unconfirmed: neither acknowledged nor repaired in the capture",
            grouped(loss.unconfirmed)
        );
    }
}

/// Stalls named in the summary, the longest first.
const STALLS_SHOWN: usize = 5;

/// The longest stalls and what overlapped them: a stall is lost time, and what overlapped
/// it is the first suspect.
fn stalls(out: &mut String, a: &Report<'_>) {
    for placed in crate::report::stalls::longest(a.connections.table, STALLS_SHOWN) {
        let s = placed.stall;
        let qpn = placed.qpn.map_or(String::new(), |q| format!(" qp {q:#x}"));
        let _ = writeln!(
            out,
            "  stalled {} us: {}; {} → {}{qpn}, ended by {} at frame {}",
            s.duration_ns / 1000,
            crate::report::stalls::overlaps(s),
            placed.from,
            placed.to,
            s.ended_by.name().replace('_', " "),
            s.frame
        );
    }
    let unseen = crate::report::stalls::unseen(a.connections.table);
    if unseen.count > 0 {
        let (silences, are, stalls) = if unseen.count == 1 {
            ("silence", "is", "a stall")
        } else {
            ("silences", "are", "stalls")
        };
        let _ = writeln!(
            out,
            "  {} {silences} over the stall threshold ({} us) {are} not {stalls}: traffic the capture did not see ended them",
            grouped(unseen.count),
            grouped(unseen.ns / 1000)
        );
    }
    let unconfirmed = crate::report::stalls::unconfirmed(a.connections.table);
    if unconfirmed.count > 0 {
        let (silences, are, stalls, it) = if unconfirmed.count == 1 {
            ("silence", "is", "a stall", "it")
        } else {
            ("silences", "are", "stalls", "each")
        };
        let _ = writeln!(
            out,
            "  {} {silences} over the stall threshold ({} us) {are} not confirmed as {stalls}: a new request ended {it}, and an ACK the capture missed may have left nothing outstanding",
            grouped(unconfirmed.count),
            grouped(unconfirmed.ns / 1000)
        );
    }
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A ratio as a percentage: whole percents, or one decimal below 10%.
fn percent(ratio: f64) -> String {
    let pct = ratio * 100.0;
    if pct >= 10.0 {
        format!("{pct:.0}%")
    } else {
        format!("{pct:.1}%")
    }
}

fn flows(out: &mut String, a: &Report<'_>, style: Style) {
    let mut sorted = a.flows.rows.clone();
    let _ = writeln!(out, "\nFlows ({})", sorted.len());
    if sorted.is_empty() {
        return;
    }
    let hidden = sorted.len().saturating_sub(FLOWS_SHOWN);
    if hidden > 0 {
        // Keep the flows that most deserve a look: trouble first, then traffic; show them
        // in order of appearance.
        sorted.sort_by_key(|(_, f)| {
            let trouble =
                u64::from(f.psn_gaps + f.retransmitted + f.naks + f.rnr_naks + f.ecn_ce + f.cnps);
            std::cmp::Reverse((trouble, f.packets))
        });
        sorted.truncate(FLOWS_SHOWN);
        sorted.sort_by_key(|(_, f)| f.order);
    }
    let mut t = table(
        style,
        &[
            "flow", "qp", "role", "pkts", "gaps", "retx", "gbn", "nak", "rnr", "ce", "cnp",
        ],
    );
    for (key, flow) in &sorted {
        t.add_row(vec![
            Cell::new(format!("{} > {}", key.src, key.dst)),
            Cell::new(format!("{:#x}", key.dest_qp)),
            Cell::new(role(key.role)),
            number(flow.packets),
            flagged(flow.psn_gaps, style),
            flagged(flow.retransmitted, style),
            flagged(flow.go_back_n, style),
            flagged(flow.naks, style),
            flagged(flow.rnr_naks, style),
            number(flow.ecn_ce),
            number(flow.cnps),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
    if hidden > 0 {
        let _ = writeln!(out, "  ... {hidden} quieter flows not shown (see --json)");
    }
    let inferred: Vec<String> = sorted
        .iter()
        .filter_map(|(key, flow)| match flow.pmtu_used {
            Some((pmtu, PmtuSource::Inferred)) => Some(format!(
                "{} > {} qp {:#x}: {pmtu}",
                key.src, key.dst, key.dest_qp
            )),
            _ => None,
        })
        .collect();
    if !inferred.is_empty() {
        let _ = writeln!(
            out,
            "  PMTU inferred from the largest payload (give --pmtu to be exact): {}",
            inferred.join("; ")
        );
    }
}

fn pfc(out: &mut String, a: &Report<'_>, style: Style) {
    let tracker = &a.pfc;
    if tracker.frames + tracker.pause_8023x == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "\nPFC: {} PFC frames, {} 802.3x PAUSE frames, {} storms, {} cascades",
        tracker.frames, tracker.pause_8023x, tracker.storm_count, tracker.cascade_count
    );
    let mut t = table(style, &["sender", "prio", "frames", "xon", "paused ms"]);
    for stats in &tracker.senders {
        t.add_row(vec![
            Cell::new(stats.src),
            Cell::new(stats.priority.name()),
            number(stats.frames),
            number(stats.xon_frames),
            Cell::new(format!("{:.3}", stats.paused_ns as f64 / 1e6))
                .set_alignment(CellAlignment::Right),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
}

/// What each priority carried and how long it was paused.
fn priorities(out: &mut String, a: &Report<'_>, style: Style) {
    if a.priorities.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nPriorities");
    let mut t = table(
        style,
        &[
            "prio",
            "by",
            "dscp",
            "packets",
            "bytes",
            "ce",
            "cnp",
            "paused ms",
            "paused",
        ],
    );
    for row in &a.priorities {
        let dscps: Vec<String> = row
            .dscp
            .iter()
            .map(|d| d.dscp.map_or("-".to_string(), |d| d.to_string()))
            .collect();
        t.add_row(vec![
            Cell::new(row.priority),
            Cell::new(row.sources.join("+")),
            Cell::new(dscps.join(",")),
            number(row.packets),
            number(row.bytes),
            number(row.ce),
            number(row.cnps),
            Cell::new(format!("{:.3}", row.paused_ns as f64 / 1e6))
                .set_alignment(CellAlignment::Right),
            Cell::new(row.pause_fraction.map_or("-".to_string(), percent))
                .set_alignment(CellAlignment::Right),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
}

pub(super) fn describe(detail: &AnomalyDetail, files: &[String]) -> String {
    match detail {
        AnomalyDetail::PsnGap {
            flow,
            psn,
            expected,
            missing,
        } => format!(
            "{} > {} qp {:#x}: psn {psn}, expected {expected}, {missing} missing",
            flow.src, flow.dst, flow.dest_qp
        ),
        AnomalyDetail::GoBackN {
            flow,
            from_psn,
            to_psn,
            depth,
            nak,
            delay_ns,
            ..
        } => {
            let delay = match (delay_ns, nak) {
                (Some(d), Some(n)) => format!(", {} us after NAK (frame {})", d / 1000, n.frame),
                (Some(d), None) => format!(", {} us after the previous packet", d / 1000),
                _ => String::new(),
            };
            format!(
                "{} > {} qp {:#x}: back {depth} from psn {from_psn} to {to_psn}{delay}",
                flow.src, flow.dst, flow.dest_qp
            )
        }
        AnomalyDetail::Retransmission { flow, psn, episode } => {
            let waited = match episode.waited_ns {
                Some(ns) => format!(" after {} us", ns / 1000),
                None => String::new(),
            };
            format!(
                "{} > {} qp {:#x}: psn {psn} sent again{waited} ({})",
                flow.src,
                flow.dst,
                flow.dest_qp,
                episode.cause.name()
            )
        }
        AnomalyDetail::Nak { flow, psn, code } => {
            format!(
                "{} > {} qp {:#x}: psn {psn} {}",
                flow.src,
                flow.dst,
                flow.dest_qp,
                code.name()
            )
        }
        AnomalyDetail::RnrNak { flow, psn, timer } => {
            format!(
                "{} > {} qp {:#x}: psn {psn} timer {timer}",
                flow.src, flow.dst, flow.dest_qp
            )
        }
        AnomalyDetail::LostBetween {
            flow,
            psn,
            from,
            to,
        } => {
            let name = |i: &u16| files.get(usize::from(*i)).map_or("?", |f| f.as_str());
            format!(
                "{} > {} qp {:#x}: psn {psn} seen at {}, missing at {}",
                flow.src,
                flow.dst,
                flow.dest_qp,
                name(from),
                name(to)
            )
        }
        AnomalyDetail::IcrcBad(c, e) | AnomalyDetail::VcrcBad(c, e) => {
            let mut text = String::new();
            if let (Some(src), Some(dst)) = (e.src, e.dst) {
                let _ = write!(text, "{src} > {dst} ");
            }
            if let Some(qp) = e.dest_qp {
                let _ = write!(text, "qp {qp:#x} ");
            }
            if let (Some(src), Some(dst)) = (e.src_mac, e.dst_mac) {
                let _ = write!(text, "({src} > {dst}");
                if let Some(vlan) = e.vlan {
                    let _ = write!(text, " vlan {vlan}");
                }
                text.push_str(") ");
            }
            let _ = write!(
                text,
                "stored {:#010x}, computed {:#010x}",
                c.stored.unwrap_or(0),
                c.computed.unwrap_or(0)
            );
            text
        }
        AnomalyDetail::PfcStorm(s) if s.priority == ALL_PRIORITIES => format!(
            "{} 802.3x pause storm: link paused {} ms in {} frames",
            s.src,
            s.duration_ns / 1_000_000,
            s.frames
        ),
        AnomalyDetail::PfcStorm(s) => format!(
            "{} priority {} paused {} ms in {} frames",
            s.src,
            Priority(s.priority).name(),
            s.duration_ns / 1_000_000,
            s.frames
        ),
        AnomalyDetail::PauseCascade(c) => {
            let senders: Vec<String> = c
                .joins
                .iter()
                .map(|j| format!("{} (+{} us)", j.src, j.ns.saturating_sub(c.start_ns) / 1000))
                .collect();
            format!(
                "priority {}: {} paused together for {} us{} (span {} us)",
                Priority(c.priority).name(),
                senders.join(", "),
                c.overlap_ns / 1000,
                if c.overlap_partial { " or more" } else { "" },
                c.duration_ns / 1000
            )
        }
        AnomalyDetail::Malformed(err) => err.to_string(),
    }
}

fn anomalies(out: &mut String, a: &Report<'_>, style: Style) {
    let sink = a.anomaly_counts;
    let total = sink.total();
    let _ = writeln!(out, "\nAnomalies ({total})");
    if total == 0 {
        return;
    }
    let counts: Vec<String> = AnomalyKind::ALL
        .iter()
        .filter(|k| sink.count(**k) > 0)
        .map(|k| format!("{} {}", k.name(), sink.count(*k)))
        .collect();
    let _ = writeln!(out, "  {}", counts.join(", "));
    let mut t = table(style, &["frame", "kind", "detail"]);
    for anomaly in sink.kept.iter().take(ANOMALIES_SHOWN) {
        let kind = Cell::new(anomaly.detail.kind().name());
        t.add_row(vec![
            Cell::new(where_(anomaly.at, a.files())).set_alignment(CellAlignment::Right),
            if style.color {
                kind.fg(Color::Yellow)
            } else {
                kind
            },
            Cell::new(describe(&anomaly.detail, a.files())),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
    let more = total.saturating_sub(ANOMALIES_SHOWN as u64);
    if total > sink.limit() as u64 {
        let _ = writeln!(
            out,
            "  ... {more} more (--json lists the first {}; `rdmadump export` writes every \
             one to its events table)",
            sink.limit()
        );
    } else if more > 0 {
        let _ = writeln!(out, "  ... {more} more (see --json)");
    }
}
