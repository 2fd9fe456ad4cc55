//! The charts of one NVMe-oF queue or one RPC-over-RDMA, iSER or SMB Direct session: a
//! histogram of its answered commands' latencies and their latency over time, one mark per
//! command at its response. The protocols differ only in words and in what identifies a
//! command (a CID, or an XID, ITT or message ID), so they share this drawing.

use maud::{Markup, html};

use super::chart::{self, Frame, Key};
use super::palette;

/// Bars of a latency histogram: fewer when there are fewer commands.
const BINS: u64 = 20;

/// One answered command, as the time graph marks it.
pub struct Timed<'a> {
    pub end_ns: Option<u64>,
    pub latency_ns: Option<u64>,
    /// NVMe-oF's CID (`data-cid`), or the other protocols' key (`data-key`).
    pub cid: Option<u16>,
    pub key: Option<u64>,
    pub name: &'a str,
    pub command_frame: u64,
    pub response_frame: u64,
    pub status: &'a str,
    pub succeeded: bool,
}

/// What a protocol calls its commands, in captions.
pub struct Words {
    /// "command", "call", "request".
    pub one: &'static str,
    pub many: &'static str,
    /// What the latency spans, e.g. "command capsule to response capsule".
    pub span: &'static str,
    /// What answers a command, e.g. "response", "reply".
    pub answer: &'static str,
}

/// One queue's or session's commands, to chart.
pub struct Charted<'a> {
    /// `nvme`, `rpcrdma`, `iser`, `smbd`: the marks' `data-mark` prefix and the charts'
    /// class.
    pub protocol: &'a str,
    /// Which marks: `data-queue` for an NVMe-oF queue, `data-session` for the others.
    pub queue: Option<u32>,
    pub session: Option<u32>,
    pub words: &'a Words,
    pub timed: Vec<Timed<'a>>,
    /// The answered commands, whether or not `--memory` kept each one's row in `timed`.
    pub answered: u64,
}

/// The histogram and the time graph (µs from `origin_ns`), or why there are none.
pub fn render(c: &Charted<'_>, origin_ns: u64) -> Markup {
    let mut latencies: Vec<u64> = c.timed.iter().filter_map(|t| t.latency_ns).collect();
    latencies.sort_unstable();
    let drawn = c.timed.len() as u64;
    html! {
        @if drawn < c.answered {
            p.note.budget {
                (drawn) " of " (c.answered) " answered " (c.words.many) " drawn: the others did \
                 not fit --memory (the report's percentiles still count them all)."
            }
        }
        @if latencies.is_empty() {
            @if c.answered == 0 {
                p { "No " (c.words.one) " answered: nothing to time." }
            }
        } @else {
            (histogram(c, &latencies))
            (over_time(c, origin_ns))
        }
    }
}

/// How many answered commands took each span of latency: equal bins from 0 to the most.
fn histogram(c: &Charted<'_>, latencies: &[u64]) -> Markup {
    let max = latencies.last().copied().unwrap_or(0);
    // Bins of a round width (1, 2 or 5 times a power of ten ns) from 0 past the most.
    let width = round_up(max / BINS.min(latencies.len() as u64).max(1) + 1);
    let bins = max / width + 1;
    let mut counts = vec![0u64; bins as usize];
    for &l in latencies {
        counts[((l / width) as usize).min(bins as usize - 1)] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(0);
    let us = |ns: u64| ns as f64 / 1e3;
    // Counts are whole: no label between them.
    let whole = |v: f64| {
        if (v - v.round()).abs() < 1e-6 {
            format!("{v:.0}")
        } else {
            String::new()
        }
    };
    let kind = format!("chart-{}-histogram", c.protocol);
    let frame = Frame {
        kind: &kind,
        x_desc: "latency (µs)",
        y_desc: c.words.many,
        x: 0.0..us(width * bins),
        y: 0.0..most as f64,
        height: chart::HEIGHT * 3 / 4,
        lines: Vec::new(),
        y_label: Some(&whole),
        lanes: false,
        y_labels: (most as usize + 1).min(6),
    };
    let color = palette::css(palette::BLUE);
    let mark = format!("{}_bin", c.protocol);
    html! {
        figure {
            figcaption { "Latency, " (c.words.span) " (" (latencies.len()) " " (c.words.many) ")" }
            (frame.draw(|map| html! {
                @for (i, &count) in counts.iter().enumerate() {
                    @if count > 0 {
                        @let lo = i as u64 * width;
                        @let hi = lo + width;
                        @let (x0, top) = map(us(lo), count as f64);
                        @let (x1, bottom) = map(us(hi), 0.0);
                        rect data-mark=(mark) data-queue=[c.queue] data-session=[c.session]
                            data-lo-ns=(lo) data-hi-ns=(hi) data-count=(count) x=(x0) y=(top)
                            width=((x1 - x0 - 1).max(1)) height=((bottom - top).max(1))
                            fill=(color) {}
                    }
                }
            }))
        }
    }
}

/// The least of 1, 2 or 5 times a power of ten that is at least `ns`.
fn round_up(ns: u64) -> u64 {
    let mut power = 1u64;
    while power.saturating_mul(10) < ns {
        power *= 10;
    }
    [1, 2, 5, 10]
        .into_iter()
        .map(|m| power.saturating_mul(m))
        .find(|&w| w >= ns)
        .unwrap_or(u64::MAX)
}

/// Each answered command's latency at its response's time.
fn over_time(c: &Charted<'_>, origin_ns: u64) -> Markup {
    let points: Vec<(f64, f64, &Timed)> = c
        .timed
        .iter()
        .filter_map(|t| {
            let (end, latency) = (t.end_ns?, t.latency_ns?);
            Some((
                end.saturating_sub(origin_ns) as f64 / 1e3,
                latency as f64 / 1e3,
                t,
            ))
        })
        .collect();
    let x0 = points.iter().map(|p| p.0).fold(f64::MAX, f64::min);
    let x1 = points.iter().map(|p| p.0).fold(f64::MIN, f64::max);
    let y1 = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let kind = format!("chart-{}-latency", c.protocol);
    let frame = Frame::series(&kind, "latency (µs)", x0..x1, y1, Vec::new());
    let ok = palette::BLUE;
    let failed = palette::VERMILLION;
    let mark = format!("{}_latency", c.protocol);
    html! {
        figure {
            figcaption { "Latency over time, at each " (c.words.one) "'s " (c.words.answer) }
            (frame.draw(|map| html! {
                @for (x, y, t) in &points {
                    @let (px, py) = map(*x, *y);
                    @let color = palette::css(if t.succeeded { ok } else { failed });
                    g data-mark=(mark) data-queue=[c.queue] data-session=[c.session]
                        data-cid=[t.cid] data-key=[t.key] data-name=(t.name)
                        data-frame=(t.response_frame) data-command-frame=(t.command_frame)
                        data-latency-ns=(t.latency_ns.unwrap_or(0)) data-status=(t.status) {
                        (chart::mark_shape(if t.succeeded { "dot" } else { "cross" }, &color, px, py, 3))
                    }
                }
            }))
            (chart::legend(&[
                Key { color: ok, shape: "dot", label: "succeeded" },
                Key { color: failed, shape: "cross", label: "failed" },
            ]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::round_up;

    #[test]
    fn bin_widths_are_round() {
        assert_eq!(round_up(180_001), 200_000);
        assert_eq!(round_up(133_334), 200_000);
        assert_eq!(round_up(200_000), 200_000);
        assert_eq!(round_up(1), 1);
        assert_eq!(round_up(11), 20);
        assert_eq!(round_up(60), 100);
    }
}
