//! Congestion: the flows with CE marks, the CNPs and the flows they answer, and the
//! capture's first mark and first CNP.

use std::collections::HashMap;

use serde::Serialize;

use super::values::{At, Files, First, FlowId};
use crate::analyze::Analyzer;
use crate::analyze::flows::Flow;
use crate::analyze::key::{FlowKey, FrameRef};
use crate::dissect::Address;
use crate::wire::opcode::Role;

#[derive(Serialize)]
pub struct CeFlow<'a> {
    #[serde(flatten)]
    pub id: FlowId<'a>,
    pub ecn_ce: u32,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub first: Option<First<'a>>,
}

#[derive(Serialize)]
pub struct CnpTarget<'a> {
    #[serde(flatten)]
    pub id: FlowId<'a>,
    pub cnps: u32,
    #[serde(flatten)]
    pub first: First<'a>,
    /// Request flows from the CNP's target host to its sender that carry CE marks: the
    /// candidates for the flow whose marks caused the CNPs.
    pub ce_flows: u32,
    /// The destination QP of the candidate the CNPs answer, when it is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_dest_qp: Option<u32>,
    /// How it is known: `only_ce_flow`, or `acknowledged_psn` when the last ACK to the
    /// CNP's QP carries the last PSN of exactly one candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_paired_by: Option<&'static str>,
    /// From the CE mark the first CNP answered to that CNP: the latest mark before it on
    /// the requests of the QP the CNP slows down, as the connection's `ce_to_cnp_ns` pairs
    /// every CNP. An earlier mark the NIC did not answer (it rate-limits its CNPs) is no
    /// delay of its. None when the connection table does not know the QP's peer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_to_cnp_ns: Option<u64>,
}

/// CE-marked request flows of one host pair, to pair CNPs with.
#[derive(Clone, Copy, Default)]
struct MarkedFlows {
    count: u32,
    /// The one flow's destination QP, when `count` is 1.
    only: Option<u32>,
}

#[derive(Serialize)]
pub struct FlowEvent<'a> {
    #[serde(flatten)]
    pub id: FlowId<'a>,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Congestion<'a> {
    pub ce_flows: Vec<CeFlow<'a>>,
    pub cnp_targets: Vec<CnpTarget<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ce: Option<FlowEvent<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_cnp: Option<FlowEvent<'a>>,
    /// The capture's first CNP's delay, paired as each of `cnp_targets` is: not the time
    /// from the capture's first mark, which may be another QP's, or one never answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_to_cnp_ns: Option<u64>,
}

impl<'a> Congestion<'a> {
    pub(super) fn new(
        analyzer: &'a Analyzer,
        flows: &[(&'a FlowKey, &'a Flow)],
        files: Files<'a>,
    ) -> Self {
        let ce_flows = flows
            .iter()
            .filter(|(_, f)| f.ecn_ce > 0)
            .map(|&(key, flow)| CeFlow {
                id: FlowId::new(key),
                ecn_ce: flow.ecn_ce,
                first: flow.first_ce.map(|at| First::new(at, files)),
            })
            .collect();
        // One pass indexes the CE-marked request flows, by host pair and by last PSN, and the
        // responses by the QP they go to, so pairing every CNP flow stays linear.
        type Index<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
        let mut marked: Index<(Address, Address), MarkedFlows> = Index::default();
        let mut by_last_psn: Index<(Address, Address, u32), MarkedFlows> = Index::default();
        let mut last_ack: Index<(Address, Address, u32), u32> = Index::default();
        let any_cnp = flows.iter().any(|(k, _)| k.role == Role::Cnp);
        for (key, flow) in flows.iter().filter(|_| any_cnp) {
            match key.role {
                Role::Request if flow.ecn_ce > 0 => {
                    let this = key.dest_qp;
                    for entry in [
                        marked.entry((key.src, key.dst)).or_default(),
                        by_last_psn
                            .entry((key.src, key.dst, flow.last_psn))
                            .or_default(),
                    ] {
                        entry.count += 1;
                        entry.only = (entry.count == 1).then_some(this);
                    }
                }
                Role::Response => {
                    last_ack.insert((key.src, key.dst, key.dest_qp), flow.last_psn);
                }
                _ => {}
            }
        }
        let first_reaction = first_reactions(analyzer, any_cnp);
        let cnp_targets = flows
            .iter()
            .filter(|(k, _)| k.role == Role::Cnp)
            .map(|&(key, flow)| {
                // The CE marks that caused these CNPs travelled the other way: requests from
                // the CNP's destination to its source.
                let candidates = marked.get(&(key.dst, key.src)).copied().unwrap_or_default();
                let paired = match candidates.only {
                    Some(only) => Some((only, "only_ce_flow")),
                    None => last_ack
                        .get(&(key.src, key.dst, key.dest_qp))
                        .and_then(|psn| by_last_psn.get(&(key.dst, key.src, *psn)))
                        .and_then(|m| m.only)
                        .map(|only| (only, "acknowledged_psn")),
                };
                let ce_to_cnp_ns = first_reaction.get(key).copied().flatten();
                CnpTarget {
                    id: FlowId::new(key),
                    cnps: flow.cnps,
                    first: First::new(flow.first, files),
                    ce_flows: candidates.count,
                    ce_dest_qp: paired.map(|(qp, _)| qp),
                    ce_paired_by: paired.map(|(_, by)| by),
                    ce_to_cnp_ns,
                }
            })
            .collect();
        let event = |found: &'a Option<(FrameRef, FlowKey)>| {
            found.as_ref().map(|(at, key)| FlowEvent {
                id: FlowId::new(key),
                at: At::new(*at, files),
            })
        };
        // The capture's first CNP is the first of its flow.
        let ce_to_cnp_ns = analyzer
            .first_cnp
            .and_then(|(_, key)| first_reaction.get(&key).copied().flatten());
        Congestion {
            ce_flows,
            cnp_targets,
            first_ce: event(&analyzer.first_ce),
            first_cnp: event(&analyzer.first_cnp),
            ce_to_cnp_ns,
        }
    }
}

/// Per CNP flow, the delay of its first CNP from the CE mark it answered, as the connection
/// table paired them: the CNPs to a QP answer the marks on its peer's requests to it.
fn first_reactions(
    analyzer: &Analyzer,
    any_cnp: bool,
) -> HashMap<FlowKey, Option<u64>, foldhash::fast::RandomState> {
    let ends = analyzer.connections.ends();
    ends.iter()
        .filter(|_| any_cnp)
        .filter(|end| end.rsp.cnps > 0)
        .filter_map(|end| {
            let key = end.key?;
            let peer = ends.get(end.peer? as usize)?;
            let cnps = FlowKey {
                src: key.peer,
                dst: key.addr,
                dest_qp: key.qpn,
                role: Role::Cnp,
            };
            Some((cnps, peer.req.reaction.first_ce_to_cnp_ns()))
        })
        .collect()
}
