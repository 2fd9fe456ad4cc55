//! `analyze --qp N`: the whole connection that QPN N belongs to, both ends and both
//! directions, so that the responses, NAKs and CNPs of its peer stay in view. Requests name
//! only the destination QPN, so the ends are learnt from a pass over the capture first.

use std::collections::HashSet;

use super::ConnectionTable;
use crate::analyze::hosts::{self, Hosts};
use crate::dissect::{Address, Packet};
use crate::wire::mad::cm::CmMsg;

type Set<T> = HashSet<T, foldhash::fast::RandomState>;

#[derive(Debug, Default)]
pub struct Selection {
    /// (address, QPN) of every end of the selected connections.
    ends: Set<(Address, u32)>,
    qpns: Set<u32>,
    /// What the pass that paired the ends learnt of hosts: a link-local GID it keyed as an
    /// IPv4 host from some point on must be admitted under either name.
    hosts: Hosts,
}

impl Selection {
    /// The ends with QPN `qpn`, on any host, and their peers.
    pub fn of(table: &ConnectionTable, qpn: u32) -> Self {
        let mut selection = Selection::default();
        let ends = table.ends();
        for end in ends.iter().filter(|e| e.key.is_some_and(|k| k.qpn == qpn)) {
            let peer = end.peer.and_then(|p| ends.get(p as usize));
            for key in [end.key, peer.and_then(|p| p.key)].into_iter().flatten() {
                selection.ends.insert((key.addr, key.qpn));
                selection.qpns.insert(key.qpn);
            }
        }
        selection.qpns.insert(qpn);
        selection
    }

    /// The hosts the pass that filled the table learnt, to admit packets by.
    pub fn with_hosts(mut self, hosts: Hosts) -> Self {
        self.hosts = hosts;
        self
    }

    /// Whether a packet belongs to a selected connection: sent to one of its ends, or a CM
    /// message that sets one up or tears one down.
    pub fn admits(&self, pkt: &Packet<'_>) -> bool {
        if let Some(cm) = pkt.mad.and_then(|m| m.cm()) {
            return match cm.msg() {
                CmMsg::Req | CmMsg::Rep => cm.local_qpn().is_some_and(|q| self.qpns.contains(&q)),
                // Teardown names comm IDs, which only a selected connection's REP registered.
                _ => true,
            };
        }
        match (pkt.dst_addr(), pkt.bth) {
            (Some(dst), Some(bth)) if pkt.mad.is_none() => {
                let qpn = bth.dest_qp();
                let (named, learnt) = (hosts::host(dst), self.hosts.host(dst));
                self.ends.contains(&(named, qpn))
                    || (learnt != named && self.ends.contains(&(learnt, qpn)))
                    || (self.ends.is_empty() && qpn == self.only_qpn())
            }
            _ => false,
        }
    }

    /// With no end learnt (no packet to the QPN), the QPN itself still selects.
    fn only_qpn(&self) -> u32 {
        self.qpns.iter().next().copied().unwrap_or(u32::MAX)
    }
}
