//! Which connections the report draws: with thousands, the worst first, by
//! retransmissions, then NAKs, then CNPs, then bytes; the rest are listed, not drawn.

use crate::report::connections::Connection;

/// What a connection is ranked by, both directions added up, most telling first.
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

/// The connections worst first; equals keep the order they appeared in.
pub fn ranked<'a>(
    connections: impl Iterator<Item = Connection<'a>>,
) -> Vec<(Connection<'a>, Badness)> {
    let mut all: Vec<(Connection<'a>, Badness)> =
        connections.map(|c| (c, Badness::of(&c))).collect();
    all.sort_by_key(|c| std::cmp::Reverse(c.1));
    all
}

#[cfg(test)]
mod tests {
    use super::Badness;

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
}
