//! The Base Transport Header and the extended headers after it (RDETH, DETH, XRCETH, FETH,
//! RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH), with Wireshark's names whose values
//! differ from rdmadump's.

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, either, int};
use crate::dissect::Packet;
use crate::wire::aeth::{self, Syndrome};
use crate::wire::opcode;

/// The Base Transport Header, the extended headers after it and the payload they leave.
pub(super) const TRANSPORT: &[Field] = &[
    int!("bth.opcode", "BTH opcode (0x81: CNP)", |p| p
        .bth
        .map(|b| b.opcode()))
    .wireshark("infiniband.bth.opcode"),
    string!(
        "bth.opcode_name",
        "BTH opcode name, e.g. RC_SEND_ONLY, CNP",
        |p| p.bth.map(|b| opcode::info(b.opcode()).name)
    ),
    boolean!("bth.se", "BTH solicited event", |p| p
        .bth
        .map(|b| b.solicited_event()))
    .wireshark("infiniband.bth.se"),
    boolean!("bth.migreq", "BTH migration request", |p| p
        .bth
        .map(|b| b.migreq()))
    .wireshark("infiniband.bth.m"),
    int!("bth.pad", "BTH pad count", |p| p.bth.map(|b| b.pad_count()))
        .wireshark("infiniband.bth.padcnt"),
    int!("bth.tver", "BTH transport header version", |p| p
        .bth
        .map(|b| b.tver()))
    .wireshark("infiniband.bth.tver"),
    int!("bth.pkey", "BTH partition key", |p| p.bth.map(|b| b.pkey()))
        .wireshark("infiniband.bth.p_key"),
    boolean!(
        "bth.fecn",
        "BTH forward explicit congestion notification",
        |p| p.bth.map(|b| b.fecn())
    ),
    boolean!(
        "bth.becn",
        "BTH backward explicit congestion notification",
        |p| p.bth.map(|b| b.becn())
    ),
    int!("bth.dest_qp", "BTH destination QP", |p| p
        .bth
        .map(|b| b.dest_qp()))
    .wireshark("infiniband.bth.destqp"),
    boolean!("bth.ack_req", "BTH acknowledge request", |p| p
        .bth
        .map(|b| b.ack_req()))
    .wireshark("infiniband.bth.a"),
    int!("bth.psn", "BTH packet sequence number", |p| p
        .bth
        .map(|b| b.psn()))
    .wireshark("infiniband.bth.psn"),
    each!(
        "qp",
        Type::Int,
        "either QP: the BTH destination QP, or the DETH source QP",
        |p, i| either(
            i,
            || p.bth.map(|b| b.dest_qp()),
            || p.deth.map(|d| d.src_qp())
        ),
        int
    )
    .parquet(Parquet::NoColumn),
    int!("rdeth.eecnxt", "RDETH end-to-end context", |p| p
        .rdeth
        .map(|h| h.eecnxt()))
    .wireshark("infiniband.rdeth.eecnxt"),
    int!("deth.qkey", "DETH queue key", |p| p.deth.map(|h| h.qkey()))
        .wireshark("infiniband.deth.q_key"),
    int!("deth.src_qp", "DETH source QP", |p| p
        .deth
        .map(|h| h.src_qp()))
    .wireshark("infiniband.deth.srcqp"),
    int!("xrceth.xrcsrq", "XRCETH XRC shared receive queue", |p| p
        .xrceth
        .map(|h| h.xrcsrq())),
    int!("feth", "FLUSH extended header word", |p| p.feth),
    int!("reth.va", "RETH virtual address", |p| p
        .reth
        .map(|h| h.va()))
    .parquet(Parquet::FullWidth),
    int!("reth.rkey", "RETH remote key", |p| p.reth.map(|h| h.rkey())),
    int!("reth.dma_len", "RETH DMA length", |p| p
        .reth
        .map(|h| h.dma_len()))
    .wireshark("infiniband.reth.dmalen"),
    int!("atomic_eth.va", "AtomicETH virtual address", |p| p
        .atomic_eth
        .map(|h| h.va()))
    .parquet(Parquet::FullWidth),
    int!("atomic_eth.rkey", "AtomicETH remote key", |p| p
        .atomic_eth
        .map(|h| h.rkey())),
    int!("atomic_eth.swap", "AtomicETH swap (or add) data", |p| p
        .atomic_eth
        .map(|h| h.swap()))
    .wireshark("infiniband.atomiceth.swapdt")
    .parquet(Parquet::FullWidth),
    int!("atomic_eth.compare", "AtomicETH compare data", |p| p
        .atomic_eth
        .map(|h| h.compare()))
    .wireshark("infiniband.atomiceth.cmpdt")
    .parquet(Parquet::FullWidth),
    int!("aeth.syndrome", "AETH syndrome byte", |p| p
        .aeth
        .map(|h| h.syndrome()))
    .wireshark("infiniband.aeth.syndrome"),
    string!(
        "aeth.kind",
        "AETH class: ack, rnr_nak, nak, reserved",
        |p| p.aeth.map(|h| h.decode().kind_name())
    ),
    int!(
        "aeth.code",
        "AETH low five bits: credit count, RNR timer or NAK code",
        |p| p.aeth.map(|h| h.code())
    ),
    int!("aeth.msn", "AETH message sequence number", |p| p
        .aeth
        .map(|h| h.msn()))
    .wireshark("infiniband.aeth.msn"),
    int!(
        "aeth.credits",
        "receive credits an ACK's credit code stands for",
        |p| p.aeth.and_then(|h| match h.decode() {
            Syndrome::Ack { credit_code } => aeth::credits(credit_code),
            _ => None,
        })
    ),
    int!(
        "aeth.rnr_timer_us",
        "RNR NAK back-off in microseconds",
        |p| p.aeth.and_then(|h| {
            match h.decode() {
                Syndrome::RnrNak { timer } => Some(aeth::rnr_timer_us(timer)),
                _ => None,
            }
        })
    ),
    string!("aeth.nak", "NAK code name, e.g. psn_sequence_error", |p| p
        .aeth
        .and_then(|h| match h.decode() {
            Syndrome::Nak(code) => Some(code.name()),
            _ => None,
        })),
    int!(
        "atomic_ack_eth.orig",
        "AtomicAckETH original remote data",
        |p| p.atomic_ack_eth.map(|h| h.orig())
    )
    .wireshark("infiniband.atomicacketh.origremdt")
    .parquet(Parquet::FullWidth),
    int!(
        "immdt",
        "immediate data, the big-endian word on the wire",
        |p| p.immdt.map(|h| h.value())
    )
    .wireshark("infiniband.immdt")
    .as_bytes(4),
    int!("ieth", "IETH: the R_Key to invalidate", |p| p
        .ieth
        .map(|h| h.rkey()))
    .wireshark("infiniband.ieth"),
    int!(
        "payload_len",
        "payload bytes after the transport headers, pad and ICRC excluded",
        |p| p.payload_len
    ),
];

pub(super) const PRESENT: &[Field] = &[
    header!("bth", "has a BTH", |p| p.bth.is_some()).wireshark("infiniband.bth"),
    header!("rdeth", "has an RDETH", |p| p.rdeth.is_some()).wireshark("infiniband.rdeth"),
    header!("deth", "has a DETH", |p| p.deth.is_some()).wireshark("infiniband.deth"),
    header!("xrceth", "has an XRCETH", |p| p.xrceth.is_some()),
    header!("reth", "has a RETH", |p| p.reth.is_some()).wireshark("infiniband.reth"),
    header!("atomic_eth", "has an AtomicETH", |p| p.atomic_eth.is_some())
        .wireshark("infiniband.atomiceth"),
    header!("aeth", "has an AETH", |p| p.aeth.is_some()).wireshark("infiniband.aeth"),
    header!("atomic_ack_eth", "has an AtomicAckETH", |p| p
        .atomic_ack_eth
        .is_some())
    .wireshark("infiniband.atomicacketh"),
];

/// Wireshark's names whose values differ from every rdmadump field: the AtomicETH under the
/// RETH's names, and the AETH syndrome split by class.
pub(super) const WIRESHARK: &[Field] = &[
    // Wireshark's AtomicETH shares the RETH's names for its address and key.
    int!(
        "infiniband.reth.va",
        "virtual address of the RETH, or of the AtomicETH",
        |p| p
            .reth
            .map(|h| h.va())
            .or_else(|| p.atomic_eth.map(|h| h.va()))
    )
    .wireshark_only(),
    int!(
        "infiniband.reth.r_key",
        "remote key of the RETH, or of the AtomicETH",
        |p| p
            .reth
            .map(|h| h.rkey())
            .or_else(|| p.atomic_eth.map(|h| h.rkey()))
    )
    .wireshark_only(),
    int!(
        "infiniband.aeth.syndrome.opcode",
        "AETH syndrome class bits (0 ACK, 1 RNR NAK, 3 NAK)",
        |p| p.aeth.map(|a| (a.syndrome() >> 5) & 3)
    )
    .wireshark_only(),
    int!(
        "infiniband.aeth.syndrome.credit_count",
        "AETH credit count code of an ACK",
        |p| syndrome_field(p, 0)
    )
    .wireshark_only(),
    int!(
        "infiniband.aeth.syndrome.timer",
        "AETH timer code of an RNR NAK",
        |p| syndrome_field(p, 1)
    )
    .wireshark_only(),
    int!(
        "infiniband.aeth.syndrome.reserved_value",
        "AETH low bits of a reserved syndrome",
        |p| syndrome_field(p, 2)
    )
    .wireshark_only(),
    int!(
        "infiniband.aeth.syndrome.error_code",
        "AETH NAK code",
        |p| syndrome_field(p, 3)
    )
    .wireshark_only(),
];

fn syndrome_field(p: &Packet<'_>, class: u8) -> Option<u8> {
    p.aeth
        .filter(|a| (a.syndrome() >> 5) & 3 == class)
        .map(|a| a.code())
}
