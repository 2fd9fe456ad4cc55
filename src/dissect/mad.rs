//! Management datagrams: the 256-byte payload of a UD SEND_ONLY to QP0 or QP1. The common
//! header is decoded and checked here; the class-specific views are handed out on demand by
//! [`Mad`], over bytes already known to be complete, so a packet only stores two pointers.

use super::bounds::{Bytes, Stop};
use super::parse::{View, header, run};
use super::{Packet, malformed};
use crate::wire::mad::cm::{Cm, CmBody};
use crate::wire::mad::perf::{ATTR_PORT_COUNTERS, PerfBody, PortCounters};
use crate::wire::mad::sa::{ATTR_PATH_RECORD, PathRecord, SaBody};
use crate::wire::mad::smp::{MAX_HOPS, SmpAttr, SmpBody};
use crate::wire::mad::{MAD_LEN, MadHeader, class};
use crate::wire::{DecodeError, Layer};

/// The bytes after the common header, whatever the class.
type MadRest<'a> = &'a [u8; MAD_LEN - MadHeader::LEN];

/// A decoded MAD: its common header, and the rest when all of it was captured.
#[derive(Debug, Clone, Copy)]
pub struct Mad<'a> {
    pub header: MadHeader<'a>,
    rest: Option<MadRest<'a>>,
}

impl<'a> Mad<'a> {
    /// Whether the bytes after the header were captured (and so the views below exist).
    pub fn is_complete(&self) -> bool {
        self.rest.is_some()
    }

    fn body_if(&self, wanted: &[u8]) -> Option<&'a [u8]> {
        let rest = self.rest?;
        wanted
            .contains(&self.header.mgmt_class())
            .then_some(rest.as_slice())
    }

    /// The SMP body, LID-routed or directed-route.
    pub fn smp(&self) -> Option<SmpBody<'a>> {
        let classes = [class::SUBN_LID_ROUTED, class::SUBN_DIRECTED_ROUTE];
        SmpBody::new_checked(self.body_if(&classes)?, 0).ok()
    }

    pub fn smp_attr(&self) -> Option<SmpAttr<'a>> {
        SmpAttr::new(self.header.attr_id(), self.smp()?.data())
    }

    pub fn sa(&self) -> Option<SaBody<'a>> {
        SaBody::new_checked(self.body_if(&[class::SUBN_ADM])?, 0).ok()
    }

    /// The first PathRecord of an SA MAD about path records.
    pub fn path_record(&self) -> Option<PathRecord<'a>> {
        let sa = self.sa()?;
        if self.header.attr_id() != ATTR_PATH_RECORD || !sa.data_starts_a_record() {
            return None;
        }
        PathRecord::new_checked(sa.data(), 0).ok()
    }

    pub fn port_counters(&self) -> Option<PortCounters<'a>> {
        let perf = PerfBody::new_checked(self.body_if(&[class::PERF])?, 0).ok()?;
        if self.header.attr_id() != ATTR_PORT_COUNTERS {
            return None;
        }
        PortCounters::new_checked(perf.data(), 0).ok()
    }

    /// The CM message, when the attribute is one.
    pub fn cm(&self) -> Option<Cm<'a>> {
        let body = CmBody::new_checked(self.body_if(&[class::CM])?, 0).ok()?;
        Cm::new(self.header.attr_id(), body)
    }
}

impl<'a> View<'a> for MadHeader<'a> {
    const LEN: usize = MadHeader::LEN;
    #[inline]
    fn view(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError> {
        MadHeader::new_checked(buf, offset)
    }
}

/// Decodes the MAD that `payload` (cursor at its start, end at the pad) holds. The packet
/// keeps the header even when the rest is cut or wrong, so the line can still name it.
/// Kept out of line so that the transport decoder every data packet runs stays small.
#[inline(never)]
pub fn decode<'a>(pkt: &mut Packet<'a>, payload: Bytes<'a>) -> Result<(), Stop> {
    let at = payload.at();
    let (rest, header) = run(header::<MadHeader>(Layer::Mad), payload)?;
    pkt.mad = Some(Mad { header, rest: None });
    if payload.end() - at != MAD_LEN {
        return Err(malformed(
            Layer::Mad,
            at,
            "payload to QP0/QP1 is not a 256-byte MAD",
        ));
    }
    let body_layer = match header.mgmt_class() {
        class::SUBN_LID_ROUTED | class::SUBN_DIRECTED_ROUTE => Layer::Smp,
        class::SUBN_ADM => Layer::Sa,
        class::PERF => Layer::Perf,
        class::CM => Layer::Cm,
        _ => Layer::Mad,
    };
    let (_, bytes) = run(
        super::parse::array::<{ MAD_LEN - MadHeader::LEN }>(body_layer),
        rest,
    )?;
    if header.is_directed_route() && header.hop_count() > MAX_HOPS {
        // The path arrays hold 64 entries, the first unused.
        return Err(malformed(
            Layer::Smp,
            at + 7,
            "directed-route hop count exceeds 63",
        ));
    }
    pkt.mad = Some(Mad {
        header,
        rest: Some(bytes),
    });
    Ok(())
}
