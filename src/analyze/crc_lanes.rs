//! What `analyze --html` draws of CRC failures: each bad ICRC or VCRC as a mark at its time,
//! one lane per source address, so a link that corrupts frames shows as one busy lane. At
//! most [`MAX_SOURCES`] lanes (the rest share one) and [`MAX_MARKS`] marks a lane; a full
//! lane merges neighbouring marks of the same check into one that counts them.

use crate::dissect::Address;

pub const MAX_SOURCES: usize = 256;
pub const MAX_MARKS: usize = 2048;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Icrc,
    Vcrc,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Check::Icrc => "icrc_bad",
            Check::Vcrc => "vcrc_bad",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bad {
    pub ts_ns: u64,
    pub frame: u64,
    pub check: Check,
    /// Failures merged into this mark (1 unless the lane was full).
    pub count: u32,
}

#[derive(Debug, Clone)]
pub struct CrcLane {
    /// None: the packet had no network address, or the lanes were all taken.
    pub src: Option<Address>,
    pub bad: Vec<Bad>,
}

#[derive(Debug, Clone, Default)]
pub struct CrcLanes {
    pub lanes: Vec<CrcLane>,
}

impl CrcLanes {
    pub fn push(&mut self, src: Option<Address>, bad: Bad) {
        let at = self.lanes.iter().position(|l| l.src == src);
        let index = match at {
            Some(i) => i,
            None if self.lanes.len() < MAX_SOURCES - 1 || src.is_none() => {
                self.lanes.push(CrcLane {
                    src,
                    bad: Vec::new(),
                });
                self.lanes.len() - 1
            }
            // The last lane is kept for the sources beyond the bound.
            None => match self.lanes.iter().position(|l| l.src.is_none()) {
                Some(i) => i,
                None => {
                    self.lanes.push(CrcLane {
                        src: None,
                        bad: Vec::new(),
                    });
                    self.lanes.len() - 1
                }
            },
        };
        let lane = &mut self.lanes[index];
        if lane.bad.len() >= MAX_MARKS {
            merge_pairs(&mut lane.bad);
        }
        lane.bad.push(bad);
    }

    pub fn total(&self) -> u64 {
        self.lanes
            .iter()
            .flat_map(|l| &l.bad)
            .map(|b| u64::from(b.count))
            .sum()
    }
}

/// Merges each mark into the one before it when both are of the same check, every other
/// one; if that frees too little (the checks alternate), neighbours merge whatever their
/// check, keeping the first's.
fn merge_pairs(bad: &mut Vec<Bad>) {
    for any_check in [false, true] {
        super::halve::merge_neighbours(bad, |into, b| {
            let merge = any_check || into.check == b.check;
            if merge {
                into.count = into.count.saturating_add(b.count);
            }
            merge
        });
        if bad.len() <= MAX_MARKS * 3 / 4 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(i: u64, check: Check) -> Bad {
        Bad {
            ts_ns: i,
            frame: i + 1,
            check,
            count: 1,
        }
    }

    #[test]
    fn lanes_by_source_bounded_and_counted() {
        let mut lanes = CrcLanes::default();
        for i in 0..(MAX_SOURCES as u32 + 10) {
            let src = Some(Address::Ip(std::net::Ipv4Addr::from(i).into()));
            lanes.push(src, bad(u64::from(i), Check::Icrc));
        }
        assert_eq!(lanes.lanes.len(), MAX_SOURCES);
        assert_eq!(lanes.total(), MAX_SOURCES as u64 + 10);
        let shared = lanes.lanes.iter().find(|l| l.src.is_none()).unwrap();
        assert_eq!(shared.bad.len(), 11);
    }

    #[test]
    fn a_full_lane_merges_without_losing_count() {
        let mut lanes = CrcLanes::default();
        let total = 5 * MAX_MARKS as u64;
        for i in 0..total {
            let check = if i % 2 == 0 { Check::Icrc } else { Check::Vcrc };
            lanes.push(None, bad(i, check));
        }
        assert!(lanes.lanes[0].bad.len() <= MAX_MARKS);
        assert_eq!(lanes.total(), total);
    }
}
