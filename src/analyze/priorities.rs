//! Which PFC priority an RDMA packet travels on, and what each priority carried.
//!
//! PFC pauses a priority, not a connection, so a stall can only be blamed on a pause once
//! the connection's priority is known. A switch takes it from the VLAN PCP when the frame
//! is tagged; untagged RoCE is classified by its DSCP through the switch's DSCP-to-priority
//! table, which `--dscp-map` describes (DSCP/8 unless told, the common mapping that puts
//! DSCP 26 on priority 3).

use crate::dissect::{Kind, Packet};

/// DSCP values: six bits.
pub const DSCPS: usize = 64;
/// Priorities PFC pauses: three bits of PCP.
pub const PRIORITIES: usize = 8;

/// Where a packet's priority came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Pcp,
    Dscp,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Pcp => "pcp",
            Source::Dscp => "dscp",
        }
    }
}

/// A packet's priority, how it was found, and its DSCP when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    pub priority: u8,
    pub source: Source,
    pub dscp: Option<u8>,
}

/// The switch's DSCP-to-priority table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DscpMap([u8; DSCPS]);

impl Default for DscpMap {
    fn default() -> Self {
        let mut map = [0u8; DSCPS];
        for (dscp, priority) in map.iter_mut().enumerate() {
            *priority = (dscp / 8) as u8;
        }
        DscpMap(map)
    }
}

impl DscpMap {
    /// The default table with `pairs` (DSCP, priority) put over it.
    pub fn with(pairs: &[(u8, u8)]) -> Self {
        let mut map = DscpMap::default();
        for &(dscp, priority) in pairs {
            if let Some(slot) = map.0.get_mut(usize::from(dscp)) {
                *slot = priority & 7;
            }
        }
        map
    }

    pub fn priority(&self, dscp: u8) -> u8 {
        self.0[usize::from(dscp) & (DSCPS - 1)]
    }
}

/// The DSCP of an RDMA packet: RoCE v2's IP header, or RoCE v1's GRH traffic class.
/// Native InfiniBand has service levels, not DSCP.
fn dscp(pkt: &Packet<'_>) -> Option<u8> {
    match pkt.kind {
        Kind::RoceV2 => pkt.ip.map(|ip| ip.dscp()),
        Kind::RoceV1 => pkt.grh.map(|g| g.tclass() >> 2),
        _ => None,
    }
}

/// What a packet shows of its class: the outermost VLAN tag's PCP and its DSCP. Kept per
/// flow from its first packet, and turned into a priority through the map at the end, so
/// that no packet pays for a look-up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wire {
    pub pcp: Option<u8>,
    pub dscp: Option<u8>,
}

impl Wire {
    pub fn of(pkt: &Packet<'_>) -> Wire {
        Wire {
            pcp: pkt.vlans.iter().next().map(|tag| tag.pcp()),
            dscp: dscp(pkt),
        }
    }

    /// The priority a switch gives it: the tag's PCP, or else the DSCP through `map`.
    pub fn class(self, map: &DscpMap) -> Option<Class> {
        match self.pcp {
            Some(pcp) => Some(Class {
                priority: pcp,
                source: Source::Pcp,
                dscp: self.dscp,
            }),
            None => self.dscp.map(|d| Class {
                priority: map.priority(d),
                source: Source::Dscp,
                dscp: Some(d),
            }),
        }
    }
}

/// What one priority (or one DSCP of it) carried.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Carried {
    pub packets: u64,
    /// Frame lengths on the wire.
    pub bytes: u64,
    pub ce: u64,
    pub cnps: u64,
}

impl Carried {
    pub fn add(&mut self, other: Carried) {
        self.packets += other.packets;
        self.bytes += other.bytes;
        self.ce += other.ce;
        self.cnps += other.cnps;
    }
}

/// Per priority, what it carried by DSCP (index [`DSCPS`] for tagged frames without one),
/// and how its packets were classified: the flows' counts, added up at the end.
#[derive(Debug, Clone)]
pub struct PriorityCounts {
    by_dscp: Box<[[Carried; DSCPS + 1]; PRIORITIES]>,
    /// Per priority, a bit per [`Source`] seen: 1 PCP, 2 DSCP.
    sources: [u8; PRIORITIES],
}

impl Default for PriorityCounts {
    fn default() -> Self {
        PriorityCounts {
            by_dscp: Box::new([[Carried::default(); DSCPS + 1]; PRIORITIES]),
            sources: [0; PRIORITIES],
        }
    }
}

impl PriorityCounts {
    pub fn add(&mut self, class: Class, carried: Carried) {
        let p = usize::from(class.priority) & (PRIORITIES - 1);
        let d = class.dscp.map_or(DSCPS, |d| usize::from(d) & (DSCPS - 1));
        self.by_dscp[p][d].add(carried);
        self.sources[p] |= match class.source {
            Source::Pcp => 1,
            Source::Dscp => 2,
        };
    }

    /// The priority's totals.
    pub fn total(&self, priority: u8) -> Carried {
        let mut total = Carried::default();
        for c in &self.by_dscp[usize::from(priority) & (PRIORITIES - 1)] {
            total.add(*c);
        }
        total
    }

    /// The DSCPs the priority carried, with what each carried; `None` for tagged frames
    /// without an IP header.
    pub fn dscps(&self, priority: u8) -> impl Iterator<Item = (Option<u8>, Carried)> + '_ {
        self.by_dscp[usize::from(priority) & (PRIORITIES - 1)]
            .iter()
            .enumerate()
            .filter(|(_, c)| c.packets > 0)
            .map(|(d, c)| ((d < DSCPS).then_some(d as u8), *c))
    }

    /// The sources the priority's packets were classified by.
    pub fn sources(&self, priority: u8) -> impl Iterator<Item = Source> {
        let bits = self.sources[usize::from(priority) & (PRIORITIES - 1)];
        [(1, Source::Pcp), (2, Source::Dscp)]
            .into_iter()
            .filter(move |(bit, _)| bits & bit != 0)
            .map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_map_puts_dscp_26_on_priority_3() {
        let map = DscpMap::default();
        assert_eq!(map.priority(26), 3);
        assert_eq!(map.priority(46), 5);
        assert_eq!(map.priority(0), 0);
        let given = DscpMap::with(&[(26, 4)]);
        assert_eq!(given.priority(26), 4);
        assert_eq!(given.priority(24), 3);
    }
}
