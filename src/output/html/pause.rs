//! The PFC pause timeline: one lane per (sender, priority), a bar for each paused interval,
//! storms in their own colour, and each cascade drawn across the lanes of its senders, from
//! one sender's first pause to the next's, over a band spanning the cascade.

use maud::{Markup, html};

use super::chart::{self, Frame, Key};
use super::palette;
use crate::analyze::pause_lanes::{Lane, PauseLanes};
use crate::analyze::pfc::{ALL_PRIORITIES, Cascade};
use crate::wire::ethernet::Mac;

pub fn lane_name(src: Mac, priority: u8) -> String {
    if priority == ALL_PRIORITIES {
        format!("{src} 802.3x")
    } else {
        format!("{src} prio {priority}")
    }
}

pub fn render(lanes: &PauseLanes, cascades: &[Cascade], origin_ns: u64) -> Markup {
    let sorted = lanes.sorted();
    if sorted.is_empty() {
        return html! {};
    }
    let x = |ns: u64| ns.saturating_sub(origin_ns) as f64 / 1e3;
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    for p in sorted.iter().flat_map(|l| &l.paused) {
        x0 = x0.min(x(p.start_ns));
        x1 = x1.max(x(p.end_ns));
    }
    for c in cascades {
        x0 = x0.min(x(c.start_ns));
        x1 = x1.max(x(c.start_ns.saturating_add(c.duration_ns)));
    }
    let n = sorted.len();
    let names: Vec<String> = sorted
        .iter()
        .map(|l| lane_name(l.src, l.priority))
        .collect();
    let lane_y = |i: usize| chart::lane_y(n, i);
    let label = chart::lane_label(&names);
    let index_of = |src: Mac, priority: u8| {
        sorted
            .iter()
            .position(|l: &&Lane| l.src == src && l.priority == priority)
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
                @for (i, lane) in sorted.iter().enumerate() {
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
            @if lanes.lanes_dropped > 0 {
                p.note { (lanes.lanes_dropped) " pauses of further (sender, priority) pairs are not drawn." }
            }
        }
    }
}
