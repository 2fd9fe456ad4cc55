//! Connections worst first, by the time their problems cost: what a user asking "which
//! connections are slow, and why" reads first. Time lost is a direction's stall time, plus
//! the waits of its retransmission episodes, plus the time its priority was paused while it
//! had requests outstanding, both directions added up. The three overlap (a stall during a
//! pause counts in both, and so does a timeout's silence), so the sum ranks; it is not wall
//! time, and the JSON gives each part. Connections that lost no time are ranked by what
//! went wrong (retransmissions, NAKs, CNPs), then by bytes, then in order of appearance.
//! Goodput is set against the median of the connections between the same two hosts, or of
//! the capture when fewer than three share them.

use std::collections::HashMap;

use serde::Serialize;

use super::connections::{Connection, Direction};
use crate::dissect::Address;

/// Connections between one pair of hosts needed for their own goodput median.
const PEERS_FOR_MEDIAN: usize = 3;

/// A connection's time lost, by part, both directions added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TimeLost {
    pub stall_ns: u64,
    pub retx_wait_ns: u64,
    pub paused_ns: u64,
}

impl TimeLost {
    pub fn of(c: &Connection<'_>) -> Self {
        let (ab, ba) = (c.a_to_b(), c.b_to_a());
        let both = |f: &dyn Fn(&Direction<'_>) -> u64| f(&ab).saturating_add(f(&ba));
        TimeLost {
            stall_ns: both(&|d| d.stall_ns()),
            retx_wait_ns: both(&|d| d.retx_wait_ns()),
            paused_ns: both(&|d| d.paused_ns()),
        }
    }

    pub fn total_ns(&self) -> u64 {
        self.stall_ns
            .saturating_add(self.retx_wait_ns)
            .saturating_add(self.paused_ns)
    }
}

/// What ranks connections that lost no time, most telling first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Badness {
    pub retransmitted: u64,
    pub naks: u64,
    pub cnps: u64,
    pub bytes: u64,
}

impl Badness {
    pub fn of(c: &Connection<'_>) -> Self {
        let (ab, ba) = (c.a_to_b(), c.b_to_a());
        Badness {
            retransmitted: u64::from(ab.req.retransmitted) + u64::from(ba.req.retransmitted),
            naks: ab.naks() + ba.naks() + u64::from(ab.rsp.rnr_naks) + u64::from(ba.rsp.rnr_naks),
            cnps: u64::from(ab.rsp.cnps) + u64::from(ba.rsp.cnps),
            bytes: ab.req.payload_bytes
                + ab.rsp.payload_bytes
                + ba.req.payload_bytes
                + ba.rsp.payload_bytes,
        }
    }
}

/// Which median a connection's goodput is set against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MedianOf {
    HostPair,
    Capture,
}

impl MedianOf {
    pub fn name(self) -> &'static str {
        match self {
            MedianOf::HostPair => "host_pair",
            MedianOf::Capture => "capture",
        }
    }
}

/// One connection's place.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// 1 for the connection that lost the most.
    pub rank: u32,
    pub time_lost: TimeLost,
    pub badness: Badness,
    /// Its goodput (the busier direction's) over the median's, and which median.
    pub goodput_vs_median: Option<(f64, MedianOf)>,
}

/// Every connection's place, by its index in [`Connection::all`]'s order.
#[derive(Debug, Clone, Default)]
pub struct Ranking {
    places: Vec<Place>,
    /// Indices in rank order, worst first.
    order: Vec<usize>,
}

impl Ranking {
    pub fn of<'a>(connections: impl Iterator<Item = Connection<'a>>) -> Self {
        let all: Vec<Connection<'a>> = connections.collect();
        let goodput: Vec<Option<u64>> = all.iter().map(busier_goodput).collect();
        let medians = Medians::of(&all, &goodput);
        let mut places: Vec<Place> = all
            .iter()
            .zip(&goodput)
            .map(|(c, &g)| Place {
                rank: 0,
                time_lost: TimeLost::of(c),
                badness: Badness::of(c),
                goodput_vs_median: g.and_then(|g| medians.versus(c, g)),
            })
            .collect();
        let mut order: Vec<usize> = (0..places.len()).collect();
        order.sort_by_key(|&i| {
            let p = &places[i];
            (
                std::cmp::Reverse(p.time_lost.total_ns()),
                std::cmp::Reverse(p.badness),
                i,
            )
        });
        for (rank, &i) in order.iter().enumerate() {
            places[i].rank = u32::try_from(rank + 1).unwrap_or(u32::MAX);
        }
        Ranking { places, order }
    }

    /// The place of connection `index` (in [`Connection::all`]'s order).
    pub fn place(&self, index: usize) -> Option<&Place> {
        self.places.get(index)
    }

    /// Connection indices, worst first.
    pub fn order(&self) -> &[usize] {
        &self.order
    }
}

/// The goodput of the direction that carried more; none for a connection with no requests.
fn busier_goodput(c: &Connection<'_>) -> Option<u64> {
    let (ab, ba) = (c.a_to_b(), c.b_to_a());
    match (ab.req.goodput_bps(), ba.req.goodput_bps()) {
        (Some(x), Some(y)) => Some(if ab.req.payload_bytes >= ba.req.payload_bytes {
            x
        } else {
            y
        }),
        (x, y) => x.or(y),
    }
}

type HostPair = (Address, Address);

fn host_pair(c: &Connection<'_>) -> HostPair {
    if c.a_addr <= c.b_addr {
        (c.a_addr, c.b_addr)
    } else {
        (c.b_addr, c.a_addr)
    }
}

struct Medians {
    by_pair: HashMap<HostPair, u64>,
    capture: Option<u64>,
}

impl Medians {
    fn of(all: &[Connection<'_>], goodput: &[Option<u64>]) -> Self {
        let mut groups: HashMap<HostPair, Vec<u64>> = HashMap::new();
        let mut every = Vec::new();
        for (c, g) in all.iter().zip(goodput) {
            if let Some(g) = *g {
                groups.entry(host_pair(c)).or_default().push(g);
                every.push(g);
            }
        }
        let by_pair = groups
            .into_iter()
            .filter(|(_, v)| v.len() >= PEERS_FOR_MEDIAN)
            .filter_map(|(k, mut v)| Some((k, median(&mut v)?)))
            .collect();
        Medians {
            by_pair,
            capture: median(&mut every),
        }
    }

    fn versus(&self, c: &Connection<'_>, goodput: u64) -> Option<(f64, MedianOf)> {
        let (median, of) = match self.by_pair.get(&host_pair(c)) {
            Some(&m) => (m, MedianOf::HostPair),
            None => (self.capture?, MedianOf::Capture),
        };
        (median > 0).then(|| (goodput as f64 / median as f64, of))
    }
}

/// The lower median, so that it is one connection's own figure.
fn median(values: &mut [u64]) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    Some(values[(values.len() - 1) / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_lost_adds_its_parts() {
        let t = TimeLost {
            stall_ns: 450_000,
            retx_wait_ns: 4_194_304,
            paused_ns: 441_000,
        };
        assert_eq!(t.total_ns(), 450_000 + 4_194_304 + 441_000);
    }

    #[test]
    fn retransmissions_outrank_naks_outrank_cnps_outrank_bytes() {
        let b = |retransmitted, naks, cnps, bytes| Badness {
            retransmitted,
            naks,
            cnps,
            bytes,
        };
        let mut v = vec![
            b(0, 0, 0, 1 << 40),
            b(0, 0, 1, 0),
            b(0, 1, 0, 0),
            b(1, 0, 0, 0),
        ];
        v.sort_by_key(|x| std::cmp::Reverse(*x));
        assert_eq!(
            v,
            [
                b(1, 0, 0, 0),
                b(0, 1, 0, 0),
                b(0, 0, 1, 0),
                b(0, 0, 0, 1 << 40)
            ]
        );
    }

    #[test]
    fn the_median_is_a_connection_s_own_figure() {
        assert_eq!(median(&mut [5, 1, 3, 2]), Some(2));
        assert_eq!(median(&mut [7]), Some(7));
        assert_eq!(median(&mut []), None);
    }
}
