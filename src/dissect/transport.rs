//! BTH, the extended headers its opcode calls for, the payload and the ICRC.

use super::bounds::{Bytes, Stop};
use super::{IcrcJob, Packet, malformed};
use crate::crc::{CrcCheck, IcrcPrefix};
use crate::wire::aeth::Aeth;
use crate::wire::atomic_ack_eth::AtomicAckEth;
use crate::wire::atomic_eth::AtomicEth;
use crate::wire::bth::Bth;
use crate::wire::deth::Deth;
use crate::wire::ieth::Ieth;
use crate::wire::immdt::ImmDt;
use crate::wire::opcode::{self, ExtSet};
use crate::wire::rdeth::Rdeth;
use crate::wire::reth::Reth;
use crate::wire::xrceth::XrcEth;
use crate::wire::{DecodeError, Layer};

const ICRC_LEN: usize = 4;
const FETH_LEN: usize = 4;
const CNP_RESERVED_LEN: usize = 16;

/// Decodes the transport packet from `at` (the BTH) to `packet.end()` (the end of the ICRC).
pub fn decode<'a>(
    pkt: &mut Packet<'a>,
    packet: Bytes<'a>,
    at: usize,
    prefix: IcrcPrefix<'a>,
) -> Result<(), Stop> {
    let end = packet.end();
    if end < at + Bth::LEN + ICRC_LEN {
        // Say whether the BTH itself is missing, or only the room for the ICRC.
        packet.need(at, Bth::LEN, Layer::Bth)?;
        return Err(malformed(Layer::Bth, at, "no room for BTH and ICRC"));
    }
    let icrc_at = end - ICRC_LEN;
    match packet.complete(icrc_at, end) {
        Some(stored) => {
            pkt.icrc_job = Some(IcrcJob {
                prefix,
                covered: packet.captured(at, icrc_at),
                stored: u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]),
            })
        }
        None => pkt.icrc = Some(CrcCheck::unverifiable(None)),
    }
    let bth =
        Bth::new_checked(packet.need(at, Bth::LEN, Layer::Bth)?, at).map_err(Stop::Malformed)?;
    pkt.bth = Some(bth);

    // Headers and payload end where the ICRC begins.
    let body = packet.limit(icrc_at, Layer::Bth, at, "headers run into the ICRC")?;
    let info = opcode::info(bth.opcode());
    let mut cursor = at + Bth::LEN;
    let ext = info.ext;
    macro_rules! ext_header {
        ($set:expr, $view:ident, $field:ident, $layer:expr) => {
            if ext.has($set) {
                let bytes = body.need(cursor, $view::LEN, $layer).map_err(overrun)?;
                pkt.$field = Some($view::new_checked(bytes, cursor).map_err(Stop::Malformed)?);
                cursor += $view::LEN;
            }
        };
    }
    ext_header!(ExtSet::RDETH, Rdeth, rdeth, Layer::Rdeth);
    ext_header!(ExtSet::DETH, Deth, deth, Layer::Deth);
    ext_header!(ExtSet::XRCETH, XrcEth, xrceth, Layer::XrcEth);
    if ext.has(ExtSet::FETH) {
        let b = body.need(cursor, FETH_LEN, Layer::Feth).map_err(overrun)?;
        pkt.feth = Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        cursor += FETH_LEN;
    }
    ext_header!(ExtSet::RETH, Reth, reth, Layer::Reth);
    ext_header!(ExtSet::ATOMIC_ETH, AtomicEth, atomic_eth, Layer::AtomicEth);
    ext_header!(ExtSet::AETH, Aeth, aeth, Layer::Aeth);
    ext_header!(
        ExtSet::ATOMIC_ACK_ETH,
        AtomicAckEth,
        atomic_ack_eth,
        Layer::AtomicAckEth
    );
    ext_header!(ExtSet::IMMDT, ImmDt, immdt, Layer::ImmDt);
    ext_header!(ExtSet::IETH, Ieth, ieth, Layer::Ieth);
    if bth.opcode() == opcode::CNP {
        // The CNP's 16 reserved bytes are part of its format, not payload.
        body.need(cursor, CNP_RESERVED_LEN, Layer::Cnp)
            .map_err(overrun)?;
        cursor += CNP_RESERVED_LEN;
    }

    let pad = usize::from(bth.pad_count());
    let room = icrc_at - cursor;
    if pad > room {
        return Err(malformed(Layer::Bth, at + 1, "PadCnt exceeds the payload"));
    }
    let payload_end = icrc_at - pad;
    pkt.payload_len = Some((payload_end - cursor) as u32);
    pkt.payload = body.captured(cursor, payload_end);
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
        Stop::Malformed(DecodeError { layer, offset, .. }) => Stop::Malformed(
            DecodeError::invalid(layer, offset, "header runs past the end of the packet"),
        ),
        truncated => truncated,
    }
}
