//! The PFC pause timeline: one lane per (sender, priority), a bar for each paused interval,
//! storms in their own colour, and each cascade drawn across the lanes of its senders, from
//! one sender's first pause to the next's, over a band spanning the cascade.

use maud::{Markup, html};

use super::chart::{self, Frame, Key};
use super::palette;
use crate::analyze::connections::stall::Silence;
use crate::analyze::pause_lanes::{Lane, PauseLanes};
use crate::analyze::pfc::{ALL_PRIORITIES, Cascade};
use crate::wire::ethernet::Mac;

/// Stalled connections drawn under one pause lane, at most; the longest stalled first.
pub const STALLED_PER_LANE: usize = 12;

/// A connection direction that stalled, with its priority and its longest stalls.
pub struct Stalled<'a> {
    pub name: String,
    pub priority: u8,
    pub stalls: &'a [Silence],
}

/// A row of the chart: a pause lane, or a connection that stalled while it was paused.
enum Row<'a> {
    Pause(&'a Lane),
    Stalled {
        stalled: &'a Stalled<'a>,
        /// Its stalls that overlap a pause of the lane above.
        during: Vec<&'a Silence>,
    },
}

fn overlaps(s: &Silence, lane: &Lane) -> bool {
    lane.paused
        .iter()
        .any(|p| p.start_ns < s.end_ns() && s.start_ns < p.end_ns)
}

/// The pause lanes in order, each followed by the connections of its priority (all, for
/// 802.3x) that stalled during one of its pauses.
fn rows<'a>(sorted: &[&'a Lane], stalled: &'a [Stalled<'a>]) -> (Vec<Row<'a>>, usize) {
    let mut rows = Vec::new();
    let mut hidden = 0;
    for &lane in sorted {
        rows.push(Row::Pause(lane));
        let mut under: Vec<(u64, Row<'a>)> = stalled
            .iter()
            .filter(|c| lane.priority == ALL_PRIORITIES || c.priority == lane.priority)
            .filter_map(|c| {
                let during: Vec<&Silence> = c.stalls.iter().filter(|s| overlaps(s, lane)).collect();
                let longest = during.iter().map(|s| s.duration_ns).max()?;
                Some((longest, Row::Stalled { stalled: c, during }))
            })
            .collect();
        // Longest first; equal ones keep the connections' order.
        under.sort_by_key(|(longest, _)| std::cmp::Reverse(*longest));
        hidden += under.len().saturating_sub(STALLED_PER_LANE);
        rows.extend(under.into_iter().take(STALLED_PER_LANE).map(|(_, r)| r));
    }
    (rows, hidden)
}

pub fn lane_name(src: Mac, priority: u8) -> String {
    if priority == ALL_PRIORITIES {
        format!("{src} 802.3x")
    } else {
        format!("{src} prio {priority}")
    }
}

pub fn render(
    lanes: &PauseLanes,
    cascades: &[Cascade],
    stalled: &[Stalled<'_>],
    origin_ns: u64,
) -> Markup {
    let sorted = lanes.sorted();
    if sorted.is_empty() {
        return html! {};
    }
    let (rows, hidden) = rows(&sorted, stalled);
    let x = |ns: u64| ns.saturating_sub(origin_ns) as f64 / 1e3;
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    for p in sorted.iter().flat_map(|l| &l.paused) {
        x0 = x0.min(x(p.start_ns));
        x1 = x1.max(x(p.end_ns));
    }
    for row in &rows {
        if let Row::Stalled { during, .. } = row {
            for s in during {
                x0 = x0.min(x(s.start_ns));
                x1 = x1.max(x(s.end_ns()));
            }
        }
    }
    for c in cascades {
        x0 = x0.min(x(c.start_ns));
        x1 = x1.max(x(c.start_ns.saturating_add(c.duration_ns)));
    }
    let n = rows.len();
    let names: Vec<String> = rows
        .iter()
        .map(|row| match row {
            Row::Pause(l) => lane_name(l.src, l.priority),
            Row::Stalled { stalled, .. } => format!("  stalled: {}", stalled.name),
        })
        .collect();
    let lane_y = |i: usize| chart::lane_y(n, i);
    let label = chart::lane_label(&names);
    let index_of = |src: Mac, priority: u8| {
        rows.iter()
            .position(|row| matches!(row, Row::Pause(l) if l.src == src && l.priority == priority))
    };
    let frame = Frame::lanes("chart-pause", x0..x1, n, &label);
    let keys = [
        Key {
            color: palette::SKY_BLUE,
            shape: "bar",
            label: "paused",
        },
        Key {
            color: palette::VERMILLION,
            shape: "bar",
            label: "storm (paused at least the storm threshold)",
        },
        Key {
            color: palette::ORANGE,
            shape: "line",
            label: "cascade: senders joining, in order",
        },
        Key {
            color: palette::PURPLE,
            shape: "bar",
            label: "stalled (requests outstanding, nothing moving) during the pause above",
        },
    ];
    html! {
        figure {
            figcaption { "PFC pause timeline" }
            (frame.draw(|map| html! {
                @for c in cascades {
                    @let members: Vec<(usize, u64, u64)> = c.joins.iter()
                        .filter_map(|j| Some((index_of(j.src, c.priority)?, j.ns, j.at.frame)))
                        .collect();
                    @if let (Some(lo), Some(hi)) = (members.iter().map(|m| m.0).min(), members.iter().map(|m| m.0).max()) {
                        @let (bx0, by0) = map(x(c.start_ns), lane_y(lo) + 0.45);
                        @let (bx1, by1) = map(x(c.start_ns.saturating_add(c.duration_ns)), lane_y(hi) - 0.45);
                        @let path: Vec<String> = members.iter().map(|&(i, ns, _)| {
                            let (px, py) = map(x(ns), lane_y(i));
                            format!("{px},{py}")
                        }).collect();
                        g data-mark="cascade" data-priority=(c.priority) data-frame=(c.start.frame)
                            data-ts-ns=(c.start_ns) data-end-ns=(c.start_ns.saturating_add(c.duration_ns))
                            data-senders=(c.senders.len()) data-lanes=(members.iter().map(|m| m.0.to_string()).collect::<Vec<_>>().join(",")) {
                            rect x=(bx0) y=(by0) width=((bx1 - bx0).max(1)) height=((by1 - by0).max(1))
                                fill=(palette::css(palette::ORANGE)) fill-opacity="0.15" {}
                            polyline points=(path.join(" ")) fill="none"
                                stroke=(palette::css(palette::ORANGE)) stroke-width="2" {}
                        }
                    }
                }
                @for (i, row) in rows.iter().enumerate() {
                    @if let Row::Stalled { stalled, during } = row {
                        @for s in during {
                            @let (px0, py0) = map(x(s.start_ns), lane_y(i) + 0.25);
                            @let (px1, py1) = map(x(s.end_ns()), lane_y(i) - 0.25);
                            rect data-mark="stall" data-lane=(i) data-conn=(stalled.name)
                                data-priority=(stalled.priority) data-frame=(s.frame)
                                data-ts-ns=(s.start_ns) data-end-ns=(s.end_ns())
                                data-paused-ns=(s.paused_ns)
                                x=(px0) y=(py0) width=((px1 - px0).max(1)) height=((py1 - py0).max(1))
                                fill=(palette::css(palette::PURPLE)) {}
                        }
                    }
                }
                @for (i, row) in rows.iter().enumerate() {
                    @let Row::Pause(lane) = row else { continue };
                    @for p in &lane.paused {
                        @let (px0, py0) = map(x(p.start_ns), lane_y(i) + 0.3);
                        @let (px1, py1) = map(x(p.end_ns), lane_y(i) - 0.3);
                        @let color = if p.storm { palette::VERMILLION } else { palette::SKY_BLUE };
                        rect data-mark=(if p.storm { "storm" } else { "pause" }) data-lane=(i)
                            data-src=(lane.src.to_string()) data-priority=(lane.priority)
                            data-frame=(p.frame) data-ts-ns=(p.start_ns) data-end-ns=(p.end_ns)
                            data-count=(p.count)
                            x=(px0) y=(py0) width=((px1 - px0).max(1)) height=((py1 - py0).max(1))
                            fill=(palette::css(color)) {}
                    }
                }
            }))
            (chart::legend(&keys))
            @if hidden > 0 {
                p.note { (hidden) " further stalled connections are not drawn under their pause lanes." }
            }
            @if lanes.lanes_dropped > 0 {
                p.note { (lanes.lanes_dropped) " pauses of further (sender, priority) pairs are not drawn." }
            }
        }
    }
}
