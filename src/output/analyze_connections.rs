//! The connection table that leads the `analyze` report: one row per QP connection.
//! Addresses are shortened by the prefix all of them share, never cut mid-way, so that a
//! row fits 100 columns.

use std::fmt::Write;

use comfy_table::Cell;

use super::analyze_text::{Style, flagged, number, table};
use crate::analyze::connections::PairedBy;
use crate::report::Report;
use crate::report::connections::{Connection, Direction, retx_causes};

/// History letters shown before the rest is elided.
const HISTORY_SHOWN: usize = 16;

pub fn render(out: &mut String, report: &Report<'_>, style: Style) {
    let ranked = report.connections.ranked();
    if ranked.is_empty() {
        return;
    }
    let all: Vec<Connection<'_>> = ranked.iter().map(|(c, _)| *c).collect();
    let shown = style.connections.unwrap_or(usize::MAX);
    let _ = writeln!(out, "\nConnections ({})", all.len());
    let _ = writeln!(
        out,
        "  worst first, by time lost: stall + retransmission waits + paused"
    );
    let _ = writeln!(out, "  goodput per direction, a→b/b→a; rtt p50/p99");
    let names: Vec<String> = all
        .iter()
        .flat_map(|c| [c.a_addr.to_string(), c.b_addr.to_string()])
        .collect();
    let prefix = common_prefix(&names);
    if !prefix.is_empty() {
        let _ = writeln!(out, "  addresses shortened: {prefix}x shown as .x or :x");
    }
    let short = |name: String| match name.strip_prefix(prefix.as_str()) {
        Some(rest) if !prefix.is_empty() => {
            format!("{}{rest}", &prefix[prefix.len() - 1..])
        }
        _ => name,
    };
    let mut t = table(
        style,
        &[
            "connection",
            "tr",
            "pairing",
            "msgs",
            "goodput Gb/s",
            "rtt us",
            "retx",
            "lost",
            "stall",
            "ce",
            "cnp",
            "history",
        ],
    );
    for (c, place) in ranked.iter().take(shown) {
        let qpn = |q: Option<u32>| q.map_or("?".to_string(), |q| format!("{q:#x}"));
        let (ab, ba) = (c.a_to_b(), c.b_to_a());
        // Each direction its own: a→b/b→a.
        let goodput = match (ab.req.goodput_bps(), ba.req.goodput_bps()) {
            (None, None) => "-".to_string(),
            (x, y) => format!("{}/{}", gbps(x), gbps(y)),
        };
        let rtt = [ab, ba]
            .into_iter()
            .map(|d| &d.rsp.rtt)
            .find(|s| s.count() > 0)
            .map_or("-".to_string(), |s| {
                format!(
                    "{}/{}",
                    micros(s.quantile(0.5).unwrap_or(0)),
                    micros(s.quantile(0.99).unwrap_or(0))
                )
            });
        let mut history = c.history();
        if history.chars().count() > HISTORY_SHOWN {
            history = history.chars().take(HISTORY_SHOWN - 1).collect::<String>() + "…";
        }
        let pairing = match c.paired_by() {
            PairedBy::Traffic if c.candidates() > 1 => format!("traffic?{}", c.candidates()),
            other => other.name().to_string(),
        };
        t.add_row(vec![
            Cell::new(format!(
                "{}:{} ↔ {}:{}",
                short(c.a_addr.to_string()),
                qpn(c.a_qpn),
                short(c.b_addr.to_string()),
                qpn(c.b_qpn)
            )),
            Cell::new(c.transport()),
            Cell::new(pairing),
            number(ab.messages() + ba.messages()),
            Cell::new(goodput).set_alignment(comfy_table::CellAlignment::Right),
            Cell::new(rtt).set_alignment(comfy_table::CellAlignment::Right),
            retx(ab, ba, style),
            duration(place.time_lost.total_ns(), style),
            duration(place.time_lost.stall_ns, style),
            number(ab.req.ecn_ce + ba.req.ecn_ce),
            number(ab.rsp.cnps + ba.rsp.cnps),
            Cell::new(history),
        ]);
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
    if all.len() > shown {
        let _ = writeln!(
            out,
            "  ... {} more connections not shown (--all lists them; --json has them all)",
            all.len() - shown
        );
    }
}

/// A time lost, short: `0`, `850ns`, `442us`, `4.2ms`, `1.25s`; red when not zero.
fn duration(ns: u64, style: Style) -> Cell {
    let text = match ns {
        0 => "0".to_string(),
        1..1_000 => format!("{ns}ns"),
        1_000..1_000_000 => format!("{}us", ns / 1_000),
        1_000_000..1_000_000_000 => format!("{:.1}ms", ns as f64 / 1e6),
        _ => format!("{:.2}s", ns as f64 / 1e9),
    };
    let cell = Cell::new(text).set_alignment(comfy_table::CellAlignment::Right);
    if style.color && ns > 0 {
        cell.fg(comfy_table::Color::Red)
    } else {
        cell
    }
}

/// Retransmission episodes of both directions with their causes, red when any.
fn retx(ab: Direction<'_>, ba: Direction<'_>, style: Style) -> Cell {
    if ab.retransmission_episodes() + ba.retransmission_episodes() == 0 {
        return flagged(0u64, style);
    }
    let cell = Cell::new(retx_causes(&ab, &ba)).set_alignment(comfy_table::CellAlignment::Right);
    if style.color {
        cell.fg(comfy_table::Color::Red)
    } else {
        cell
    }
}

/// The leading groups (up to and including a separator) that every address shares, as
/// long as each keeps at least one group of its own.
fn common_prefix(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    if names.len() < 2 || first.starts_with("lid") {
        return String::new();
    }
    let mut cut = 0;
    for (i, ch) in first.char_indices() {
        if ch == '.' || ch == ':' {
            let candidate = &first[..=i];
            if names
                .iter()
                .all(|n| n.starts_with(candidate) && n.len() > candidate.len())
            {
                cut = i + 1;
            } else {
                break;
            }
        }
    }
    first[..cut].to_string()
}

/// Gb/s to about three significant digits, `-` for a direction with no requests.
fn gbps(bps: Option<u64>) -> String {
    let Some(bps) = bps else {
        return "-".to_string();
    };
    let g = bps as f64 / 1e9;
    if g >= 10.0 {
        format!("{g:.1}")
    } else if g >= 1.0 {
        format!("{g:.2}")
    } else {
        format!("{g:.3}")
    }
}

fn micros(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1000.0)
}
