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

#[cfg(test)]
pub(crate) mod tests {
    use crate::capture::{Record, linktype};
    use crate::dissect::{DecodeOptions, Packet, dissect};
    use crate::wire::{Layer, Problem};

    /// LRH to QP0 (VL15), BTH UD SEND_ONLY, DETH, the MAD, ICRC and VCRC (not checked here).
    pub(crate) fn smp_frame(mad: &[u8]) -> Vec<u8> {
        let words = ((8 + 12 + 8 + mad.len() + 4) / 4) as u16;
        let [wh, wl] = words.to_be_bytes();
        let mut f = vec![0xf0, 0x02, 0xff, 0xff, wh, wl, 0xff, 0xff];
        f.extend([0x64, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1]);
        f.extend([0; 8]);
        f.extend_from_slice(mad);
        f.extend([0; 6]);
        f
    }

    pub(crate) fn decode(frame: &[u8], captured: usize) -> Packet<'_> {
        let record = Record {
            data: &frame[..captured],
            orig_len: frame.len() as u32,
            ts_ns: None,
            linktype: linktype::INFINIBAND,
            iface: 0,
            offset: 0,
        };
        dissect(&record, 1, &DecodeOptions::default())
    }

    /// A SubnGet(SMInfo) MAD, directed route, of `hop_count` hops and empty paths.
    pub(crate) fn dr_get(hop_count: u8) -> [u8; 256] {
        let mut mad = [0u8; 256];
        mad[..4].copy_from_slice(&[1, 0x81, 1, 0x01]);
        mad[7] = hop_count;
        mad[17] = 0x20;
        mad
    }

    #[test]
    fn a_directed_route_longer_than_its_path_arrays_is_malformed() {
        let frame = smp_frame(&dr_get(63));
        let pkt = decode(&frame, frame.len());
        assert!(pkt.error.is_none() && pkt.mad.is_some_and(|m| m.smp().is_some()));
        let frame = smp_frame(&dr_get(64));
        let error = decode(&frame, frame.len()).error.expect("malformed");
        assert_eq!((error.layer, error.offset), (Layer::Smp, 28 + 7));
    }

    #[test]
    fn a_cut_mad_keeps_its_header_and_a_short_one_is_malformed() {
        let frame = smp_frame(&dr_get(2));
        let pkt = decode(&frame, 28 + 100);
        let cut = pkt.truncated.expect("truncated");
        assert_eq!((cut.layer, cut.offset), (Layer::Smp, 28 + 24));
        let mad = pkt.mad.expect("header kept");
        assert!(!mad.is_complete() && mad.header.hop_count() == 2);

        let frame = smp_frame(&dr_get(2)[..200]);
        let pkt = decode(&frame, frame.len());
        let error = pkt.error.expect("malformed");
        assert_eq!((error.layer, error.offset), (Layer::Mad, 28));
        assert!(matches!(error.problem, Problem::Invalid(_)));
        let frame = smp_frame(&dr_get(2)[..20]);
        let error = decode(&frame, frame.len()).error.expect("malformed");
        assert_eq!((error.layer, error.offset), (Layer::Mad, 28));
        assert!(matches!(error.problem, Problem::Short { required: 24, .. }));
    }
}
