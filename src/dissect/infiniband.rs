//! Native InfiniBand (LRH, optional GRH, optional VCRC) and RoCE v1 (GRH over Ethernet).

use super::bounds::{Bytes, Stop};
use super::parse::{header, run};
use super::state::IpoibQps;
use super::{DecodeOptions, Kind, Packet, VcrcJob, ipoib, malformed, transport};
use crate::crc::{CrcCheck, IcrcPrefix};
use crate::wire::Layer;
use crate::wire::grh::{Grh, NXTHDR_BTH};
use crate::wire::lrh::{Lrh, lnh};

const VCRC_LEN: usize = 2;
const RAW_HEADER_LEN: usize = 4;

#[inline]
pub fn native<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    ipoib_qps: Option<&IpoibQps>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    pkt.kind = Kind::Ib;
    let at = bytes.at();
    let (_, lrh) = run(header::<Lrh>(Layer::Lrh), bytes)?;
    pkt.lrh = Some(lrh);
    // PktLen counts LRH through ICRC; the VCRC follows.
    let packet = bytes.bounded(at, |room| lrh.check_len(at, room))?;
    let end = packet.end();
    // Captures differ on whether the link layer keeps the VCRC: a frame that ends where
    // PktLen ends has none, which is not a bad VCRC.
    if bytes.end() > end && bytes.end() < end + VCRC_LEN {
        return Err(malformed(
            Layer::Vcrc,
            end,
            "one byte after PktLen's end: too short for a VCRC",
        ));
    }
    if bytes.end() != end {
        // Past PktLen's end, and not by one byte: the VCRC is there.
        let with_vcrc = bytes.with_wire_end(end + VCRC_LEN);
        match with_vcrc.complete(end, end + VCRC_LEN) {
            Some(stored) => {
                pkt.vcrc_job = Some(VcrcJob {
                    covered: with_vcrc.captured(at, end),
                    stored: u16::from_le_bytes([stored[0], stored[1]]),
                })
            }
            None => pkt.vcrc = Some(CrcCheck::unverifiable(None)),
        }
    }
    let packet = packet.skip(Lrh::LEN);
    match lrh.lnh() {
        lnh::IBA_LOCAL => {
            let decoded = transport::decode(pkt, packet, IcrcPrefix::IbLocal { lrh: lrh.bytes() });
            ipoib::after_transport(pkt, packet, decoded, ipoib_qps, opts)
        }
        lnh::IBA_GLOBAL => {
            let grh_at = packet.at();
            let (rest, grh) = run(header::<Grh>(Layer::Grh), packet)?;
            pkt.grh = Some(grh);
            grh.check_len_under_lrh(grh_at, end - grh_at)
                .map_err(Stop::Malformed)?;
            if grh.nxthdr() != NXTHDR_BTH {
                return Ok(());
            }
            let decoded = transport::decode(pkt, rest, IcrcPrefix::IbGlobal { grh: grh.bytes() });
            ipoib::after_transport(pkt, rest, decoded, ipoib_qps, opts)
        }
        // Raw packets carry a 4-byte raw header, IPv6-raw ones an IPv6 packet; neither has
        // IBA transport or an ICRC.
        lnh::RAW => {
            pkt.payload_len = Some(end.saturating_sub(at + Lrh::LEN + RAW_HEADER_LEN) as u32);
            Ok(())
        }
        _ => {
            pkt.payload_len = Some((end - at - Lrh::LEN) as u32);
            Ok(())
        }
    }
}

#[inline]
pub fn roce_v1<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>) -> Result<(), Stop> {
    pkt.kind = Kind::RoceV1;
    let at = bytes.at();
    let (rest, grh) = run(header::<Grh>(Layer::Grh), bytes)?;
    pkt.grh = Some(grh);
    let packet = rest.bounded(at, |room| grh.check_len(at, room))?;
    if grh.nxthdr() != NXTHDR_BTH {
        return Ok(());
    }
    transport::decode(pkt, packet, IcrcPrefix::RoceV1 { grh: grh.bytes() })
}
