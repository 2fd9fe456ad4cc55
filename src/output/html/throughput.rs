//! Goodput per interval of a connection's two directions: payload first sent in the
//! interval (retransmissions excluded), in Gb/s, one line each way, each point at the
//! middle of its interval. Each direction's intervals hold several packets
//! ([`Rates::of_goodput`]), so a steady sender draws a level line, not a comb.

use maud::{Markup, html};

use super::chart::{self, Frame, Key, Line};
use super::palette;
use super::rates::Rates;

/// `directions`: each direction's name and its rates, if it recorded any.
pub fn render(directions: &[(&str, Option<Rates>); 2], origin_ns: u64) -> Markup {
    let mut lines = Vec::new();
    let mut keys = Vec::new();
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0f64);
    for (i, (name, timeline)) in directions.iter().enumerate() {
        let Some(t) = timeline else { continue };
        let color = palette::DIRECTIONS[i];
        let seconds = t.width_ns as f64 / 1e9;
        let points: Vec<(f64, f64)> = t
            .bins
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let middle = t
                    .start_ns
                    .saturating_add(k as u64 * t.width_ns + t.width_ns / 2);
                let x = middle.saturating_sub(origin_ns) as f64 / 1e3;
                (x, b.goodput_bytes as f64 * 8.0 / seconds / 1e9)
            })
            .collect();
        for &(x, y) in &points {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        lines.push(Line {
            color,
            points,
            steps: false,
        });
        keys.push(Key {
            color,
            shape: "line",
            label: name,
        });
    }
    if lines.is_empty() {
        return html! {};
    }
    let frame = Frame::series("chart-throughput", "goodput (Gb/s)", x0..x1, y1, lines);
    html! {
        figure {
            figcaption { "Goodput per interval" }
            (frame.draw(|_| html! {}))
            (chart::legend(&keys))
        }
    }
}
