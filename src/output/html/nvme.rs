//! The NVMe-oF section: per queue, a histogram of its commands' latencies and their latency
//! over time, one mark per command at its response. Absent when the capture has no NVMe-oF.

use maud::{Markup, html};

use super::chart::{self, Frame, Key};
use super::palette;
use crate::analyze::nvme::QueueStats;

/// Bars of a latency histogram: fewer when there are fewer commands.
const BINS: u64 = 20;

pub fn render(queues: &[&QueueStats], origin_ns: u64) -> Markup {
    html! {
        @for q in queues {
            @let name = match q.qid {
                Some(qid) => format!("Queue {} (QID {qid}, recognised by {})", q.queue, q.recognised_by.name()),
                None => format!("Queue {} (recognised by {})", q.queue, q.recognised_by.name()),
            };
            div.nvme-queue data-queue=(q.queue) {
                h3 { (name) }
                @if q.latencies().is_empty() {
                    p { "No command answered: nothing to time." }
                } @else {
                    (histogram(q))
                    (over_time(q, origin_ns))
                }
            }
        }
    }
}

/// How many answered commands took each span of latency: equal bins from 0 to the most.
fn histogram(q: &QueueStats) -> Markup {
    let latencies = q.latencies();
    let max = latencies.last().copied().unwrap_or(0);
    // Bins of a round width (1, 2 or 5 times a power of ten ns) from 0 past the most.
    let width = round_up(max / BINS.min(latencies.len() as u64).max(1) + 1);
    let bins = max / width + 1;
    let mut counts = vec![0u64; bins as usize];
    for &l in &latencies {
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
    let frame = Frame {
        kind: "chart-nvme-histogram",
        x_desc: "latency (µs)",
        y_desc: "commands",
        x: 0.0..us(width * bins),
        y: 0.0..most as f64,
        height: chart::HEIGHT * 3 / 4,
        lines: Vec::new(),
        y_label: Some(&whole),
        lanes: false,
        y_labels: (most as usize + 1).min(6),
    };
    let color = palette::css(palette::BLUE);
    html! {
        figure {
            figcaption { "Latency, command capsule to response capsule (" (latencies.len()) " commands)" }
            (frame.draw(|map| html! {
                @for (i, &count) in counts.iter().enumerate() {
                    @if count > 0 {
                        @let lo = i as u64 * width;
                        @let hi = lo + width;
                        @let (x0, top) = map(us(lo), count as f64);
                        @let (x1, bottom) = map(us(hi), 0.0);
                        rect data-mark="nvme_bin" data-queue=(q.queue) data-lo-ns=(lo)
                            data-hi-ns=(hi) data-count=(count) x=(x0) y=(top)
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
fn over_time(q: &QueueStats, origin_ns: u64) -> Markup {
    let points: Vec<(f64, f64, &crate::analyze::nvme::Timed)> = q
        .answered
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
    let frame = Frame::series("chart-nvme-latency", "latency (µs)", x0..x1, y1, Vec::new());
    let ok = palette::BLUE;
    let failed = palette::VERMILLION;
    html! {
        figure {
            figcaption { "Latency over time, at each command's response" }
            (frame.draw(|map| html! {
                @for (x, y, t) in &points {
                    @let (px, py) = map(*x, *y);
                    @let success = t.sct == 0 && t.sc == 0;
                    @let color = palette::css(if success { ok } else { failed });
                    g data-mark="nvme_latency" data-queue=(q.queue) data-cid=(t.cid)
                        data-name=(t.name) data-frame=(t.response_frame)
                        data-command-frame=(t.frame) data-latency-ns=(t.latency_ns.unwrap_or(0))
                        data-status=(t.status) {
                        (chart::mark_shape(if success { "dot" } else { "cross" }, &color, px, py, 3))
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
