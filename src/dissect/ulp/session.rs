//! The upper-layer protocols that pair a request with a response on one RC connection:
//! RPC-over-RDMA (an RPC call and its reply, by XID), iSER (an iSCSI command and its
//! response, by ITT) and SMB Direct (an SMB2 request and its response, by message ID).
//! Unlike an NVMe-oF queue, each message says by itself whether it asks or answers, so a
//! session only needs to know which QPs carry its protocol; the calls awaiting a reply are
//! kept by session and key.
//!
//! A session is recognised as the module doc of `ulp` says: by the CM REQ's port (20049,
//! 3260, 5445) and the REP that answers it, by `--decode`, or by traffic, when a plausible
//! call to a QP no session knows is answered by a plausible reply with the same key from
//! the callee's address to the caller's; the call before it stays undecoded.

use std::collections::HashMap;

use super::{DecodeAs, DecodeTarget, Endpoint, RecognisedBy, UlpProto, UlpState, ring_push};
use crate::dissect::Packet;
use crate::wire::mad::cm::Cm;

/// The session a frame belongs to: its number in capture order among the sessions of all
/// three protocols, and how it was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionRef {
    pub index: u32,
    pub recognised_by: RecognisedBy,
}

impl SessionRef {
    /// What a message parsed outside its session says until the session places it.
    pub(super) const UNPLACED: SessionRef = SessionRef {
        index: 0,
        recognised_by: RecognisedBy::Traffic,
    };
}

/// What a call is, beyond its name: what its reply's status is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallBody {
    Rpc {
        program: u32,
        version: u32,
        procedure: u32,
    },
    Scsi {
        /// The iSCSI opcode, and for a SCSI Command the CDB's.
        opcode: u8,
        cdb: Option<u8>,
    },
    Smb2 {
        command: u16,
    },
}

/// The call a reply answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLink {
    /// The call's frame.
    pub frame: u64,
    /// From the call to this frame, when both have a time.
    pub latency_ns: Option<u64>,
    /// XID, ITT or message ID.
    pub key: u64,
    pub name: &'static str,
    pub body: CallBody,
    /// Bytes the call asks to move to the caller (read) and from it (written).
    pub read_len: u64,
    pub write_len: u64,
}

impl CallLink {
    /// The key of an exchange that has none of its own (SMB Direct's negotiate): no XID,
    /// ITT or message ID a request may carry.
    pub const NO_KEY: u64 = u64::MAX;
}

/// What `analyze` reads of a frame of these protocols, whichever it is.
pub trait SessionMessage {
    fn session(&self) -> SessionRef;
    /// The request this frame makes, if it makes one: its name and key, and the bytes it
    /// asks to move; its `frame` is left 0 for the caller, who knows the frame, to set.
    fn request(&self) -> Option<CallLink>;
    /// The request this frame answers, when that was captured.
    fn answered(&self) -> Option<&CallLink>;
    /// How the request went, as far as this frame says.
    fn outcome(&self) -> Option<&'static str>;
    /// Whether that outcome is a failure.
    fn failed(&self) -> bool;
}

/// Whether a message asks or answers, and under which key.
#[derive(Debug, Clone, Copy)]
pub(super) enum Exchange {
    Call(CallLink),
    Reply(u64),
    Neither,
}

impl Exchange {
    /// The call a message makes, if it makes one.
    pub(super) fn call(self) -> Option<CallLink> {
        match self {
            Exchange::Call(link) => Some(link),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Session {
    proto: UlpProto,
    recognised_by: RecognisedBy,
    /// The QPs known to carry it; the second is learnt from the first reply sent to it when
    /// the first came from `--decode`.
    first: Option<Endpoint>,
    second: Option<Endpoint>,
}

#[derive(Debug, Clone, Copy)]
struct Waiting {
    link: CallLink,
    ts_ns: Option<u64>,
}

/// A plausible call to a QP no session knows, kept until a reply makes the session known.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    proto: UlpProto,
    caller: (u128, u8),
    callee: Endpoint,
    waiting: Waiting,
}

#[derive(Debug, Clone, Copy)]
struct PendingReq {
    comm_id: u32,
    session: u32,
}

const CANDIDATES: usize = 64;
const PENDING_REQS: usize = 64;

/// Calls kept awaiting their reply, per session. A capture of one direction only never
/// shows a reply, so without a cap every call of it would be kept. Real windows are far
/// smaller (NFS credits ~128, iSCSI queue depths ~1k, SMB2 credits ~8k): 65,536, the most
/// an NVMe-oF queue can have outstanding by its 16-bit CIDs, keeps every call a live
/// exchange can still answer. Beyond it the oldest eighth go; `analyze` evicts its own open
/// calls before a session gets here (see `crate::analyze::command_table`), so no call it
/// still counts open loses its link.
pub const WAITING_PER_SESSION: usize = 65_536;

/// What the request/response protocols learn from earlier frames.
#[derive(Debug, Clone, Default)]
pub struct Sessions {
    ends: HashMap<Endpoint, u32>,
    sessions: Vec<Session>,
    /// Calls awaiting their reply, by session and key.
    waiting: Vec<HashMap<u64, Waiting>>,
    candidates: Vec<Candidate>,
    pending_reqs: Vec<PendingReq>,
}

impl Sessions {
    pub(super) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn new_session(&mut self, proto: UlpProto, recognised_by: RecognisedBy) -> u32 {
        self.sessions.push(Session {
            proto,
            recognised_by,
            first: None,
            second: None,
        });
        self.waiting.push(HashMap::new());
        (self.sessions.len() - 1) as u32
    }

    fn bind(&mut self, end: Endpoint, session: u32) {
        self.ends.insert(end, session);
        let s = &mut self.sessions[session as usize];
        if s.first.is_none() {
            s.first = Some(end);
        } else if s.first != Some(end) {
            s.second.get_or_insert(end);
        }
    }

    fn session_ref(&self, index: u32) -> SessionRef {
        SessionRef {
            index,
            recognised_by: self.sessions[index as usize].recognised_by,
        }
    }

    /// A call waits for its reply; a reply takes its call, timed.
    fn exchange(&mut self, session: u32, exchange: Exchange, pkt: &Packet<'_>) -> Option<CallLink> {
        match exchange {
            Exchange::Call(link) => {
                let waiting = Waiting {
                    link,
                    ts_ns: pkt.ts_ns,
                };
                self.wait(session, link.key, waiting);
                None
            }
            Exchange::Reply(key) => self.waiting[session as usize].remove(&key).map(|w| {
                let latency_ns = w.ts_ns.zip(pkt.ts_ns).map(|(a, b)| b.saturating_sub(a));
                CallLink {
                    latency_ns,
                    ..w.link
                }
            }),
            Exchange::Neither => None,
        }
    }

    /// Keeps a call awaiting its reply; at [`WAITING_PER_SESSION`], the session's oldest
    /// eighth (by call frame) goes first: one pass buys an eighth of the cap's insertions.
    fn wait(&mut self, session: u32, key: u64, call: Waiting) {
        let waiting = &mut self.waiting[session as usize];
        if waiting.len() >= WAITING_PER_SESSION && !waiting.contains_key(&key) {
            let mut frames: Vec<u64> = waiting.values().map(|w| w.link.frame).collect();
            let cut = frames.len() / 8;
            let (_, oldest_kept, _) = frames.select_nth_unstable(cut);
            let oldest_kept = *oldest_kept;
            waiting.retain(|_, w| w.link.frame >= oldest_kept);
        }
        waiting.insert(key, call);
    }

    /// How many sessions are known.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }
}

/// The well-known port of each protocol's RDMA IP CM service ID.
fn cm_port(proto: UlpProto) -> Option<u16> {
    match proto {
        UlpProto::RpcRdma => Some(crate::wire::rpcrdma::NFS_RDMA_PORT),
        UlpProto::Iser => Some(crate::wire::iser::ISER_PORT),
        UlpProto::Smbd => Some(crate::wire::smbd::SMBD_PORT),
        UlpProto::NvmeRdma => None,
    }
}

const SESSION_PROTOS: [UlpProto; 3] = [UlpProto::RpcRdma, UlpProto::Iser, UlpProto::Smbd];

/// A CM REQ for one of the protocols' ports (or one `--decode port=` names): the caller's
/// QP carries it from now on, and the REP will name the callee's.
pub(super) fn cm_req(
    pkt: &Packet<'_>,
    state: &mut UlpState,
    forced: &[DecodeAs],
    cm: &Cm<'_>,
    port: u16,
    comm_id: u32,
) -> bool {
    let by_port = SESSION_PROTOS
        .iter()
        .find(|p| cm_port(**p) == Some(port))
        .map(|p| (*p, RecognisedBy::Cm));
    let by_option = || {
        forced
            .iter()
            .find(|d| d.proto != UlpProto::NvmeRdma && d.target == DecodeTarget::Port(port))
            .map(|d| (d.proto, RecognisedBy::Option))
    };
    let Some((proto, by)) = by_port.or_else(by_option) else {
        return false;
    };
    let Some(caller) = cm
        .local_qpn()
        .and_then(|q| Endpoint::new(pkt.src_addr(), q))
    else {
        return false;
    };
    let s = &mut state.sessions;
    let session = s.new_session(proto, by);
    s.bind(caller, session);
    ring_push(
        &mut s.pending_reqs,
        PENDING_REQS,
        PendingReq { comm_id, session },
    );
    true
}

/// The REP answering a REQ [`cm_req`] kept: the callee's QP.
pub(super) fn cm_rep(pkt: &Packet<'_>, state: &mut UlpState, cm: &Cm<'_>, remote: u32) -> bool {
    let s = &mut state.sessions;
    let Some(at) = s.pending_reqs.iter().position(|p| p.comm_id == remote) else {
        return false;
    };
    let session = s.pending_reqs.remove(at).session;
    let Some(callee) = cm
        .local_qpn()
        .and_then(|q| Endpoint::new(pkt.src_addr(), q))
    else {
        return false;
    };
    s.bind(callee, session);
    true
}

/// Before any session is known, only a SEND whose first bytes could begin one of these
/// protocols' calls can teach anything: a few compares, on SENDs only.
#[inline]
pub(super) fn could_start(pkt: &Packet<'_>) -> bool {
    let payload = pkt.payload;
    super::rpcrdma::could_start(payload)
        || super::iser::could_start(payload)
        || super::smbd::could_start(payload)
}

/// A SEND to a QP of a known session: decodes it and pairs it.
pub(super) fn on_send(pkt: &mut Packet<'_>, state: &mut UlpState, session: u32) -> bool {
    let proto = state.sessions.sessions[session as usize].proto;
    let Some((exchange, frame)) = parse(proto, pkt) else {
        return false;
    };
    let s = &mut state.sessions;
    let link = s.exchange(session, exchange, pkt);
    let at = s.session_ref(session);
    pkt.ulp = Some(frame.into_ulp(at, link));
    !matches!(exchange, Exchange::Neither)
}

/// One protocol's message of a frame, before it is placed in its session.
pub(super) enum Parsed<'a> {
    Rpc(super::rpcrdma::RpcFrame<'a>),
    Iser(super::iser::IserFrame<'a>),
    Smbd(super::smbd::SmbdFrame<'a>),
}

impl<'a> Parsed<'a> {
    fn into_ulp(self, session: SessionRef, link: Option<CallLink>) -> super::Ulp<'a> {
        match self {
            Parsed::Rpc(mut f) => {
                f.session = session;
                f.call = link;
                super::Ulp::Rpc(f)
            }
            Parsed::Iser(mut f) => {
                f.session = session;
                f.call = link;
                super::Ulp::Iser(f)
            }
            Parsed::Smbd(mut f) => {
                f.session = session;
                f.call = link;
                super::Ulp::Smbd(f)
            }
        }
    }
}

/// The frame's message in `proto`, and what it asks or answers; a call is stamped with the
/// frame it was made in.
fn parse<'a>(proto: UlpProto, pkt: &Packet<'a>) -> Option<(Exchange, Parsed<'a>)> {
    let (exchange, parsed) = match proto {
        UlpProto::RpcRdma => super::rpcrdma::parse(pkt.payload)?,
        UlpProto::Iser => super::iser::parse(pkt.payload)?,
        UlpProto::Smbd => super::smbd::parse(pkt.payload)?,
        UlpProto::NvmeRdma => return None,
    };
    let exchange = match exchange {
        Exchange::Call(link) => Exchange::Call(CallLink {
            frame: pkt.frame,
            ..link
        }),
        other => other,
    };
    Some((exchange, parsed))
}

/// A SEND to a QP no queue or session knows: `--decode` names it, or traffic teaches it.
/// Returns `None` when none of the protocols takes it, so NVMe-oF may try.
pub(super) fn learn(
    pkt: &mut Packet<'_>,
    state: &mut UlpState,
    forced: &[DecodeAs],
    to: Endpoint,
) -> Option<bool> {
    if let Some(d) = forced
        .iter()
        .find(|d| d.proto != UlpProto::NvmeRdma && d.target == DecodeTarget::Qp(to.qpn))
    {
        let session = state.sessions.new_session(d.proto, RecognisedBy::Option);
        state.sessions.bind(to, session);
        on_send(pkt, state, session);
        return Some(true);
    }
    if !could_start(pkt) {
        return None;
    }
    let from = pkt.src_addr()?.packed();
    for proto in SESSION_PROTOS {
        let Some((exchange, _)) = parse(proto, pkt).filter(|(_, f)| f.teaches()) else {
            continue;
        };
        let s = &mut state.sessions;
        match exchange {
            Exchange::Call(link) => {
                ring_push(
                    &mut s.candidates,
                    CANDIDATES,
                    Candidate {
                        proto,
                        caller: from,
                        callee: to,
                        waiting: Waiting {
                            link,
                            ts_ns: pkt.ts_ns,
                        },
                    },
                );
                return Some(true);
            }
            Exchange::Reply(key) => {
                // A session that knows one end, the callee at this reply's source, waiting
                // for this key: this QP is its other end.
                let known = (0..s.sessions.len() as u32).find(|i| {
                    let session = s.sessions[*i as usize];
                    session.proto == proto
                        && session.second.is_none()
                        && session.first.is_some_and(|e| e.addr == from)
                        && s.waiting[*i as usize].contains_key(&key)
                });
                if let Some(session) = known {
                    s.bind(to, session);
                    return Some(on_send(pkt, state, session));
                }
                let at = s.candidates.iter().rposition(|c| {
                    c.proto == proto
                        && c.caller == to.addr
                        && c.callee.addr == from
                        && c.waiting.link.key == key
                })?;
                let candidate = s.candidates.remove(at);
                s.candidates.retain(|c| c.callee != candidate.callee);
                let session = s.new_session(proto, RecognisedBy::Traffic);
                s.bind(candidate.callee, session);
                s.bind(to, session);
                s.wait(session, key, candidate.waiting);
                on_send(pkt, state, session);
                return Some(true);
            }
            Exchange::Neither => {}
        }
    }
    None
}

impl Parsed<'_> {
    /// Whether the message is one traffic may learn a session from.
    fn teaches(&self) -> bool {
        match self {
            Parsed::Rpc(f) => f.teaches(),
            Parsed::Iser(f) => f.teaches(),
            Parsed::Smbd(f) => f.teaches(),
        }
    }
}

/// The session QP a SEND goes to, if a session knows it.
#[inline]
pub(super) fn session_of(state: &UlpState, to: &Endpoint) -> Option<u32> {
    if state.sessions.ends.is_empty() {
        return None;
    }
    state.sessions.ends.get(to).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(frame: u64) -> Waiting {
        Waiting {
            link: CallLink {
                frame,
                latency_ns: None,
                key: frame,
                name: "NULL",
                body: CallBody::Smb2 { command: 0 },
                read_len: 0,
                write_len: 0,
            },
            ts_ns: None,
        }
    }

    #[test]
    fn a_session_past_its_cap_forgets_its_oldest_eighth() {
        let mut s = Sessions::default();
        let session = s.new_session(UlpProto::Smbd, RecognisedBy::Option);
        let cap = WAITING_PER_SESSION as u64;
        for frame in 1..=cap + 1 {
            s.wait(session, frame, call(frame));
        }
        let waiting = &s.waiting[session as usize];
        assert_eq!(waiting.len() as u64, cap + 1 - cap / 8);
        // The oldest eighth went; the newest is kept.
        assert!(!waiting.contains_key(&(cap / 8)));
        assert!(waiting.contains_key(&(cap / 8 + 1)));
        assert!(waiting.contains_key(&(cap + 1)));
    }
}
