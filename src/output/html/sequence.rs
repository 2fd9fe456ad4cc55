//! The time-sequence graph of one direction, as tcptrace draws a TCP stream: PSN
//! (unwrapped) against time, so a go-back-N shows as the line of sends stepping back, the
//! cumulative ACK line climbs behind it, and NAKs, CNPs, CE marks and gaps sit where they
//! happened.

use maud::{Markup, html};

use super::chart::{self, Frame, Key, Line};
use super::{overlap, palette};
use crate::analyze::connections::sequence::{Mark, Point, TimeSequence};

/// The shape each mark is drawn with; NAK, gap and a retransmission after a timeout share
/// black, so their shapes differ, and the two kinds of retransmission differ in both.
pub fn shape(mark: Mark) -> &'static str {
    match mark {
        Mark::New => "dot",
        Mark::Retransmitted => "square",
        Mark::RetxTimeout => "box",
        Mark::Ack => "dot",
        Mark::Nak => "cross",
        Mark::RnrNak => "triangle",
        Mark::Cnp => "diamond",
        Mark::Ce => "ring",
        Mark::Gap => "ring",
    }
}

fn radius(mark: Mark) -> i32 {
    match mark {
        Mark::New | Mark::Ack => 2,
        Mark::Gap | Mark::RetxTimeout => 6,
        _ => 4,
    }
}

fn label(mark: Mark) -> &'static str {
    match mark {
        Mark::New => "new request",
        Mark::Retransmitted => "retransmitted",
        Mark::RetxTimeout => "retransmitted after timeout",
        Mark::Ack => "cumulative ACK",
        Mark::Nak => "NAK",
        Mark::RnrNak => "RNR NAK",
        Mark::Cnp => "CNP",
        Mark::Ce => "ECN CE",
        Mark::Gap => "PSN gap",
    }
}

/// A packet of the direction whose ICRC failed: its frame and time.
#[derive(Debug, Clone, Copy)]
pub struct IcrcBad {
    pub frame: u64,
    pub ts_ns: u64,
}

/// The point an ICRC-bad packet is marked at: its own, or (merged into a neighbour) the one
/// nearest in time.
fn point_of(points: &[Point], bad: IcrcBad) -> Option<&Point> {
    points
        .iter()
        .find(|p| p.frame == bad.frame && p.ts_ns == bad.ts_ns)
        .or_else(|| points.iter().min_by_key(|p| p.ts_ns.abs_diff(bad.ts_ns)))
}

/// The chart of `seq`, times in µs from `origin_ns`; `title` names the direction, and
/// `icrc_bad` its packets whose ICRC failed.
pub fn render(seq: &TimeSequence, origin_ns: u64, title: &str, icrc_bad: &[IcrcBad]) -> Markup {
    let points = &seq.points;
    let x = |p: &Point| p.ts_ns.saturating_sub(origin_ns) as f64 / 1e3;
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in points {
        x0 = x0.min(x(p));
        x1 = x1.max(x(p));
        y0 = y0.min(p.psn as f64);
        y1 = y1.max(p.psn as f64);
    }
    let acks: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.mark == Mark::Ack)
        .map(|p| (x(p), p.psn as f64))
        .collect();
    // PSNs are whole numbers, and neighbours differ in the last digits.
    let whole = |v: f64| format!("{v:.0}");
    let frame = Frame {
        kind: "chart-sequence",
        x_desc: "time (µs)",
        y_desc: "PSN (unwrapped)",
        x: x0.min(x1)..x1.max(x0),
        y: y0.min(y1)..y1.max(y0),
        height: chart::HEIGHT,
        lines: vec![Line {
            color: palette::GREEN,
            points: acks,
            steps: true,
        }],
        y_label: Some(&whole),
        lanes: false,
        y_labels: 8,
    };
    let present: Vec<Mark> = Mark::ALL
        .into_iter()
        .filter(|m| points.iter().any(|p| p.mark == *m))
        .collect();
    let mut keys: Vec<Key<'_>> = present
        .iter()
        .map(|&m| Key {
            color: palette::of_mark(m),
            shape: if m == Mark::Ack { "line" } else { shape(m) },
            label: label(m),
        })
        .collect();
    let bad: Vec<(IcrcBad, Point)> = icrc_bad
        .iter()
        .filter_map(|&b| Some((b, *point_of(points, b)?)))
        .collect();
    if !bad.is_empty() {
        // As the CRC chart draws it, larger and hollow, around the packet's own mark.
        keys.push(Key {
            color: palette::VERMILLION,
            shape: "square",
            label: "ICRC bad",
        });
    }
    let merged = seq.merges > 0 || points.len() > overlap::BUDGET;
    html! {
        figure {
            figcaption { (title) }
            (frame.draw(|map| {
                let placed: Vec<(i32, i32, Point)> = points
                    .iter()
                    .map(|p| {
                        let (px, py) = map(x(p), p.psn as f64);
                        (px, py, *p)
                    })
                    .collect();
                let mut drawn = overlap::merge(&placed);
                // The common marks first, under the rare ones.
                drawn.sort_by_key(|d| std::cmp::Reverse(matches!(d.point.mark, Mark::New | Mark::Ack)));
                html! {
                    @for d in &drawn {
                        @let p = &d.point;
                        g data-mark=(p.mark.name()) data-psn=(p.wire_psn()) data-upsn=(p.psn)
                            data-frame=(p.frame) data-ts-ns=(p.ts_ns) data-count=(p.count) {
                            (chart::mark_shape(shape(p.mark), &palette::css(palette::of_mark(p.mark)), d.px, d.py, radius(p.mark)))
                        }
                    }
                    // Named apart from the CRC chart's `icrc_bad` marks, which count failures.
                    @for (b, p) in &bad {
                        @let (px, py) = map(x(p), p.psn as f64);
                        g data-mark="icrc_bad_packet" data-psn=(p.wire_psn()) data-frame=(b.frame) data-ts-ns=(b.ts_ns) {
                            rect x=(px - 6) y=(py - 6) width="12" height="12" fill="none"
                                stroke=(palette::css(palette::VERMILLION)) stroke-width="2" {}
                        }
                    }
                }
            }))
            (chart::legend(&keys))
            @if merged {
                p.note { "Too many points to keep apart: neighbouring points of one kind are merged (data-count says how many); retransmissions, NAKs, RNR NAKs and gaps only when on the same pixel." }
            }
        }
    }
}
