//! Marks that would overlap on screen are drawn as one: the analysis keeps up to 4096
//! points a direction, but a chart 900 pixels wide cannot show that many apart, and a page
//! of twenty connections must stay small. New requests, ACKs, CE and CNP marks merge per
//! cell of a few pixels (cells double until at most [`BUDGET`] of them are drawn per
//! chart); retransmissions, NAKs, RNR NAKs and gaps merge only when they fall on the very
//! same pixel, so none is hidden. A merged mark keeps the first point's frame and time and
//! the highest PSN, and counts what it stands for.

use std::collections::HashMap;

use crate::analyze::connections::sequence::{Mark, Point};

/// Marks of the common kinds drawn per chart at most.
pub const BUDGET: usize = 1500;

/// One mark to draw: where, and the point it stands for (with `count` and `psn` merged).
#[derive(Debug, Clone, Copy)]
pub struct Drawn {
    pub px: i32,
    pub py: i32,
    pub point: Point,
}

fn common(mark: Mark) -> bool {
    matches!(mark, Mark::New | Mark::Ack | Mark::Ce | Mark::Cnp)
}

/// `placed`: each point with its pixel, in time order. Returns the marks to draw, in the
/// same order.
pub fn merge(placed: &[(i32, i32, Point)]) -> Vec<Drawn> {
    let mut cell = (2, 3);
    loop {
        let drawn = merge_in(placed, cell);
        let many = drawn.iter().filter(|d| common(d.point.mark)).count();
        if many <= BUDGET || cell.0 > 1 << 12 {
            return drawn;
        }
        cell = (cell.0 * 2, cell.1 * 2);
    }
}

fn merge_in(placed: &[(i32, i32, Point)], (w, h): (i32, i32)) -> Vec<Drawn> {
    let mut out: Vec<Drawn> = Vec::new();
    let mut at: HashMap<(u8, i32, i32), usize> = HashMap::new();
    for &(px, py, point) in placed {
        let key = if common(point.mark) {
            (point.mark as u8, px.div_euclid(w), py.div_euclid(h))
        } else {
            (point.mark as u8, px, py)
        };
        match at.get(&key) {
            Some(&i) => {
                let d = &mut out[i].point;
                d.count = d.count.saturating_add(point.count);
                d.psn = d.psn.max(point.psn);
            }
            None => {
                at.insert(key, out.len());
                out.push(Drawn { px, py, point });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(i: u64, mark: Mark) -> Point {
        Point {
            ts_ns: i,
            psn: i as i64,
            frame: i + 1,
            count: 1,
            payload: 0,
            rtt_ns: 0,
            mark,
        }
    }

    #[test]
    fn common_marks_merge_on_screen_rare_ones_only_on_one_pixel() {
        // 10,000 new requests and 100 retransmissions on a 900-pixel-wide line.
        let mut placed = Vec::new();
        for i in 0..10_000u64 {
            let px = (i * 900 / 10_000) as i32;
            placed.push((px, 300 - px / 3, point(i, Mark::New)));
            if i % 100 == 0 {
                placed.push((px, 300 - px / 3, point(i, Mark::Retransmitted)));
            }
        }
        let drawn = merge(&placed);
        let new: Vec<&Drawn> = drawn.iter().filter(|d| d.point.mark == Mark::New).collect();
        assert!(new.len() <= BUDGET && new.len() >= 100, "{}", new.len());
        let count: u64 = new.iter().map(|d| u64::from(d.point.count)).sum();
        assert_eq!(count, 10_000);
        // 100 retransmissions, each a pixel of its own: all kept, at their frames.
        let retx: Vec<u64> = drawn
            .iter()
            .filter(|d| d.point.mark == Mark::Retransmitted)
            .map(|d| d.point.frame)
            .collect();
        assert_eq!(retx, (0..100).map(|k| k * 100 + 1).collect::<Vec<_>>());
    }

    #[test]
    fn a_dense_cloud_is_cut_to_the_budget() {
        let mut placed = Vec::new();
        for i in 0..40_000u64 {
            placed.push(((i % 900) as i32, (i * 7 % 300) as i32, point(i, Mark::Ack)));
        }
        let drawn = merge(&placed);
        assert!(drawn.len() <= BUDGET);
        let count: u64 = drawn.iter().map(|d| u64::from(d.point.count)).sum();
        assert_eq!(count, 40_000);
        // A merged mark keeps its first point's frame and the highest PSN.
        assert_eq!(drawn[0].point.frame, 1);
        assert!(drawn[0].point.psn > 0);
    }
}
