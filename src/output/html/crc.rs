//! ICRC and VCRC failures over time, one lane per source address: a link that corrupts
//! frames shows as one busy lane.

use maud::{Markup, html};

use super::chart::{self, Frame, Key};
use super::palette;
use crate::analyze::crc_lanes::{Check, CrcLanes};

fn style(check: Check) -> (plotters::style::RGBColor, &'static str) {
    match check {
        Check::Icrc => (palette::VERMILLION, "square"),
        Check::Vcrc => (palette::PURPLE, "diamond"),
    }
}

/// `origin_ns .. end_ns` is the capture's span: a failure is seen against the whole capture
/// (one failure alone would otherwise span nothing, and its ticks say one time).
pub fn render(lanes: &CrcLanes, origin_ns: u64, end_ns: u64) -> Markup {
    if lanes.lanes.is_empty() {
        return html! {};
    }
    let x = |ns: u64| ns.saturating_sub(origin_ns) as f64 / 1e3;
    let (mut x0, mut x1) = (0f64, x(end_ns));
    for b in lanes.lanes.iter().flat_map(|l| &l.bad) {
        x0 = x0.min(x(b.ts_ns));
        x1 = x1.max(x(b.ts_ns));
    }
    let n = lanes.lanes.len();
    let names: Vec<String> = lanes
        .lanes
        .iter()
        .map(|l| l.src.map_or_else(|| "other".to_string(), |a| a.to_string()))
        .collect();
    let lane_y = |i: usize| chart::lane_y(n, i);
    let label = chart::lane_label(&names);
    let frame = Frame::lanes("chart-crc", x0..x1, n, &label);
    let keys: Vec<Key<'_>> = [(Check::Icrc, "ICRC bad"), (Check::Vcrc, "VCRC bad")]
        .into_iter()
        .map(|(c, label)| {
            let (color, shape) = style(c);
            Key {
                color,
                shape,
                label,
            }
        })
        .collect();
    html! {
        figure {
            figcaption { "CRC failures over time, by source" }
            (frame.draw(|map| html! {
                @for (i, lane) in lanes.lanes.iter().enumerate() {
                    @for b in &lane.bad {
                        @let (px, py) = map(x(b.ts_ns), lane_y(i));
                        @let (color, shape) = style(b.check);
                        g data-mark=(b.check.name()) data-src=(names[i]) data-frame=(b.frame)
                            data-ts-ns=(b.ts_ns) data-count=(b.count) {
                            (chart::mark_shape(shape, &palette::css(color), px, py, 5))
                        }
                    }
                }
            }))
            (chart::legend(&keys))
        }
    }
}
