//! One chart: plotters draws the frame (axes, grid, labels, lines) as SVG; the marks that
//! carry data (`data-mark`, `data-frame`, ...) are SVG elements written with maud at the
//! pixels plotters maps their values to, so tests and the tooltip read values, not pixels.

use std::ops::Range;

use maud::{Markup, PreEscaped, html};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::palette;

pub const WIDTH: u32 = 960;
/// Axis label size in pixels: plotters' default in a chart at least 100 pixels high.
const LABEL_FONT: f64 = 12.0;
pub const HEIGHT: u32 = 320;

/// Value → pixel, for the marks.
pub type Map<'a> = &'a dyn Fn(f64, f64) -> (i32, i32);

/// A line plotters draws: its colour and points.
pub struct Line {
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
    /// Drawn as steps (the cumulative ACK line), not straight segments.
    pub steps: bool,
}

/// What a chart shows besides its marks.
pub struct Frame<'a> {
    /// The `svg` element's class besides `chart`, e.g. `chart-sequence`.
    pub kind: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub x: Range<f64>,
    pub y: Range<f64>,
    pub height: u32,
    pub lines: Vec<Line>,
    /// Writes the y axis' labels; short numbers when absent.
    pub y_label: Option<&'a dyn Fn(f64) -> String>,
    /// The y axis names lanes (no horizontal grid, room for names).
    pub lanes: bool,
    pub y_labels: usize,
}

impl<'a> Frame<'a> {
    /// A chart of one lane per name, the first on top: lane i is centred on y = n - 1 - i
    /// (see [`lane_y`]), and `label` (from [`lane_label`]) names the lanes on the y axis.
    pub fn lanes(
        kind: &'a str,
        x: Range<f64>,
        lanes: usize,
        label: &'a dyn Fn(f64) -> String,
    ) -> Self {
        Frame {
            kind,
            x_desc: "time (µs)",
            y_desc: "",
            x,
            y: -0.5..(lanes as f64 - 0.5),
            height: (90 + 28 * lanes as u32).min(2000),
            lines: Vec::new(),
            y_label: Some(label),
            lanes: true,
            y_labels: lanes + 1,
        }
    }

    /// A chart of lines over time from 0 to `y1`, the per-interval charts' shape.
    pub fn series(
        kind: &'a str,
        y_desc: &'a str,
        x: Range<f64>,
        y1: f64,
        lines: Vec<Line>,
    ) -> Self {
        Frame {
            kind,
            x_desc: "time (µs)",
            y_desc,
            x,
            y: 0.0..y1,
            height: HEIGHT * 3 / 4,
            lines,
            y_label: None,
            lanes: false,
            y_labels: 6,
        }
    }
}

/// The y of lane `i` of `lanes` in a [`Frame::lanes`] chart.
pub fn lane_y(lanes: usize, i: usize) -> f64 {
    (lanes - 1 - i) as f64
}

/// The y axis labels of a [`Frame::lanes`] chart: each lane's name at its centre.
pub fn lane_label(names: &[String]) -> impl Fn(f64) -> String + '_ {
    move |v: f64| {
        let n = names.len();
        let i = n as f64 - 1.0 - v.round();
        if (v - v.round()).abs() < 0.01 && i >= 0.0 && (i as usize) < n {
            names[i as usize].clone()
        } else {
            String::new()
        }
    }
}

impl Frame<'_> {
    /// Draws the frame and lines, then the marks `marks` writes with the value → pixel map.
    pub fn draw(&self, marks: impl FnOnce(Map<'_>) -> Markup) -> Markup {
        let mut svg = String::new();
        let mut overlay = None;
        let drawn = self.frame(&mut svg, |map| overlay = Some(marks(map)));
        match drawn {
            Ok(()) => html! { (PreEscaped(finish(&svg, self.kind, overlay))) },
            // A drawing error is plotters' own (it writes to a String); the page still
            // renders, saying so.
            Err(e) => html! { p.error { "chart not drawn: " (e) } },
        }
    }

    fn frame(&self, svg: &mut String, marks: impl FnOnce(Map<'_>)) -> Result<(), String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let root = SVGBackend::with_string(svg, (WIDTH, self.height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let x = widen(&self.x);
        let y = widen(&self.y);
        let (x_near, y_near) = (near(&x), near(&y));
        // At most 10 labels over the widened axis: ticks at least a tenth of it apart.
        let x_step = (x.end - x.start) / 10.0;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(if self.lanes { 170 } else { 80 })
            .build_cartesian_2d::<RangedCoordf64, RangedCoordf64>(x.into(), y.into())
            .map_err(|e| err(&e))?;
        let numbers = |v: &f64| short(*v);
        let x_numbers = |v: &f64| tick(*v, x_step);
        let named = |v: &f64| self.y_label.map_or_else(String::new, |f| f(*v));
        // plotters sizes its default font to 12% of a short chart's plot area, down to 5.6
        // in a one-lane chart: every chart gets the size the tall ones have.
        let font = || FontDesc::new(FontFamily::SansSerif, LABEL_FONT, FontStyle::Normal);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .x_labels(10)
            .y_labels(self.y_labels)
            .light_line_style(palette::GRID)
            .x_label_style(font())
            .y_label_style(font())
            .axis_desc_style(font())
            .x_label_formatter(&x_numbers);
        match self.y_label {
            Some(_) => mesh.y_label_formatter(&named),
            None => mesh.y_label_formatter(&numbers),
        };
        if self.lanes {
            mesh.disable_y_mesh();
        }
        mesh.draw().map_err(|e| err(&e))?;
        for line in &self.lines {
            let points: Vec<(f64, f64)> = if line.steps {
                steps(&line.points)
            } else {
                line.points.clone()
            };
            chart
                .draw_series(LineSeries::new(points, line.color.stroke_width(1)))
                .map_err(|e| err(&e))?;
        }
        let map = |x: f64, y: f64| chart.backend_coord(&(x_near(x), y_near(y)));
        marks(&map);
        root.present().map_err(|e| err(&e))?;
        Ok(())
    }
}

/// A range with room around it, and never empty (one point still gets axes).
fn widen(r: &Range<f64>) -> Range<f64> {
    let span = r.end - r.start;
    if !(span.is_finite() && span > 0.0) {
        let c = if r.start.is_finite() { r.start } else { 0.0 };
        return (c - 1.0)..(c + 1.0);
    }
    (r.start - span * 0.03)..(r.end + span * 0.03)
}

/// A mark's value, kept within a thousand axis lengths of the axis: plotters turns values
/// into pixels in i32, and one far outside (an event hours from a chart spanning
/// microseconds) overflowed it. Any mark that close keeps its exact place.
fn near(axis: &Range<f64>) -> impl Fn(f64) -> f64 + use<> {
    let slack = (axis.end - axis.start) * 1000.0;
    let (lo, hi) = (axis.start - slack, axis.end + slack);
    move |v: f64| v.max(lo).min(hi)
}

/// Each value held until the next: what a cumulative ACK line looks like.
fn steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

/// What [`short`] writes, unless ticks `step` apart would share a label (a few µs late in
/// a long capture: `119 119 119`): then as many decimals as the step needs.
pub fn tick(v: f64, step: f64) -> String {
    let a = v.abs();
    let resolution = if a >= 1e9 {
        1e6
    } else if a >= 1e6 {
        1e3
    } else if a >= 1e4 {
        100.0
    } else if a >= 10.0 || a == 0.0 {
        1.0
    } else {
        0.01
    };
    if !(step.is_finite() && step > 0.0) || step >= resolution {
        return short(v);
    }
    let decimals = (-step.log10()).ceil().clamp(0.0, 9.0) as usize;
    format!("{v:.decimals$}")
}

/// Axis labels without float noise: 1.5k, 12, 0.25.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.3}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// plotters' SVG with the report's classes, scalable, without the XML namespace (the HTML
/// parser gives inline SVG its namespace; the report names no URL at all), and the marks
/// inserted last, above the lines.
fn finish(svg: &str, kind: &str, marks: Option<Markup>) -> String {
    let body = svg.trim_end();
    let body = body.strip_suffix("</svg>").unwrap_or(body);
    let body = body.replacen(
        " xmlns=\"http://www.w3.org/2000/svg\"",
        &format!(" class=\"chart {kind}\" preserveAspectRatio=\"xMinYMin meet\""),
        1,
    );
    let mut out = String::with_capacity(body.len() + 64);
    out.push_str(&body);
    if let Some(marks) = marks {
        out.push_str("<g class=\"marks\">");
        out.push_str(&marks.into_string());
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// A legend entry: the mark's swatch, as the chart draws it, and its name.
pub struct Key<'a> {
    pub color: RGBColor,
    pub shape: &'a str,
    pub label: &'a str,
}

pub fn legend(keys: &[Key<'_>]) -> Markup {
    html! {
        ul.legend {
            @for key in keys {
                li {
                    svg.swatch width="14" height="14" viewBox="0 0 14 14" {
                        (swatch(key.shape, key.color))
                    }
                    " " (key.label)
                }
            }
        }
    }
}

fn swatch(shape: &str, color: RGBColor) -> Markup {
    let c = palette::css(color);
    html! {
        @match shape {
            "line" => line x1="0" y1="7" x2="14" y2="7" stroke=(c) stroke-width="2" {},
            "bar" => rect x="0" y="3" width="14" height="8" fill=(c) {},
            _ => (mark_shape(shape, &c, 7, 7, 4)),
        }
    }
}

/// A shape at (x, y): `dot`, `ring`, `square`, `diamond`, `triangle` or `cross`.
pub fn mark_shape(shape: &str, color: &str, x: i32, y: i32, r: i32) -> Markup {
    html! {
        @match shape {
            "ring" => circle cx=(x) cy=(y) r=(r) fill="none" stroke=(color) stroke-width="1.5" {},
            "square" => rect x=(x - r) y=(y - r) width=(2 * r) height=(2 * r) fill=(color) {},
            "box" => rect x=(x - r) y=(y - r) width=(2 * r) height=(2 * r) fill="none" stroke=(color) stroke-width="2" {},
            "diamond" => path d=(format!("M{} {}l{r} {r}l-{r} {r}l-{r} -{r}z", x, y - r)) fill=(color) {},
            "triangle" => path d=(format!("M{} {}l{r} {}h-{}z", x, y - r, 2 * r, 2 * r)) fill=(color) {},
            "cross" => path d=(format!("M{} {}l{} {}m0 -{}l-{} {}", x - r, y - r, 2 * r, 2 * r, 2 * r, 2 * r, 2 * r)) stroke=(color) stroke-width="2" {},
            _ => circle cx=(x) cy=(y) r=(r) fill=(color) {},
        }
    }
}
