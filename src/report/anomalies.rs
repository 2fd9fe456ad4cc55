//! The anomalies kept, each with its kind, its place and what it says.

use serde::{Serialize, Serializer};

use super::pfc::{CascadeRow, StormRow};
use super::values::{At, Displayed, Files, FlowId, NakAt, display, serialize_rows};
use crate::analyze::capture_loss::MissedRun;
use crate::analyze::key::FrameRef;
use crate::analyze::{Anomaly, AnomalyDetail, Endpoints};
use crate::dissect::Address;
use crate::wire::ethernet::Mac;

/// What one anomaly says beyond its kind and place.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Details<'a> {
    PsnGap {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        expected_psn: u32,
        missing: u32,
    },
    GoBackN {
        #[serde(flatten)]
        flow: FlowId<'a>,
        from_psn: u32,
        to_psn: u32,
        depth: u32,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        nak: Option<NakAt<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        delay_ns: Option<u64>,
        /// `nak`, or `previous_packet` when no NAK was captured.
        #[serde(skip_serializing_if = "Option::is_none")]
        delay_from: Option<&'static str>,
        /// nak, rnr, timeout or implied.
        cause: &'static str,
        /// From the NAK that asked for it, or else from the last transmission of the PSN
        /// sent again.
        waited_ns: Option<u64>,
        /// For an RNR NAK's go-back: the wait it asked for (IBA table 45).
        #[serde(skip_serializing_if = "Option::is_none")]
        rnr_timer_ns: Option<u64>,
    },
    /// A single retransmission, with the cause and wait a go-back has.
    Retransmission {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        cause: &'static str,
        waited_ns: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rnr_timer_ns: Option<u64>,
    },
    Nak {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        code: &'static str,
    },
    RnrNak {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        timer: u8,
    },
    Crc {
        #[serde(skip_serializing_if = "Option::is_none")]
        stored: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        computed: Option<u32>,
        #[serde(flatten)]
        endpoints: EndpointsRow<'a>,
    },
    Storm(StormRow<'a>),
    Cascade(CascadeRow<'a>),
    Malformed {
        layer: &'static str,
        offset: u32,
        #[serde(serialize_with = "display")]
        message: &'a crate::wire::DecodeError,
    },
    LostBetween {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        /// The input that saw the packet last, and the one further along that missed it.
        seen_at: Option<&'a str>,
        missing_at: Option<&'a str>,
    },
    /// A run of PSNs the capture missed although the responder acknowledged them: not an
    /// anomaly of the network, but a row of the export's `events`.
    CaptureMissed {
        #[serde(flatten)]
        flow: FlowId<'a>,
        psn: u32,
        missing: u32,
        /// requests, read_responses or retransmissions.
        missed: &'static str,
    },
    /// Where the capture file itself broke, cut short or damaged: a row of the export's
    /// `events`, so that a query tells an incomplete capture from a complete one.
    CaptureBroke {
        layer: &'static str,
        file_offset: u64,
        message: &'a String,
    },
}

/// The addresses of a packet whose CRC failed, to find the link that corrupted it.
#[derive(Serialize)]
pub struct EndpointsRow<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src: Option<Displayed<'a, Address>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst: Option<Displayed<'a, Address>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dest_qp: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src_mac: Option<Displayed<'a, Mac>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst_mac: Option<Displayed<'a, Mac>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vlan: Option<u16>,
}

impl<'a> EndpointsRow<'a> {
    pub fn new(e: &'a Endpoints) -> Self {
        EndpointsRow {
            src: e.src.as_ref().map(Displayed),
            dst: e.dst.as_ref().map(Displayed),
            dest_qp: e.dest_qp,
            src_mac: e.src_mac.as_ref().map(Displayed),
            dst_mac: e.dst_mac.as_ref().map(Displayed),
            vlan: e.vlan,
        }
    }
}

#[derive(Serialize)]
pub struct AnomalyRow<'a> {
    pub kind: &'static str,
    #[serde(flatten)]
    pub at: At<'a>,
    #[serde(flatten)]
    pub details: Details<'a>,
}

impl<'a> AnomalyRow<'a> {
    /// A run of PSNs the capture missed, as the export's `events` lists it: kind
    /// `capture_missed`, the frame that showed it, the flow, the first PSN and how many.
    pub fn capture_missed(run: &'a MissedRun, files: Files<'a>) -> Self {
        AnomalyRow {
            kind: "capture_missed",
            at: At::new(run.at, files),
            details: Details::CaptureMissed {
                flow: FlowId::new(&run.flow),
                psn: run.first,
                missing: run.count,
                missed: run.what.name(),
            },
        }
    }

    /// The break of a capture cut short (kind `truncated`) or damaged (`malformed`) at
    /// `file_offset`, as the export's `events` lists it: at the frame that could not be read.
    pub fn capture_broke(
        kind: &'static str,
        at: FrameRef,
        file_offset: u64,
        message: &'a String,
        files: Files<'a>,
    ) -> Self {
        AnomalyRow {
            kind,
            at: At::new(at, files),
            details: Details::CaptureBroke {
                layer: "capture",
                file_offset,
                message,
            },
        }
    }

    pub fn new(anomaly: &'a Anomaly, files: Files<'a>) -> Self {
        let details = match &anomaly.detail {
            AnomalyDetail::PsnGap {
                flow,
                psn,
                expected,
                missing,
            } => Details::PsnGap {
                flow: FlowId::new(flow),
                psn: *psn,
                expected_psn: *expected,
                missing: *missing,
            },
            AnomalyDetail::GoBackN {
                flow,
                from_psn,
                to_psn,
                depth,
                nak,
                delay_ns,
                episode,
            } => Details::GoBackN {
                flow: FlowId::new(flow),
                from_psn: *from_psn,
                to_psn: *to_psn,
                depth: *depth,
                nak: nak.map(|at| NakAt::new(at, files)),
                delay_ns: *delay_ns,
                delay_from: delay_ns.map(|_| {
                    if nak.is_some() {
                        "nak"
                    } else {
                        "previous_packet"
                    }
                }),
                cause: episode.cause.name(),
                waited_ns: episode.waited_ns,
                rnr_timer_ns: episode.rnr_timer.map(crate::wire::aeth::rnr_timer_ns),
            },
            AnomalyDetail::Retransmission { flow, psn, episode } => Details::Retransmission {
                flow: FlowId::new(flow),
                psn: *psn,
                cause: episode.cause.name(),
                waited_ns: episode.waited_ns,
                rnr_timer_ns: episode.rnr_timer.map(crate::wire::aeth::rnr_timer_ns),
            },
            AnomalyDetail::Nak { flow, psn, code } => Details::Nak {
                flow: FlowId::new(flow),
                psn: *psn,
                code: code.name(),
            },
            AnomalyDetail::RnrNak { flow, psn, timer } => Details::RnrNak {
                flow: FlowId::new(flow),
                psn: *psn,
                timer: *timer,
            },
            AnomalyDetail::IcrcBad(check, endpoints) | AnomalyDetail::VcrcBad(check, endpoints) => {
                Details::Crc {
                    stored: check.stored,
                    computed: check.computed,
                    endpoints: EndpointsRow::new(endpoints),
                }
            }
            AnomalyDetail::PfcStorm(storm) => Details::Storm(StormRow {
                kind: None,
                ..StormRow::new(storm, files)
            }),
            AnomalyDetail::PauseCascade(cascade) => {
                Details::Cascade(CascadeRow::new(cascade, files))
            }
            AnomalyDetail::Malformed(err) => Details::Malformed {
                layer: err.layer.name(),
                offset: err.offset,
                message: err,
            },
            AnomalyDetail::LostBetween {
                flow,
                psn,
                from,
                to,
            } => Details::LostBetween {
                flow: FlowId::new(flow),
                psn: *psn,
                seen_at: files.name(*from),
                missing_at: files.name(*to),
            },
        };
        AnomalyRow {
            kind: anomaly.detail.kind().name(),
            at: At::new(anomaly.at, files),
            details,
        }
    }
}

/// The anomalies kept, in time order.
pub struct Anomalies<'a> {
    pub list: &'a [Anomaly],
    pub files: Files<'a>,
}

impl<'a> Anomalies<'a> {
    pub fn iter(&self) -> impl Iterator<Item = AnomalyRow<'a>> + '_ {
        self.list.iter().map(|a| AnomalyRow::new(a, self.files))
    }
}

impl Serialize for Anomalies<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_rows(serializer, Some(self.list.len()), self.iter())
    }
}
