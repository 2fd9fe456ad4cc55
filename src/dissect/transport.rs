//! BTH, the extended headers its opcode calls for, the payload and the ICRC.

use nom::Parser;

use super::bounds::{Bytes, Stop};
use super::parse::{array, header, run};
use super::{IcrcJob, Packet, malformed};
use crate::crc::{CrcCheck, IcrcPrefix};
use crate::wire::aeth::Aeth;
use crate::wire::atomic_ack_eth::AtomicAckEth;
use crate::wire::atomic_eth::AtomicEth;
use crate::wire::bth::Bth;
use crate::wire::deth::Deth;
use crate::wire::ieth::Ieth;
use crate::wire::immdt::ImmDt;
use crate::wire::mad::MAX_MANAGEMENT_QP;
use crate::wire::opcode::{self, ExtSet};
use crate::wire::rdeth::Rdeth;
use crate::wire::reth::Reth;
use crate::wire::xrceth::XrcEth;
use crate::wire::{DecodeError, Layer, Problem};

const ICRC_LEN: usize = 4;
const FETH_LEN: usize = 4;
const CNP_RESERVED_LEN: usize = 16;

/// Decodes the transport packet from the cursor (the BTH) to `packet.end()` (the end of
/// the ICRC).
#[inline]
pub fn decode<'a>(
    pkt: &mut Packet<'a>,
    packet: Bytes<'a>,
    prefix: IcrcPrefix<'a>,
) -> Result<(), Stop> {
    let at = packet.at();
    let end = packet.end();
    if end < at + Bth::LEN + ICRC_LEN {
        // Say whether the BTH itself is missing, or only the room for the ICRC.
        run(header::<Bth>(Layer::Bth), packet)?;
        return Err(malformed(Layer::Bth, at, "no room for BTH and ICRC"));
    }
    let icrc_at = end - ICRC_LEN;
    match packet
        .complete(icrc_at, end)
        .and_then(|b| b.try_into().ok())
    {
        Some(stored) => {
            pkt.icrc_job = Some(IcrcJob {
                prefix,
                covered: packet.captured(at, icrc_at),
                stored,
            })
        }
        None => pkt.icrc = Some(CrcCheck::unverifiable(None)),
    }
    let (rest, bth) = run(header::<Bth>(Layer::Bth), packet)?;
    pkt.bth = Some(bth);

    // Headers and payload end where the ICRC begins.
    let mut body = rest.limit(icrc_at, Layer::Bth, at, "headers run into the ICRC")?;
    let ext = opcode::info(bth.opcode()).ext;
    // The opcode fixes which extended headers follow and in what order; each is recorded
    // as soon as it is parsed, so a packet cut inside a later one still shows the earlier.
    macro_rules! ext_header {
        ($set:expr, $parser:expr, $field:expr) => {
            if ext.has($set) {
                let (rest, parsed) = run($parser, body).map_err(overrun)?;
                $field = Some(parsed);
                body = rest;
            }
        };
    }
    ext_header!(ExtSet::RDETH, header::<Rdeth>(Layer::Rdeth), pkt.rdeth);
    ext_header!(ExtSet::DETH, header::<Deth>(Layer::Deth), pkt.deth);
    ext_header!(ExtSet::XRCETH, header::<XrcEth>(Layer::XrcEth), pkt.xrceth);
    let feth = array::<FETH_LEN>(Layer::Feth).map(|b| u32::from_be_bytes(*b));
    ext_header!(ExtSet::FETH, feth, pkt.feth);
    ext_header!(ExtSet::RETH, header::<Reth>(Layer::Reth), pkt.reth);
    ext_header!(
        ExtSet::ATOMIC_ETH,
        header::<AtomicEth>(Layer::AtomicEth),
        pkt.atomic_eth
    );
    ext_header!(ExtSet::AETH, header::<Aeth>(Layer::Aeth), pkt.aeth);
    ext_header!(
        ExtSet::ATOMIC_ACK_ETH,
        header::<AtomicAckEth>(Layer::AtomicAckEth),
        pkt.atomic_ack_eth
    );
    ext_header!(ExtSet::IMMDT, header::<ImmDt>(Layer::ImmDt), pkt.immdt);
    ext_header!(ExtSet::IETH, header::<Ieth>(Layer::Ieth), pkt.ieth);
    if bth.opcode() == opcode::CNP {
        // The CNP's 16 reserved bytes are part of its format, not payload.
        (body, _) = run(array::<CNP_RESERVED_LEN>(Layer::Cnp), body).map_err(overrun)?;
    }

    let cursor = body.at();
    let pad = bth
        .check_len(at, icrc_at - cursor)
        .map_err(Stop::Malformed)?;
    let payload_end = icrc_at - pad;
    pkt.payload_len = Some((payload_end - cursor) as u32);
    pkt.payload = body.captured(cursor, payload_end);
    // Only management QPs carry MADs; every other packet pays these two compares.
    // The only opcode that carries MADs is UD SEND only.
    if bth.opcode() == opcode::UD_SEND_ONLY && bth.dest_qp() <= MAX_MANAGEMENT_QP {
        // The MAD ends where the pad starts, so its length is the payload's.
        let payload = body.limit(payload_end, Layer::Mad, cursor, "MAD runs into the pad")?;
        super::mad::decode(pkt, payload)?;
    }
    let captured_end = packet.captured_end();
    if captured_end < end {
        // Every header is here; only payload, pad or ICRC bytes were cut by the snaplen.
        let layer = if captured_end < payload_end {
            Layer::Payload
        } else {
            Layer::Icrc
        };
        let cut = DecodeError::short(layer, captured_end, end - captured_end, 0);
        return Err(Stop::Truncated(cut));
    }
    Ok(())
}

/// An extended header that runs past the packet's end is a length disagreement, named as
/// such; one cut by the snaplen stays a truncation.
fn overrun(stop: Stop) -> Stop {
    match stop {
        Stop::Malformed(err) => Stop::Malformed(DecodeError {
            problem: Problem::Invalid("header runs past the end of the packet"),
            ..err
        }),
        truncated => truncated,
    }
}
