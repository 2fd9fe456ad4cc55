//! Stalls as the report gives them: each direction's longest, with what ended them and
//! what overlapped them, and the capture's longest across every connection.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::connections::{Connection, Direction, SilenceTally};
use super::values::Files;
use crate::analyze::connections::ConnectionTable;
use crate::analyze::connections::stall::Silence;
use crate::dissect::Address;

/// One stall, as the JSON `stalls` list of a direction writes it; `end_file` names the
/// input of `end_frame` when there are several.
pub struct StallRow<'a>(pub &'a Silence, pub Option<Files<'a>>);

impl Serialize for StallRow<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("start_ns", &s.start_ns)?;
        map.serialize_entry("duration_ns", &s.duration_ns)?;
        map.serialize_entry("end_frame", &s.frame)?;
        if let Some(file) = self.1.and_then(|f| f.name(s.file)) {
            map.serialize_entry("end_file", file)?;
        }
        map.serialize_entry("ended_by", s.ended_by.name())?;
        map.serialize_entry("after", &s.began_with.map(|b| b.name()))?;
        map.serialize_entry("priority", &s.priority)?;
        map.serialize_entry("paused_ns", &s.paused_ns)?;
        map.serialize_entry("paused_by", &s.paused_by.map(|m| m.to_string()))?;
        map.serialize_entry("cnp", &s.cnp)?;
        map.end()
    }
}

/// A direction's stalls, longest first.
pub struct StallRows<'a>(pub &'a [Silence], pub Option<Files<'a>>);

impl Serialize for StallRows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|s| StallRow(s, self.1)))
    }
}

/// A stall with the direction it happened to: requests from `from` to `to`'s QP `qpn`.
#[derive(Clone, Copy)]
pub struct PlacedStall<'a> {
    pub stall: &'a Silence,
    pub from: Address,
    pub to: Address,
    pub qpn: Option<u32>,
}

/// The capture's `n` longest stalls, longest first; ties in order of connection.
pub fn longest(table: &ConnectionTable, n: usize) -> Vec<PlacedStall<'_>> {
    let mut all: Vec<PlacedStall<'_>> = Vec::new();
    for c in Connection::all(table) {
        let ways: [(Direction<'_>, Address, Address, Option<u32>); 2] = [
            (c.a_to_b(), c.a_addr, c.b_addr, c.b_qpn),
            (c.b_to_a(), c.b_addr, c.a_addr, c.a_qpn),
        ];
        for (d, from, to, qpn) in ways {
            all.extend(d.stalls().iter().map(|stall| PlacedStall {
                stall,
                from,
                to,
                qpn,
            }));
        }
    }
    all.sort_by_key(|p| std::cmp::Reverse(p.stall.duration_ns));
    all.truncate(n);
    all
}

/// Silences of every connection direction that the capture's own misses explain.
pub fn unseen(table: &ConnectionTable) -> SilenceTally {
    total(table, |d| d.unseen_silences())
}

/// Silences of every connection direction that may have been idle time.
pub fn unconfirmed(table: &ConnectionTable) -> SilenceTally {
    total(table, |d| d.unconfirmed_stalls())
}

fn total(table: &ConnectionTable, of: impl Fn(&Direction<'_>) -> SilenceTally) -> SilenceTally {
    let mut total = SilenceTally::default();
    for c in Connection::all(table) {
        for d in [c.a_to_b(), c.b_to_a()] {
            let tally = of(&d);
            total.count += tally.count;
            total.ns += tally.ns;
        }
    }
    total
}

/// What overlapped a stall, in words: `prio 3 paused by 00:1c:73:aa:bb:03, CNP to sender`.
pub fn overlaps(s: &Silence) -> String {
    let mut parts = Vec::new();
    if let Some(by) = s.paused_by.filter(|_| s.paused_ns > 0) {
        let prio = s.priority.map_or(String::new(), |p| format!("prio {p} "));
        parts.push(format!(
            "{prio}paused by {by} for {} us",
            s.paused_ns / 1000
        ));
    }
    if let Some(began) = s.began_with {
        parts.push(format!(
            "after {}",
            began.name().replace('_', " ").to_uppercase()
        ));
    }
    if s.cnp {
        parts.push("CNP to sender".to_string());
    }
    if parts.is_empty() {
        parts.push("nothing seen overlapping".to_string());
    }
    parts.join(", ")
}
