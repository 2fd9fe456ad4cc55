//! Decoding that learns from earlier packets: which RC queue pairs carry IPoIB in
//! connected mode, known only from the CM exchange that set them up, and which carry an
//! upper-layer protocol such as NVMe-oF, with its outstanding commands ([`UlpState`]). A [`Decoder`] decodes
//! records in capture order on one thread; the threaded pipeline (`crate::pipeline`) on
//! three threads or more decodes batches side by side with [`decode_with_state`], each
//! from a copy of the [`IpoibCmState`] before it, and commits the batches' states in
//! order. The stateless [`super::dissect`] knows none of this.

use super::ulp::{self, UlpState};
use super::{DecodeOptions, FrameClock, Packet, dissect_with};
use crate::capture::Record;
use crate::wire::mad::cm::{CmMsg, ipoib_cm_qpn};

/// Connected-mode IPoIB queue pairs remembered at once. A host sets up one connection per
/// peer it talks to, so a capture rarely names more; past the cap the oldest is forgotten,
/// and its later packets show as plain RC SENDs.
pub const IPOIB_QP_CAPACITY: usize = 256;

/// A fixed-size set of QPNs with first-in, first-out eviction: no allocation, and a lookup
/// is a scan of at most 1 KiB, done only for RC SEND Only packets.
#[derive(Debug, Clone)]
pub struct IpoibQps {
    qpns: [u32; IPOIB_QP_CAPACITY],
    len: usize,
    /// The slot the next QPN replaces once the set is full.
    oldest: usize,
}

impl Default for IpoibQps {
    fn default() -> Self {
        IpoibQps {
            qpns: [0; IPOIB_QP_CAPACITY],
            len: 0,
            oldest: 0,
        }
    }
}

impl IpoibQps {
    /// Remembers `qpn` (24 bits) as carrying IPoIB; already known ones are not added twice.
    pub fn insert(&mut self, qpn: u32) {
        let qpn = qpn & 0x00ff_ffff;
        if self.contains(qpn) {
            return;
        }
        if self.len < IPOIB_QP_CAPACITY {
            self.qpns[self.len] = qpn;
            self.len += 1;
        } else {
            self.qpns[self.oldest] = qpn;
            self.oldest = (self.oldest + 1) % IPOIB_QP_CAPACITY;
        }
    }

    #[inline]
    pub fn contains(&self, qpn: u32) -> bool {
        self.qpns[..self.len].contains(&qpn)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// IPoIB-CM REQs waiting for their REP: only the REQ carries the service ID, and the REP
/// names it back by the REQ's communication ID. Handshakes overlap little, so a small ring
/// suffices; a REP whose REQ was forgotten leaves only the REQ's QP learned.
const PENDING_REQS: usize = 64;

/// What decoding learns from earlier records and applies to later ones: the
/// connected-mode IPoIB queue pairs, the IPoIB-CM REQs still waiting for their REP, and the
/// upper-layer protocols' queues and commands. Cloned when batches are decoded on several
/// threads (see [`decode_with_state`]).
#[derive(Debug, Clone)]
pub struct IpoibCmState {
    ipoib_qps: IpoibQps,
    pending_reqs: [u32; PENDING_REQS],
    pending_len: usize,
    pending_next: usize,
    ulp: UlpState,
}

impl Default for IpoibCmState {
    fn default() -> Self {
        IpoibCmState {
            ipoib_qps: IpoibQps::default(),
            pending_reqs: [0; PENDING_REQS],
            pending_len: 0,
            pending_next: 0,
            ulp: UlpState::default(),
        }
    }
}

impl IpoibCmState {
    pub fn ipoib_qps(&self) -> &IpoibQps {
        &self.ipoib_qps
    }

    /// An IPoIB-CM connection (RFC 4755) is set up by a REQ whose service ID names the
    /// IPoIB-CM space; both ends' RC QPs then carry IPoIB. The REQ gives the active side's
    /// QPN, the REP that answers it (by communication ID) the passive side's. Returns
    /// whether anything was learnt.
    fn learn_from_cm(&mut self, pkt: &Packet<'_>) -> bool {
        let Some(cm) = pkt.mad.and_then(|mad| mad.cm()) else {
            return false;
        };
        match cm.msg() {
            CmMsg::Req => {
                let ipoib = cm.service_id().and_then(ipoib_cm_qpn).is_some();
                if let (true, Some(qpn), Some(comm_id)) =
                    (ipoib, cm.local_qpn(), cm.local_comm_id())
                {
                    self.ipoib_qps.insert(qpn);
                    self.pending_reqs[self.pending_next] = comm_id;
                    self.pending_next = (self.pending_next + 1) % PENDING_REQS;
                    self.pending_len = (self.pending_len + 1).min(PENDING_REQS);
                    return true;
                }
            }
            CmMsg::Rep => {
                let answers_ipoib_req = cm
                    .remote_comm_id()
                    .is_some_and(|id| self.pending_reqs[..self.pending_len].contains(&id));
                if let (true, Some(qpn)) = (answers_ipoib_req, cm.local_qpn()) {
                    self.ipoib_qps.insert(qpn);
                    return true;
                }
            }
            _ => {}
        }
        false
    }
}

/// The first and the latest frame time, for each frame's [`FrameClock`]: known from the
/// records' times alone, so that the thread reading records can give each its clock before
/// any is decoded.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameClocks {
    first_ts: Option<u64>,
    previous_ts: Option<u64>,
}

impl FrameClocks {
    /// The clock of the next frame, whose time is `ts`. A frame without a time has none,
    /// and leaves the next frame's delta to the one before it.
    pub fn next(&mut self, ts: Option<u64>) -> FrameClock {
        let Some(ts) = ts else {
            return FrameClock::default();
        };
        // Any 64-bit time can come from a pcapng, so two may be further apart than an i64
        // reaches: the difference is then the nearest one it holds, not a wrong sign.
        let since = |then: Option<u64>| {
            then.map_or(0, |t| {
                if ts >= t {
                    i64::try_from(ts - t).unwrap_or(i64::MAX)
                } else {
                    // 0 - 2^63 is i64::MIN itself; anything further saturates to it.
                    0i64.checked_sub_unsigned(t - ts).unwrap_or(i64::MIN)
                }
            })
        };
        let clock = FrameClock {
            relative_ns: since(self.first_ts),
            delta_ns: since(self.previous_ts),
        };
        self.first_ts.get_or_insert(ts);
        self.previous_ts = Some(ts);
        clock
    }
}

/// Decodes one record with what earlier records taught (`state`), gives it its `clock`,
/// and learns from it in turn; returns whether it changed `state`. The stateless half of a
/// [`Decoder`], for batches decoded on several threads, whose states are committed in
/// capture order afterwards.
#[inline]
pub fn decode_with_state<'a>(
    opts: &DecodeOptions,
    state: &mut IpoibCmState,
    pkt: &mut Packet<'a>,
    record: &Record<'a>,
    frame: u64,
    clock: FrameClock,
) -> bool {
    dissect_with(pkt, record, frame, opts, Some(&state.ipoib_qps));
    pkt.clock = clock;
    let learnt_ipoib = pkt.mad.is_some() && state.learn_from_cm(pkt);
    let learnt_ulp = ulp::decode(pkt, &mut state.ulp, &opts.decode_as);
    learnt_ipoib | learnt_ulp
}

/// Decodes records one after another, remembering what later records need.
#[derive(Debug, Clone)]
pub struct Decoder {
    opts: DecodeOptions,
    ipoib_cm: IpoibCmState,
    clocks: FrameClocks,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new(DecodeOptions::default())
    }
}

impl Decoder {
    pub fn new(opts: DecodeOptions) -> Self {
        Decoder {
            opts,
            ipoib_cm: IpoibCmState::default(),
            clocks: FrameClocks::default(),
        }
    }

    pub fn options(&self) -> &DecodeOptions {
        &self.opts
    }

    /// Records that RC SENDs to `qpn` carry IPoIB (connected mode): the CM decoder calls
    /// this for both QPNs of a REQ/REP exchange whose service ID is IPoIB-CM.
    pub fn learn_ipoib_qp(&mut self, qpn: u32) {
        self.ipoib_cm.ipoib_qps.insert(qpn);
    }

    pub fn ipoib_qps(&self) -> &IpoibQps {
        &self.ipoib_cm.ipoib_qps
    }

    /// [`super::dissect_into`], with what earlier records taught.
    pub fn decode_into<'a>(&mut self, pkt: &mut Packet<'a>, record: &Record<'a>, frame: u64) {
        let clock = self.clocks.next(record.ts_ns);
        decode_with_state(&self.opts, &mut self.ipoib_cm, pkt, record, frame, clock);
    }

    /// [`super::dissect`], with what earlier records taught.
    pub fn decode<'a>(&mut self, record: &Record<'a>, frame: u64) -> Packet<'a> {
        let mut pkt = Packet::default();
        self.decode_into(&mut pkt, record, frame);
        pkt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_clocks_saturate_at_the_ends_of_an_i64() {
        let mut clocks = FrameClocks::default();
        clocks.next(Some(u64::MAX));
        let back = clocks.next(Some(0));
        assert_eq!((back.relative_ns, back.delta_ns), (i64::MIN, i64::MIN));
        let forth = clocks.next(Some(u64::MAX));
        assert_eq!((forth.relative_ns, forth.delta_ns), (0, i64::MAX));
        let mut clocks = FrameClocks::default();
        clocks.next(Some(1 << 63));
        assert_eq!(clocks.next(Some(0)).delta_ns, i64::MIN);
        assert_eq!(clocks.next(Some(5)).delta_ns, 5);
        assert_eq!(clocks.next(Some(2)).delta_ns, -3);
    }

    #[test]
    fn the_set_is_bounded_and_forgets_the_oldest() {
        let mut qps = IpoibQps::default();
        for qpn in 0..IPOIB_QP_CAPACITY as u32 {
            qps.insert(qpn + 100);
        }
        qps.insert(100);
        assert_eq!(qps.len(), IPOIB_QP_CAPACITY);
        qps.insert(7);
        assert_eq!(qps.len(), IPOIB_QP_CAPACITY);
        assert!(qps.contains(7));
        assert!(!qps.contains(100), "the oldest QPN makes room");
        assert!(qps.contains(101));
        qps.insert(0x1ff_ffff);
        assert!(qps.contains(0xff_ffff), "QPNs are 24 bits");
    }
}
