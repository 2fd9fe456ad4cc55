//! Several capture points: their clock offsets, copies and what was lost between them.

use serde::{Serialize, Serializer};

use super::values::Files;
use crate::analyze::points::Points;
use crate::analyze::points::skew::{Method, Offset};

/// The capture points, in the order of their first input; the first is the reference clock.
pub struct CapturePoints<'a> {
    pub skew_bound_ns: u64,
    pub points: &'a Points,
    pub offsets: &'a [Offset],
    pub files: Files<'a>,
}

#[derive(Serialize)]
pub struct PointRow<'a> {
    /// The point's first input, which names it.
    pub file: &'a str,
    /// Every input of the point: pieces of one capture (rotated, or split) are one point.
    pub files: Vec<&'a str>,
    pub offset_ns: Option<i64>,
    pub offset_method: &'static str,
    /// Packets matched between this point and the one its offset came from.
    pub offset_samples: u64,
    /// The median absolute deviation of those matches' time differences.
    pub offset_spread_ns: Option<u64>,
    /// Delay from the reference point to this one for packets whose source address sorts
    /// before their destination's; positive when the reference point is upstream for them.
    pub forward_delay_ns: Option<i64>,
    /// Transmissions this point saw first, and copies of ones another point saw first.
    pub first_seen: u64,
    pub copies: u64,
    /// Request transmissions this point's capture dropped: see [`Points::missed_by_capture`].
    pub missed_by_capture: u64,
    /// What this point's capture missed of the requests it should have seen.
    pub capture_loss: crate::analyze::capture_loss::Counts,
}

#[derive(Serialize)]
pub struct LostRow<'a> {
    pub seen_at: &'a str,
    pub missing_at: &'a str,
    pub packets: u64,
}

impl<'a> CapturePoints<'a> {
    pub fn rows(&self) -> Vec<PointRow<'a>> {
        let points = self.points;
        (0..points.count())
            .map(|i| {
                let offset = self.offsets.get(i);
                let known = offset.is_some_and(|o| o.method != Method::Unknown);
                let name = |f: usize| self.files.0.get(f).map_or("", |s| s.as_str());
                PointRow {
                    file: name(usize::from(points.first_file_of(i))),
                    files: points.files_of(i).map(name).collect(),
                    offset_ns: offset.filter(|_| known).map(|o| o.offset_ns),
                    offset_method: offset.map_or("unknown", |o| o.method.name()),
                    offset_samples: offset.map_or(0, |o| o.samples),
                    offset_spread_ns: offset.and_then(|o| o.spread_ns),
                    forward_delay_ns: offset.and_then(|o| o.forward_delay_ns),
                    first_seen: points.first_seen.get(i).copied().unwrap_or(0),
                    copies: points.copies.get(i).copied().unwrap_or(0),
                    missed_by_capture: points.missed_by_capture.get(i).copied().unwrap_or(0),
                    capture_loss: crate::analyze::capture_loss::Counts {
                        seen: points.requests_seen.get(i).copied().unwrap_or(0),
                        missed: points.missed_by_capture.get(i).copied().unwrap_or(0),
                        unconfirmed: 0,
                    },
                }
            })
            .collect()
    }

    pub fn lost(&self) -> Vec<LostRow<'a>> {
        let name = |i: u16| self.files.0.get(usize::from(i)).map_or("", |s| s.as_str());
        let mut rows: Vec<_> = self.points.lost_between.iter().collect();
        rows.sort();
        rows.into_iter()
            .map(|(pair, &packets)| LostRow {
                seen_at: name(pair.from),
                missing_at: name(pair.to),
                packets,
            })
            .collect()
    }
}

impl Serialize for CapturePoints<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("skew_bound_ns", &self.skew_bound_ns)?;
        let order: Option<Vec<&str>> = self.points.order().map(|order| {
            order
                .iter()
                .map(|&i| {
                    let first = usize::from(self.points.first_file_of(i));
                    self.files.0.get(first).map_or("", |s| s.as_str())
                })
                .collect()
        });
        map.serialize_entry("order", &order)?;
        map.serialize_entry("points", &self.rows())?;
        map.serialize_entry("lost_between", &self.lost())?;
        map.end()
    }
}
