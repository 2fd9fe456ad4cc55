//! What rides on RDMA: the upper-layer protocols (ULPs) whose messages are the payload of RC
//! SENDs and whose data moves by RDMA READ and WRITE. NVMe over Fabrics is decoded here;
//! RPC-over-RDMA, SMB Direct and iSER plug into the same shape.
//!
//! # The shape every ULP follows
//!
//! - **Bytes** live in `crate::wire::<proto>/`, one file per header, each a typed
//!   zero-copy view whose length is checked once.
//! - **Which queue pairs carry it** is learnt from earlier frames, because a SEND's payload
//!   does not say what it is. [`UlpState`] rides in the decoder's state next to the IPoIB-CM
//!   queue pairs ([`super::IpoibCmState`]), so the threaded pipeline copies, commits and
//!   re-decodes it the same way. A queue is recognised in one of three ways, which the
//!   output names as `recognised_by`:
//!   - `cm`: the CM REQ that set it up names the protocol (service ID, port, private
//!     data), and the REP that answers it names the other end;
//!   - `traffic`: the messages themselves, conservatively: a first request answered by a
//!     matching response (for NVMe-oF a 64-byte command capsule, then a 16-byte response
//!     capsule from the controller carrying the same CID). The queue is known from that
//!     response on; the request before it stays undecoded;
//!   - `option`: `--decode qp=N:PROTO` or `--decode port=N:PROTO` ([`DecodeAs`]), like
//!     Wireshark's Decode As.
//! - **Per frame** [`decode`] runs after the stateless dissection, sets [`Packet::ulp`] and
//!   says whether the state changed. Frames that are neither CM nor an RC SEND, RDMA READ
//!   request or RDMA WRITE cost one opcode test; those on no known queue a hash look-up
//!   skipped while no queue is known. Nothing is allocated for them.
//! - **Linking**: a response names its request (frame and latency) and the RDMA READ and
//!   WRITE that move a request's data name it, looked up by the keys in the request; a READ's
//!   responses carry no key, and name the request whose PSN range they fall in. The
//!   state keeps requests outstanding until answered, so the link is made in capture order
//!   whatever the pipeline's threading.
//! - **Output** adds one `read --json` layer per protocol (shown by `-V` from the JSON), a
//!   summary in the text line, fields in `crate::fields`, and an `analyze` section per queue
//!   built from the links alone.

use std::collections::HashMap;

pub use iser::{IserFrame, IserMsg, request_name as iscsi_request_name};
pub use rpcrdma::{RpcFrame, call_name as rpc_call_name, is_error_status, program_name};
pub use session::{CallBody, CallLink, SessionMessage, SessionRef, WAITING_PER_SESSION};
pub use smbd::{ReadWrite, SmbdFrame, SmbdMsg};

use super::{Address, Packet};
use crate::wire::mad::cm::{CmMsg, ip_service};
use crate::wire::nvme::cm_private::{REQ_OFFSET, RejPrivate, RepPrivate, ReqPrivate};
use crate::wire::nvme::cqe::{CQE_LEN, Cqe};
use crate::wire::nvme::names::{self, fctype};
use crate::wire::nvme::sqe::{SQE_LEN, Sqe};
use crate::wire::nvme::{NVME_RDMA_PORT, sgl};
use crate::wire::opcode;

mod iser;
mod rpcrdma;
mod session;
mod smbd;

/// An upper-layer protocol `--decode` can force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UlpProto {
    NvmeRdma,
    RpcRdma,
    Iser,
    Smbd,
}

impl UlpProto {
    pub fn name(self) -> &'static str {
        match self {
            UlpProto::NvmeRdma => "nvme-rdma",
            UlpProto::RpcRdma => "rpcrdma",
            UlpProto::Iser => "iser",
            UlpProto::Smbd => "smbd",
        }
    }
}

/// What `--decode` forces a protocol on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeTarget {
    /// RC SENDs to this destination QP (24 bits).
    Qp(u32),
    /// CM REQs whose RDMA IP CM service ID names this port.
    Port(u16),
}

/// One `--decode TARGET:PROTO`, as Wireshark's Decode As.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeAs {
    pub target: DecodeTarget,
    pub proto: UlpProto,
}

impl std::str::FromStr for DecodeAs {
    type Err = String;

    /// `qp=0x8d:nvme-rdma` or `port=4420:nvme-rdma`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (target, proto) = text
            .split_once(':')
            .ok_or_else(|| format!("`{text}`: expected qp=N:PROTO or port=N:PROTO"))?;
        let proto = match proto {
            "nvme-rdma" | "nvme" => UlpProto::NvmeRdma,
            "rpcrdma" | "rpcordma" | "nfs" => UlpProto::RpcRdma,
            "iser" | "iscsi" => UlpProto::Iser,
            "smbd" | "smb_direct" | "smb" => UlpProto::Smbd,
            other => {
                return Err(format!(
                    "unknown protocol `{other}` (known: nvme-rdma, rpcrdma, iser, smbd)"
                ));
            }
        };
        let number = |value: &str| -> Result<u64, String> {
            let parsed = match value
                .strip_prefix("0x")
                .or_else(|| value.strip_prefix("0X"))
            {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => value.parse(),
            };
            parsed.map_err(|_| format!("`{value}` is not a number"))
        };
        let target = match target.split_once('=') {
            Some(("qp", n)) => {
                let qpn = number(n)?;
                if qpn > 0x00ff_ffff {
                    return Err(format!("QP {qpn:#x} is wider than 24 bits"));
                }
                DecodeTarget::Qp(qpn as u32)
            }
            Some(("port", n)) => DecodeTarget::Port(
                u16::try_from(number(n)?).map_err(|_| format!("`{n}` is not a port"))?,
            ),
            _ => return Err(format!("`{target}`: expected qp=N or port=N")),
        };
        Ok(DecodeAs { target, proto })
    }
}

/// How a queue came to be known as carrying its protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecognisedBy {
    Cm,
    Traffic,
    Option,
}

impl RecognisedBy {
    pub fn name(self) -> &'static str {
        match self {
            RecognisedBy::Cm => "cm",
            RecognisedBy::Traffic => "traffic",
            RecognisedBy::Option => "option",
        }
    }
}

/// The queue a frame belongs to: its number in capture order (the order queues became
/// known), the NVMe queue ID when the CM REQ or the Connect command said it, and how it
/// was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueRef {
    pub index: u32,
    pub qid: Option<u16>,
    pub recognised_by: RecognisedBy,
}

/// The upper-layer message a frame carries.
#[derive(Debug, Clone, Copy)]
pub enum Ulp<'a> {
    Nvme(Nvme<'a>),
    Rpc(RpcFrame<'a>),
    Iser(IserFrame<'a>),
    Smbd(SmbdFrame<'a>),
}

/// One NVMe-oF frame.
#[derive(Debug, Clone, Copy)]
pub struct Nvme<'a> {
    pub queue: QueueRef,
    pub msg: NvmeMsg<'a>,
}

/// Which RDMA operation moves a command's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transfer {
    /// The controller reads the host's buffer: host-to-controller data (Write, Connect).
    ReadRequest,
    /// The host's answer to an RDMA READ request: the data itself, found by the request's
    /// PSN range.
    ReadResponse,
    /// The controller writes the host's buffer: controller-to-host data (Read, Identify).
    Write,
}

impl Transfer {
    pub fn key(self) -> &'static str {
        match self {
            Transfer::ReadRequest => "rdma_read_request",
            Transfer::ReadResponse => "rdma_read_response",
            Transfer::Write => "rdma_write",
        }
    }
}

/// What an NVMe-oF frame is.
#[derive(Debug, Clone, Copy)]
pub enum NvmeMsg<'a> {
    /// A command capsule: the SQE, and how many bytes of in-capsule data follow it.
    Command {
        sqe: Sqe<'a>,
        in_capsule: u32,
    },
    /// A response capsule, and the command it completes when that was captured.
    Response {
        cqe: Cqe<'a>,
        command: Option<CommandLink>,
    },
    /// An RDMA READ request, READ response or WRITE moving a command's data.
    Data {
        transfer: Transfer,
        command: CommandLink,
    },
    /// The NVMe-oF private data of a CM message.
    CmReq(ReqPrivate<'a>),
    CmRep(RepPrivate<'a>),
    CmRej(RejPrivate<'a>),
}

/// The command a response or data transfer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandLink {
    /// The command capsule's frame.
    pub frame: u64,
    /// From the command capsule to this frame; responses only, when both have a time.
    pub latency_ns: Option<u64>,
    pub cid: u16,
    pub opcode: u8,
    pub fctype: Option<u8>,
    pub name: &'static str,
    /// The property, or the Identify CNS, that tshark adds to the name.
    pub detail: Option<&'static str>,
    /// Bytes the command's SGL names (or in-capsule data).
    pub data_len: u32,
}

impl<'a> NvmeMsg<'a> {
    pub fn kind(&self) -> &'static str {
        match self {
            NvmeMsg::Command { .. } => "command",
            NvmeMsg::Response { .. } => "response",
            NvmeMsg::Data { transfer, .. } => transfer.key(),
            NvmeMsg::CmReq(_) => "cm_req",
            NvmeMsg::CmRep(_) => "cm_rep",
            NvmeMsg::CmRej(_) => "cm_rej",
        }
    }
}

/// A command's name, in the queue it was sent on.
pub fn command_name(sqe: &Sqe<'_>, qid: Option<u16>) -> &'static str {
    names::command_name(sqe.opcode(), sqe.fctype(), qid)
}

/// What tshark adds after a command's name: the property of a Property Get or Set, the
/// CNS of an Identify.
pub fn command_detail(sqe: &Sqe<'_>, qid: Option<u16>) -> Option<&'static str> {
    match sqe.fctype() {
        Some(fctype::PROPERTY_GET | fctype::PROPERTY_SET) => {
            Some(names::property_name(sqe.property_offset()))
        }
        Some(_) => None,
        None if qid == Some(0) || qid.is_none() => match sqe.opcode() {
            0x06 => names::identify_cns_name(sqe.cdws()[0] as u8),
            _ => None,
        },
        None => None,
    }
}

/// One end of an RC connection: its address at the most specific layer, and its QPN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Endpoint {
    addr: (u128, u8),
    qpn: u32,
}

impl Endpoint {
    fn new(addr: Option<Address>, qpn: u32) -> Option<Self> {
        Some(Endpoint {
            addr: addr?.packed(),
            qpn: qpn & 0x00ff_ffff,
        })
    }
}

/// Which side of an NVMe-oF queue a QP is: the host receives responses and the
/// controller's RDMA READs and WRITEs, the controller receives commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Host,
    Controller,
}

#[derive(Debug, Clone, Copy)]
struct Side {
    queue: u32,
    role: Role,
}

#[derive(Debug, Clone, Copy)]
struct Queue {
    qid: Option<u16>,
    recognised_by: RecognisedBy,
}

/// A command waiting for its response.
#[derive(Debug, Clone, Copy)]
struct Outstanding {
    link: CommandLink,
    ts_ns: Option<u64>,
    key: Option<u32>,
}

/// A command capsule on a queue not known yet, kept until a response makes the queue known.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    host: (u128, u8),
    controller: Endpoint,
    outstanding: Outstanding,
}

/// CM REQs for NVMe-oF waiting for their REP, by the REQ's communication ID.
#[derive(Debug, Clone, Copy)]
struct PendingReq {
    comm_id: u32,
    queue: u32,
}

/// An RDMA READ request awaiting its responses: its first PSN, how many PSNs its responses
/// may take (one per 256 bytes, the smallest path MTU), and its command.
#[derive(Debug, Clone, Copy)]
struct PendingRead {
    queue: u32,
    psn: u32,
    span: u32,
    link: CommandLink,
}

/// Command capsules remembered while guessing from traffic, CM REQs awaiting their REP, and
/// READs awaiting their responses: a small ring each, oldest forgotten first.
const CANDIDATES: usize = 64;
const PENDING_REQS: usize = 64;
const PENDING_READS: usize = 64;

/// What decoding upper-layer protocols learns from earlier frames: the queues known and
/// their ends, the commands awaiting a response, and the guesses not yet confirmed.
#[derive(Debug, Clone, Default)]
pub struct UlpState {
    ends: HashMap<Endpoint, Side>,
    queues: Vec<Queue>,
    outstanding: HashMap<(u32, u16), Outstanding>,
    candidates: Vec<Candidate>,
    pending_reqs: Vec<PendingReq>,
    /// RPC-over-RDMA, iSER and SMB Direct connections.
    sessions: session::Sessions,
    reads: Vec<PendingRead>,
}

impl UlpState {
    fn new_queue(&mut self, qid: Option<u16>, recognised_by: RecognisedBy) -> u32 {
        self.queues.push(Queue { qid, recognised_by });
        (self.queues.len() - 1) as u32
    }

    fn queue_ref(&self, index: u32) -> QueueRef {
        let queue = self.queues[index as usize];
        QueueRef {
            index,
            qid: queue.qid,
            recognised_by: queue.recognised_by,
        }
    }

    /// How many queues are known.
    pub fn queue_count(&self) -> usize {
        self.queues.len()
    }

    /// How many RPC-over-RDMA connections are known.
    pub fn session_count(&self) -> usize {
        self.sessions.session_count()
    }
}

fn ring_push<T>(ring: &mut Vec<T>, cap: usize, item: T) {
    if ring.len() == cap {
        ring.remove(0);
    }
    ring.push(item);
}

/// Decodes the upper-layer message of `pkt`, if any, from what `state` knows, and learns
/// from it; returns whether `state` changed.
#[inline]
pub fn decode(pkt: &mut Packet<'_>, state: &mut UlpState, forced: &[DecodeAs]) -> bool {
    if pkt.mad.is_some() {
        return from_cm(pkt, state, forced);
    }
    let Some(bth) = pkt.bth else {
        return false;
    };
    let op = bth.opcode();
    let carries_ulp = is_send(op)
        || matches!(
            op,
            opcode::RDMA_READ_REQUEST_OP | RC_READ_RESPONSE_FIRST
                ..=RC_READ_RESPONSE_ONLY
                    | RC_WRITE_FIRST
                    | RC_WRITE_ONLY
                    | RC_WRITE_ONLY_WITH_IMMEDIATE
        );
    if !carries_ulp
        || state.ends.is_empty()
            && state.sessions.is_empty()
            && forced.is_empty()
            && !could_make_a_queue_known(pkt, state, is_send(op))
    {
        return false;
    }
    from_rc(pkt, state, forced)
}

const RC_SEND_FIRST: u8 = 0x00;
const RC_SEND_ONLY_WITH_INVALIDATE: u8 = 0x17;
const RC_WRITE_FIRST: u8 = 0x06;
const RC_WRITE_ONLY: u8 = 0x0a;
const RC_WRITE_ONLY_WITH_IMMEDIATE: u8 = 0x0b;
const RC_READ_RESPONSE_FIRST: u8 = 0x0d;
const RC_READ_RESPONSE_LAST: u8 = 0x0f;
const RC_READ_RESPONSE_ONLY: u8 = 0x10;

fn is_send(op: u8) -> bool {
    matches!(
        op,
        opcode::RC_SEND_ONLY
            | opcode::RC_SEND_ONLY_WITH_IMMEDIATE
            | RC_SEND_FIRST
            | RC_SEND_ONLY_WITH_INVALIDATE
    )
}

/// The NVMe-oF private data of a REQ for port 4420 (or a port `--decode` names), and of
/// the REP or REJ that answers it.
fn from_cm(pkt: &mut Packet<'_>, state: &mut UlpState, forced: &[DecodeAs]) -> bool {
    let Some(cm) = pkt.mad.and_then(|mad| mad.cm()) else {
        return false;
    };
    let (Some(private), Some(comm_id)) = (cm.private_data(), cm.local_comm_id()) else {
        return false;
    };
    let at = cm.private_data_offset();
    match cm.msg() {
        CmMsg::Req => {
            let nvme_port = |port: u16| {
                port == NVME_RDMA_PORT
                    || forced.iter().any(|d| {
                        d.proto == UlpProto::NvmeRdma && d.target == DecodeTarget::Port(port)
                    })
            };
            let Some((_, port)) = cm.service_id().and_then(ip_service) else {
                return false;
            };
            if !nvme_port(port) {
                return session::cm_req(pkt, state, forced, &cm, port, comm_id);
            }
            let by = if port == NVME_RDMA_PORT {
                RecognisedBy::Cm
            } else {
                RecognisedBy::Option
            };
            let Some(req) = private
                .get(REQ_OFFSET..)
                .and_then(|b| ReqPrivate::new_checked(b, at + REQ_OFFSET).ok())
            else {
                return false;
            };
            let (Some(host), Some(_)) = (
                Endpoint::new(pkt.src_addr(), cm.local_qpn().unwrap_or(0)),
                cm.local_qpn(),
            ) else {
                return false;
            };
            let queue = state.new_queue(Some(req.qid()), by);
            state.ends.insert(
                host,
                Side {
                    queue,
                    role: Role::Host,
                },
            );
            ring_push(
                &mut state.pending_reqs,
                PENDING_REQS,
                PendingReq { comm_id, queue },
            );
            pkt.ulp = Some(Ulp::Nvme(Nvme {
                queue: state.queue_ref(queue),
                msg: NvmeMsg::CmReq(req),
            }));
            true
        }
        CmMsg::Rep | CmMsg::Rej => {
            let Some(remote) = cm.remote_comm_id() else {
                return false;
            };
            let Some(pending) = state.pending_reqs.iter().find(|p| p.comm_id == remote) else {
                return cm.msg() == CmMsg::Rep && session::cm_rep(pkt, state, &cm, remote);
            };
            let queue = pending.queue;
            let msg = if cm.msg() == CmMsg::Rep {
                let Ok(rep) = RepPrivate::new_checked(private, at) else {
                    return false;
                };
                if let Some(controller) = cm
                    .local_qpn()
                    .and_then(|q| Endpoint::new(pkt.src_addr(), q))
                {
                    state.ends.insert(
                        controller,
                        Side {
                            queue,
                            role: Role::Controller,
                        },
                    );
                }
                NvmeMsg::CmRep(rep)
            } else {
                let Ok(rej) = RejPrivate::new_checked(private, at) else {
                    return false;
                };
                NvmeMsg::CmRej(rej)
            };
            pkt.ulp = Some(Ulp::Nvme(Nvme {
                queue: state.queue_ref(queue),
                msg,
            }));
            true
        }
        _ => false,
    }
}

/// A command capsule as traffic alone would accept it: an SGL data pointer (PSDT 1), no
/// fused operation, an SGL1 type NVMe-oF allows, and an opcode with a name.
fn plausible_command(sqe: &Sqe<'_>) -> bool {
    sqe.psdt() == 1
        && sqe.fuse() == 0
        && sqe.sgl().is_valid_for_fabrics()
        && !command_name(sqe, None).starts_with("Unknown")
}

fn from_rc(pkt: &mut Packet<'_>, state: &mut UlpState, forced: &[DecodeAs]) -> bool {
    let Some(bth) = pkt.bth else { return false };
    let op = bth.opcode();
    let send = is_send(op);
    let Some(to) = Endpoint::new(pkt.dst_addr(), bth.dest_qp()) else {
        return false;
    };
    let side = match state.ends.get(&to) {
        Some(side) => *side,
        None if send => {
            if let Some(session) = session::session_of(state, &to) {
                return session::on_send(pkt, state, session);
            }
            if let Some(changed) = session::learn(pkt, state, forced, to) {
                return changed;
            }
            match learn_queue(pkt, state, forced, to, send) {
                Learnt::Side(side) => side,
                Learnt::Changed => return true,
                Learnt::Nothing => return false,
            }
        }
        None => match learn_queue(pkt, state, forced, to, send) {
            Learnt::Side(side) => side,
            Learnt::Changed => return true,
            Learnt::Nothing => return false,
        },
    };
    match (side.role, send) {
        (Role::Controller, true) => command(pkt, state, side.queue),
        (Role::Host, true) => response(pkt, state, side.queue),
        (Role::Host, false) => data(pkt, state, side.queue, op),
        (Role::Controller, false) => read_response(pkt, state, side.queue, op),
    }
}

/// Before any queue is known, only a SEND the size of a command capsule, or of a response
/// capsule while commands wait for one, can teach anything: the test every RC frame of a
/// capture without NVMe-oF pays, so it stays a few compares.
#[inline]
fn could_make_a_queue_known(pkt: &Packet<'_>, state: &UlpState, send: bool) -> bool {
    send && (match pkt.payload_len.map(|len| len as usize) {
        Some(SQE_LEN) => true,
        Some(CQE_LEN) => !state.candidates.is_empty(),
        _ => false,
    } || session::could_start(pkt))
}

enum Learnt {
    Side(Side),
    Changed,
    Nothing,
}

/// A SEND to a QP no queue knows: a QP `--decode` names, or traffic that makes a queue known.
fn learn_queue(
    pkt: &mut Packet<'_>,
    state: &mut UlpState,
    forced: &[DecodeAs],
    to: Endpoint,
    send: bool,
) -> Learnt {
    if !send {
        return Learnt::Nothing;
    }
    let forced_here = forced
        .iter()
        .any(|d| d.proto == UlpProto::NvmeRdma && d.target == DecodeTarget::Qp(to.qpn));
    let payload = pkt.payload;
    if forced_here {
        // The role follows from what the first SEND carries.
        let role = if payload.len() >= SQE_LEN {
            Role::Controller
        } else if payload.len() == CQE_LEN {
            Role::Host
        } else {
            return Learnt::Nothing;
        };
        let queue = state.new_queue(None, RecognisedBy::Option);
        let side = Side { queue, role };
        state.ends.insert(to, side);
        return Learnt::Side(side);
    }
    let Some(from) = pkt.src_addr() else {
        return Learnt::Nothing;
    };
    match pkt.payload_len {
        Some(len) if len as usize == SQE_LEN => {
            let Ok(sqe) = Sqe::new_checked(payload, 0) else {
                return Learnt::Nothing;
            };
            if !plausible_command(&sqe) {
                return Learnt::Nothing;
            }
            let outstanding = outstanding(pkt, &sqe, None, 0);
            ring_push(
                &mut state.candidates,
                CANDIDATES,
                Candidate {
                    host: from.packed(),
                    controller: to,
                    outstanding,
                },
            );
            Learnt::Changed
        }
        Some(len) if len as usize == CQE_LEN && !state.candidates.is_empty() => {
            let Ok(cqe) = Cqe::new_checked(payload, 0) else {
                return Learnt::Nothing;
            };
            let from = from.packed();
            // The latest command from this host to this controller with the response's CID.
            let Some(at) = state.candidates.iter().rposition(|c| {
                c.host == to.addr
                    && c.controller.addr == from
                    && c.outstanding.link.cid == cqe.cid()
            }) else {
                return Learnt::Nothing;
            };
            let candidate = state.candidates.remove(at);
            // Other guesses about the same controller QP are settled by this one.
            state
                .candidates
                .retain(|c| c.controller != candidate.controller);
            let queue = state.new_queue(None, RecognisedBy::Traffic);
            state.ends.insert(
                to,
                Side {
                    queue,
                    role: Role::Host,
                },
            );
            state.ends.insert(
                candidate.controller,
                Side {
                    queue,
                    role: Role::Controller,
                },
            );
            state.outstanding.insert(
                (queue, candidate.outstanding.link.cid),
                candidate.outstanding,
            );
            Learnt::Side(Side {
                queue,
                role: Role::Host,
            })
        }
        _ => Learnt::Nothing,
    }
}

fn outstanding(pkt: &Packet<'_>, sqe: &Sqe<'_>, qid: Option<u16>, in_capsule: u32) -> Outstanding {
    let sgl = sqe.sgl();
    Outstanding {
        link: CommandLink {
            frame: pkt.frame,
            latency_ns: None,
            cid: sqe.cid(),
            opcode: sqe.opcode(),
            fctype: sqe.fctype(),
            name: command_name(sqe, qid),
            detail: command_detail(sqe, qid),
            data_len: if sgl.is_keyed() {
                sgl.length()
            } else {
                in_capsule
            },
        },
        ts_ns: pkt.ts_ns,
        key: sgl.key(),
    }
}

fn command(pkt: &mut Packet<'_>, state: &mut UlpState, queue: u32) -> bool {
    let Ok(sqe) = Sqe::new_checked(pkt.payload, 0) else {
        return false;
    };
    if sqe.fctype() == Some(fctype::CONNECT) {
        let known = &mut state.queues[queue as usize].qid;
        known.get_or_insert(sqe.connect_qid());
    }
    let queue_ref = state.queue_ref(queue);
    let in_capsule = pkt
        .payload_len
        .map_or(0, |len| len.saturating_sub(SQE_LEN as u32));
    let pending = outstanding(pkt, &sqe, queue_ref.qid, in_capsule);
    state.outstanding.insert((queue, sqe.cid()), pending);
    pkt.ulp = Some(Ulp::Nvme(Nvme {
        queue: queue_ref,
        msg: NvmeMsg::Command { sqe, in_capsule },
    }));
    true
}

fn response(pkt: &mut Packet<'_>, state: &mut UlpState, queue: u32) -> bool {
    let Ok(cqe) = Cqe::new_checked(pkt.payload, 0) else {
        return false;
    };
    let command = state.outstanding.remove(&(queue, cqe.cid())).map(|o| {
        let latency_ns = o.ts_ns.zip(pkt.ts_ns).map(|(a, b)| b.saturating_sub(a));
        CommandLink {
            latency_ns,
            ..o.link
        }
    });
    pkt.ulp = Some(Ulp::Nvme(Nvme {
        queue: state.queue_ref(queue),
        msg: NvmeMsg::Response { cqe, command },
    }));
    true
}

/// An RDMA READ request or the first WRITE packet to the host: its RETH's R_Key is the key
/// of the command's SGL.
fn data(pkt: &mut Packet<'_>, state: &mut UlpState, queue: u32, op: u8) -> bool {
    let Some(rkey) = pkt.reth.map(|r| r.rkey()) else {
        return false;
    };
    let Some(found) = state
        .outstanding
        .iter()
        .find(|((q, _), o)| *q == queue && o.key == Some(rkey))
        .map(|(_, o)| o.link)
    else {
        return false;
    };
    let read = op == opcode::RDMA_READ_REQUEST_OP;
    let transfer = if read {
        Transfer::ReadRequest
    } else {
        Transfer::Write
    };
    pkt.ulp = Some(Ulp::Nvme(Nvme {
        queue: state.queue_ref(queue),
        msg: NvmeMsg::Data {
            transfer,
            command: found,
        },
    }));
    let (Some(bth), Some(reth), true) = (pkt.bth, pkt.reth, read) else {
        return false;
    };
    // A READ sent again replaces the one it repeats.
    let psn = bth.psn();
    state.reads.retain(|r| r.queue != queue || r.psn != psn);
    ring_push(
        &mut state.reads,
        PENDING_READS,
        PendingRead {
            queue,
            psn,
            span: reth.dma_len().div_ceil(256).max(1),
            link: found,
        },
    );
    true
}

/// A READ response to the controller: the data of the READ whose PSN range holds its PSN
/// (IBA 9.7.5.1.6: a READ's responses take consecutive PSNs from the request's). The last
/// response ends the READ.
fn read_response(pkt: &mut Packet<'_>, state: &mut UlpState, queue: u32, op: u8) -> bool {
    let Some(bth) = pkt.bth else { return false };
    let psn = bth.psn();
    let Some(at) = state
        .reads
        .iter()
        .rposition(|r| r.queue == queue && psn.wrapping_sub(r.psn) & 0x00ff_ffff < r.span)
    else {
        return false;
    };
    let command = state.reads[at].link;
    pkt.ulp = Some(Ulp::Nvme(Nvme {
        queue: state.queue_ref(queue),
        msg: NvmeMsg::Data {
            transfer: Transfer::ReadResponse,
            command,
        },
    }));
    if matches!(op, RC_READ_RESPONSE_LAST | RC_READ_RESPONSE_ONLY) {
        state.reads.remove(at);
        return true;
    }
    false
}

/// An SGL descriptor type's name (NVMe base 2.0 figure 118).
pub fn sgl_type_name(desc_type: u8) -> &'static str {
    match desc_type {
        sgl::kind::DATA_BLOCK => "data block",
        sgl::kind::BIT_BUCKET => "bit bucket",
        sgl::kind::SEGMENT => "segment",
        sgl::kind::LAST_SEGMENT => "last segment",
        sgl::kind::KEYED_DATA_BLOCK => "keyed data block",
        sgl::kind::TRANSPORT_DATA_BLOCK => "transport data block",
        _ => "reserved",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_as_parses_wiresharks_forms() {
        assert_eq!(
            "qp=0x8d:nvme-rdma".parse::<DecodeAs>(),
            Ok(DecodeAs {
                target: DecodeTarget::Qp(0x8d),
                proto: UlpProto::NvmeRdma
            })
        );
        assert_eq!(
            "port=4420:nvme-rdma".parse::<DecodeAs>().map(|d| d.target),
            Ok(DecodeTarget::Port(4420))
        );
        assert!("qp=0x1000000:nvme-rdma".parse::<DecodeAs>().is_err());
        assert!("qp=1:smb2".parse::<DecodeAs>().is_err());
        assert_eq!(
            "port=20049:rpcordma".parse::<DecodeAs>().map(|d| d.proto),
            Ok(UlpProto::RpcRdma)
        );
        assert_eq!(
            "qp=0x555:iser".parse::<DecodeAs>().map(|d| d.proto),
            Ok(UlpProto::Iser)
        );
        assert_eq!(
            "port=5445:smb_direct".parse::<DecodeAs>().map(|d| d.proto),
            Ok(UlpProto::Smbd)
        );
    }
}
