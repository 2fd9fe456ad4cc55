//! Goodput per interval of a connection's two directions: payload first sent in the
//! interval (retransmissions excluded), in Mb/s, one line each way.

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
                let start = t.start_ns.saturating_add(k as u64 * t.width_ns);
                let x = start.saturating_sub(origin_ns) as f64 / 1e3;
                (x, b.goodput_bytes as f64 * 8.0 / seconds / 1e6)
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
            steps: true,
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
    let frame = Frame::series("chart-throughput", "goodput (Mb/s)", x0..x1, y1, lines);
    html! {
        figure {
            figcaption { "Goodput per interval" }
            (frame.draw(|_| html! {}))
            (chart::legend(&keys))
        }
    }
}
