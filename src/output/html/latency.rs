//! RTT per interval of a connection's two directions: the mean of the interval's samples
//! as a line, and its least and most as a bar.

use maud::{Markup, html};

use super::chart::{self, Frame, Key, Line};
use super::palette;
use super::rates::Rates;

pub fn render(directions: &[(&str, Option<Rates>); 2], origin_ns: u64) -> Markup {
    struct Sample {
        x: f64,
        ts_ns: u64,
        mean: u64,
        min: u64,
        max: u64,
        samples: u32,
    }
    let mut lines = Vec::new();
    let mut keys = Vec::new();
    let mut marks: Vec<(usize, Sample)> = Vec::new();
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0f64);
    for (i, (name, timeline)) in directions.iter().enumerate() {
        let Some(t) = timeline else { continue };
        let samples: Vec<Sample> = t
            .bins
            .iter()
            .enumerate()
            .filter(|(_, b)| b.rtt_samples > 0)
            .map(|(k, b)| {
                let ts_ns = t.start_ns.saturating_add(k as u64 * t.width_ns);
                Sample {
                    x: ts_ns.saturating_sub(origin_ns) as f64 / 1e3,
                    ts_ns,
                    mean: b.rtt_sum_ns / u64::from(b.rtt_samples),
                    min: b.rtt_min_ns,
                    max: b.rtt_max_ns,
                    samples: b.rtt_samples,
                }
            })
            .collect();
        if samples.is_empty() {
            continue;
        }
        for s in &samples {
            x0 = x0.min(s.x);
            x1 = x1.max(s.x);
            y1 = y1.max(s.max as f64 / 1e3);
        }
        let color = palette::DIRECTIONS[i];
        lines.push(Line {
            color,
            points: samples.iter().map(|s| (s.x, s.mean as f64 / 1e3)).collect(),
            steps: false,
        });
        keys.push(Key {
            color,
            shape: "dot",
            label: name,
        });
        marks.extend(samples.into_iter().map(|s| (i, s)));
    }
    if lines.is_empty() {
        return html! {};
    }
    let frame = Frame::series(
        "chart-latency",
        "RTT (µs): mean, min–max",
        x0..x1,
        y1,
        lines,
    );
    html! {
        figure {
            figcaption { "RTT per interval (requests answered without retransmission)" }
            (frame.draw(|map| html! {
                @for (i, s) in &marks {
                    @let color = palette::css(palette::DIRECTIONS[*i]);
                    @let (px, py) = map(s.x, s.mean as f64 / 1e3);
                    @let (_, top) = map(s.x, s.max as f64 / 1e3);
                    @let (_, bottom) = map(s.x, s.min as f64 / 1e3);
                    g data-mark="rtt" data-direction=(directions[*i].0) data-ts-ns=(s.ts_ns)
                        data-rtt-ns=(s.mean) data-min-ns=(s.min) data-max-ns=(s.max)
                        data-count=(s.samples) {
                        line x1=(px) x2=(px) y1=(top) y2=(bottom) stroke=(color) stroke-width="1" {}
                        (chart::mark_shape("dot", &color, px, py, 2))
                    }
                }
            }))
            (chart::legend(&keys))
        }
    }
}
