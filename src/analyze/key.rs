//! What flows and connections both name: where a frame sits ([`FrameRef`]), which flow a
//! packet belongs to ([`FlowKey`]), the path MTUs and how one was learned, and what a
//! request did to its sequence ([`Verdict`], [`SeqDetail`]). The flow table and the
//! connection table both import these, and neither imports the other's.

use crate::dissect::{Address, Packet};
use crate::wire::opcode::{self, Role};

/// Where a frame sits: input file and frame number within it, plus its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameRef {
    pub file: u16,
    pub frame: u64,
    pub ts_ns: Option<u64>,
}

impl FrameRef {
    /// Packet `pkt` of input `file`, at the time its record gives.
    pub fn of(file: usize, pkt: &Packet<'_>) -> Self {
        FrameRef {
            file: u16::try_from(file).unwrap_or(u16::MAX),
            frame: pkt.frame,
            ts_ns: pkt.ts_ns,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: Address,
    pub dst: Address,
    pub dest_qp: u32,
    pub role: Role,
}

/// One word for the hasher, as for connection ends: hashing the fields one by one was a
/// fifth of a packet's flow bookkeeping.
impl std::hash::Hash for FlowKey {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let (src, s) = self.src.packed();
        let (dst, d) = self.dst.packed();
        let rest = u128::from(self.dest_qp) << 96 | u128::from(self.role as u8) << 88;
        state.write_u128(src ^ dst.rotate_left(47) ^ rest ^ u128::from(s << 4 | d) << 120);
    }
}

impl FlowKey {
    /// The flow a packet belongs to: every packet with a BTH and addresses has one. Its
    /// addresses are hosts: an IPv4-mapped GID is the IPv4 address ([`super::hosts`]).
    pub fn of(pkt: &Packet<'_>) -> Option<FlowKey> {
        let bth = pkt.bth?;
        Some(FlowKey {
            src: super::hosts::host(pkt.src_addr()?),
            dst: super::hosts::host(pkt.dst_addr()?),
            dest_qp: bth.dest_qp(),
            role: opcode::info(bth.opcode()).role,
        })
    }
}

/// The path MTUs IBA defines; no other exists.
pub const LEGAL_PMTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];
const MAX_PMTU: u32 = 4096;

pub fn is_legal_pmtu(bytes: u32) -> bool {
    LEGAL_PMTUS.contains(&bytes)
}

/// The smallest legal PMTU that can carry `payload` bytes in one packet.
pub fn legal_pmtu_at_least(payload: u32) -> u32 {
    LEGAL_PMTUS
        .into_iter()
        .find(|&m| m >= payload)
        .unwrap_or(MAX_PMTU)
}

/// How a path MTU was learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PmtuSource {
    /// `--pmtu`.
    Given,
    /// The CM REQ's path MTU field.
    Cm,
    /// From the payload of a FIRST or MIDDLE packet, which is exactly one PMTU.
    Observed,
    /// From the largest payload seen, rounded up to the next legal PMTU: a lower bound only.
    Inferred,
}

impl PmtuSource {
    pub fn name(self) -> &'static str {
        match self {
            PmtuSource::Given => "given",
            PmtuSource::Cm => "cm",
            PmtuSource::Observed => "observed",
            PmtuSource::Inferred => "inferred",
        }
    }

    /// What CM or the user said stands; what packets show only fills in.
    pub fn is_settled(self) -> bool {
        matches!(self, PmtuSource::Cm | PmtuSource::Given)
    }
}

/// An RDMA transport, numbered as the top three bits of a BTH opcode number it.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Transport {
    Rc = 0,
    Uc = 1,
    Rd = 2,
    Ud = 3,
    Xrc = 5,
}

impl Transport {
    /// The transport an opcode belongs to; `None` for CNPs and the reserved transports.
    pub fn of_opcode(opcode: u8) -> Option<Transport> {
        match opcode >> 5 {
            0 => Some(Transport::Rc),
            1 => Some(Transport::Uc),
            2 => Some(Transport::Rd),
            3 => Some(Transport::Ud),
            5 => Some(Transport::Xrc),
            _ => None,
        }
    }

    /// The connection a CM REQ's transport service type sets up: 0 RC, 1 UC, 3 XRC.
    pub fn of_cm(service_type: u8) -> Option<Transport> {
        match service_type {
            0 => Some(Transport::Rc),
            1 => Some(Transport::Uc),
            3 => Some(Transport::Xrc),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Transport::Rc => "rc",
            Transport::Uc => "uc",
            Transport::Rd => "rd",
            Transport::Ud => "ud",
            Transport::Xrc => "xrc",
        }
    }
}

/// What the last request that was not simply new did to its direction's sequence: what
/// the flow table reports, so that flows and connections tell one story. Kept aside rather
/// than returned, as nearly every request is new and needs none of it.
#[derive(Debug, Clone, Copy, Default)]
pub struct SeqDetail {
    /// The highest PSN the request could have had without skipping any, and how many it
    /// skipped.
    pub expected: u32,
    pub missing: u64,
    /// The request before this one: where a go-back jumped from.
    pub previous: u32,
    pub previous_at: FrameRef,
    /// The NAK a go-back answers, when it was captured.
    pub nak: Option<FrameRef>,
    /// The retransmission episode this request starts; `None` when it continues one (the
    /// rest of a go-back) or is not a retransmission.
    pub episode: Option<Episode>,
}

/// Why a request was sent again, as far as the capture shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cause {
    /// After a NAK: the responder saw a PSN missing and asked for it.
    Nak,
    /// After an RNR NAK: the responder had no receive buffer, and asked for a pause.
    Rnr,
    /// No NAK seen, after a silence long enough for the sender's ACK timer to expire.
    Timeout,
    /// No NAK seen and no such silence: the cause went where the capture does not see,
    /// such as a NAK on another path.
    #[default]
    Implied,
}

impl Cause {
    pub const ALL: [Cause; 4] = [Cause::Nak, Cause::Rnr, Cause::Timeout, Cause::Implied];

    pub fn name(self) -> &'static str {
        match self {
            Cause::Nak => "nak",
            Cause::Rnr => "rnr",
            Cause::Timeout => "timeout",
            Cause::Implied => "implied",
        }
    }
}

/// One retransmission episode (a go-back, or a single retransmission): its cause, how long
/// the sender waited, and for an RNR NAK the timer code it asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Episode {
    pub cause: Cause,
    /// From the NAK, or else from the last transmission of the PSN sent again.
    pub waited_ns: Option<u64>,
    pub rnr_timer: Option<u8>,
}

/// What one request packet turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    New,
    Gap,
    Retransmitted,
    GoBackN,
    GoBack0,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_legal_pmtus_exist() {
        assert!(is_legal_pmtu(1024) && !is_legal_pmtu(1000) && !is_legal_pmtu(0));
        assert_eq!(legal_pmtu_at_least(18), 256);
        assert_eq!(legal_pmtu_at_least(500), 512);
        assert_eq!(legal_pmtu_at_least(1024), 1024);
        assert_eq!(legal_pmtu_at_least(9000), 4096);
    }
}
