//! Colours of the report: the Okabe–Ito palette, which readers with any common colour
//! vision deficiency can still tell apart, and one colour per mark. Shapes differ too, so
//! that a grey-scale print keeps the marks apart.

use plotters::style::RGBColor;

use crate::analyze::connections::sequence::Mark;

pub const BLACK: RGBColor = RGBColor(0, 0, 0);
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub const SKY_BLUE: RGBColor = RGBColor(86, 180, 233);
pub const GREEN: RGBColor = RGBColor(0, 158, 115);
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub const GRID: RGBColor = RGBColor(230, 230, 230);

pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

pub fn of_mark(mark: Mark) -> RGBColor {
    match mark {
        Mark::New => BLUE,
        Mark::Retransmitted => VERMILLION,
        Mark::RetxTimeout => BLACK,
        Mark::Ack => GREEN,
        Mark::Nak => BLACK,
        Mark::RnrNak => PURPLE,
        Mark::Cnp => ORANGE,
        Mark::Ce => SKY_BLUE,
        Mark::Gap => BLACK,
    }
}

/// The two directions of a connection in the throughput and latency charts.
pub const DIRECTIONS: [RGBColor; 2] = [BLUE, VERMILLION];
