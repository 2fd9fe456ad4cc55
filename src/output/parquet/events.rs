//! The `events` dataset: one row per anomaly, as `analyze --json` `anomalies[]` gives it.

use crate::report::anomalies::{AnomalyRow, Details};
use crate::report::pfc::{CascadeRow, StormRow};
use crate::report::values::{FlowId, Start};

use super::columns::ColumnType;
use super::rows::{RowColumn, RowSchema, int, list, shown, text, timestamp};

/// One row of the dataset: an anomaly of the capture named `capture`.
pub struct EventRecord<'a> {
    pub capture: &'a str,
    pub anomaly: AnomalyRow<'a>,
}

impl<'a> EventRecord<'a> {
    fn details(&self) -> &Details<'a> {
        &self.anomaly.details
    }

    /// The flow of an anomaly about one.
    fn flow(&self) -> Option<&FlowId<'a>> {
        match self.details() {
            Details::PsnGap { flow, .. }
            | Details::GoBackN { flow, .. }
            | Details::Retransmission { flow, .. }
            | Details::Nak { flow, .. }
            | Details::RnrNak { flow, .. }
            | Details::LostBetween { flow, .. }
            | Details::CaptureMissed { flow, .. } => Some(flow),
            _ => None,
        }
    }

    fn psn(&self) -> Option<u32> {
        match self.details() {
            Details::PsnGap { psn, .. }
            | Details::Retransmission { psn, .. }
            | Details::Nak { psn, .. }
            | Details::RnrNak { psn, .. }
            | Details::LostBetween { psn, .. }
            | Details::CaptureMissed { psn, .. } => Some(*psn),
            _ => None,
        }
    }

    fn storm(&self) -> Option<&StormRow<'a>> {
        match self.details() {
            Details::Storm(storm) => Some(storm),
            _ => None,
        }
    }

    fn cascade(&self) -> Option<&CascadeRow<'a>> {
        match self.details() {
            Details::Cascade(cascade) => Some(cascade),
            _ => None,
        }
    }

    /// Where a storm or a cascade started.
    fn start(&self) -> Option<&Start<'a>> {
        match self.details() {
            Details::Storm(storm) => Some(&storm.at),
            Details::Cascade(cascade) => Some(&cascade.at),
            _ => None,
        }
    }

    /// A cascade's members' values, one per member; none without members.
    fn members<T>(&self, get: impl Fn(&crate::report::pfc::MemberRow<'a>) -> T) -> Option<Vec<T>> {
        let cascade = self.cascade()?;
        (!cascade.members.is_empty()).then(|| cascade.members.iter().map(|m| get(&m)).collect())
    }
}

type Column<'a> = RowColumn<EventRecord<'a>>;

/// The `events` dataset's columns.
pub fn event_schema<'a>() -> RowSchema<EventRecord<'a>> {
    let c: Vec<Column<'a>> = vec![
        text(
            "capture",
            "the capture file's name, without its directory",
            |r: &EventRecord<'_>| r.capture.to_string(),
        ),
        text(
            "kind",
            "psn_gap, go_back_n, retransmission, nak, rnr_nak, icrc_bad, vcrc_bad, pfc_storm, pause_storm, pause_cascade, lost_between, malformed, capture_missed, truncated",
            |r: &EventRecord<'_>| r.anomaly.kind,
        ),
        int(
            "frame",
            "the frame that shows it (for storms and cascades, the last)",
            |r: &EventRecord<'_>| r.anomaly.at.frame,
        ),
        timestamp("ts", "that frame's time", |r: &EventRecord<'_>| {
            r.anomaly.at.ts_ns
        }),
        int(
            "ts_ns",
            "that frame's time, nanoseconds since the epoch",
            |r: &EventRecord<'_>| r.anomaly.at.ts_ns,
        ),
        shown(
            "src",
            "source address (or PFC sender MAC)",
            |r: &EventRecord<'_>| -> Option<String> {
                match r.details() {
                    Details::Crc { endpoints, .. } => {
                        endpoints.src.as_ref().map(|a| a.0.to_string())
                    }
                    Details::Storm(storm) => Some(storm.src.to_string()),
                    _ => r.flow().map(|f| f.src.to_string()),
                }
            },
        ),
        shown(
            "dst",
            "destination address",
            |r: &EventRecord<'_>| -> Option<String> {
                match r.details() {
                    Details::Crc { endpoints, .. } => {
                        endpoints.dst.as_ref().map(|a| a.0.to_string())
                    }
                    _ => r.flow().map(|f| f.dst.to_string()),
                }
            },
        ),
        int(
            "dest_qp",
            "BTH destination QP",
            |r: &EventRecord<'_>| match r.details() {
                Details::Crc { endpoints, .. } => endpoints.dest_qp,
                _ => r.flow().map(|f| f.dest_qp),
            },
        ),
        text("role", "request, response or cnp", |r: &EventRecord<'_>| {
            r.flow().map(|f| f.role.name())
        }),
        int(
            "psn",
            "the PSN concerned (retransmission: the PSN sent again; capture_missed: the first missed)",
            |r: &EventRecord<'_>| r.psn(),
        ),
        int(
            "expected_psn",
            "psn_gap: the PSN expected",
            |r: &EventRecord<'_>| match r.details() {
                Details::PsnGap { expected_psn, .. } => Some(*expected_psn),
                _ => None,
            },
        ),
        int(
            "missing",
            "psn_gap: PSNs skipped; capture_missed: PSNs missed",
            |r: &EventRecord<'_>| match r.details() {
                Details::PsnGap { missing, .. } | Details::CaptureMissed { missing, .. } => {
                    Some(*missing)
                }
                _ => None,
            },
        ),
        text(
            "missed",
            "capture_missed: requests, read_responses or retransmissions",
            |r: &EventRecord<'_>| match r.details() {
                Details::CaptureMissed { missed, .. } => Some(*missed),
                _ => None,
            },
        ),
        text("code", "nak: the NAK code", |r: &EventRecord<'_>| {
            match r.details() {
                Details::Nak { code, .. } => Some(*code),
                _ => None,
            }
        }),
        int(
            "from_psn",
            "go_back_n: PSN before the step back",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { from_psn, .. } => Some(*from_psn),
                _ => None,
            },
        ),
        int(
            "to_psn",
            "go_back_n: PSN retransmitted from",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { to_psn, .. } => Some(*to_psn),
                _ => None,
            },
        ),
        int(
            "depth",
            "go_back_n: PSNs stepped back",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { depth, .. } => Some(*depth),
                _ => None,
            },
        ),
        int(
            "nak_frame",
            "go_back_n: the NAK that asked for it",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { nak, .. } => nak.map(|n| n.frame),
                _ => None,
            },
        ),
        int(
            "nak_ts_ns",
            "go_back_n: that NAK's time",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { nak, .. } => nak.and_then(|n| n.ts_ns),
                _ => None,
            },
        ),
        int(
            "delay_ns",
            "go_back_n: NAK (or previous packet) to retransmission",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { delay_ns, .. } => *delay_ns,
                _ => None,
            },
        ),
        text(
            "delay_from",
            "go_back_n: nak or previous_packet",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { delay_from, .. } => *delay_from,
                _ => None,
            },
        ),
        text(
            "cause",
            "go_back_n, retransmission: nak, rnr, timeout or implied",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { cause, .. } | Details::Retransmission { cause, .. } => {
                    Some(*cause)
                }
                _ => None,
            },
        ),
        int(
            "waited_ns",
            "go_back_n, retransmission: from its NAK, or else from the last transmission of the PSN sent again",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { waited_ns, .. } | Details::Retransmission { waited_ns, .. } => {
                    *waited_ns
                }
                _ => None,
            },
        ),
        int(
            "rnr_timer_ns",
            "go_back_n, retransmission after an RNR NAK: the wait the NAK asked for",
            |r: &EventRecord<'_>| match r.details() {
                Details::GoBackN { rnr_timer_ns, .. }
                | Details::Retransmission { rnr_timer_ns, .. } => *rnr_timer_ns,
                _ => None,
            },
        ),
        int(
            "timer",
            "rnr_nak: the RNR timer code",
            |r: &EventRecord<'_>| match r.details() {
                Details::RnrNak { timer, .. } => Some(*timer),
                _ => None,
            },
        ),
        int(
            "stored",
            "icrc_bad/vcrc_bad: the CRC in the frame",
            |r: &EventRecord<'_>| match r.details() {
                Details::Crc { stored, .. } => *stored,
                _ => None,
            },
        ),
        int(
            "computed",
            "icrc_bad/vcrc_bad: the CRC computed",
            |r: &EventRecord<'_>| match r.details() {
                Details::Crc { computed, .. } => *computed,
                _ => None,
            },
        ),
        shown(
            "src_mac",
            "icrc_bad: source MAC",
            |r: &EventRecord<'_>| match r.details() {
                Details::Crc { endpoints, .. } => endpoints.src_mac.as_ref().map(|m| *m.0),
                _ => None,
            },
        ),
        shown(
            "dst_mac",
            "icrc_bad: destination MAC",
            |r: &EventRecord<'_>| match r.details() {
                Details::Crc { endpoints, .. } => endpoints.dst_mac.as_ref().map(|m| *m.0),
                _ => None,
            },
        ),
        int(
            "vlan",
            "icrc_bad: outermost VLAN ID",
            |r: &EventRecord<'_>| match r.details() {
                Details::Crc { endpoints, .. } => endpoints.vlan,
                _ => None,
            },
        ),
        text(
            "layer",
            "malformed: the layer where decoding stopped (capture: the file broke there)",
            |r: &EventRecord<'_>| match r.details() {
                Details::Malformed { layer, .. } | Details::CaptureBroke { layer, .. } => {
                    Some(*layer)
                }
                _ => None,
            },
        ),
        int(
            "offset",
            "malformed: its byte offset in the frame; layer capture, and truncated: the byte offset in the capture file where it broke",
            |r: &EventRecord<'_>| match r.details() {
                Details::Malformed { offset, .. } => Some(i64::from(*offset)),
                Details::CaptureBroke { file_offset, .. } => i64::try_from(*file_offset).ok(),
                _ => None,
            },
        ),
        shown(
            "message",
            "malformed, truncated: what was wrong",
            |r: &EventRecord<'_>| match r.details() {
                Details::Malformed { message, .. } => Some(*message as &dyn std::fmt::Display),
                Details::CaptureBroke { message, .. } => Some(*message as &dyn std::fmt::Display),
                _ => None,
            },
        ),
        int(
            "priority",
            "pfc_storm, pause_cascade: PFC priority (null for 802.3x PAUSE)",
            |r: &EventRecord<'_>| match r.details() {
                Details::Storm(storm) => storm.priority.number(),
                Details::Cascade(cascade) => cascade.priority.number(),
                _ => None,
            },
        ),
        int("frames", "storms: pause frames", |r: &EventRecord<'_>| {
            r.storm().map(|s| s.frames)
        }),
        int(
            "start_frame",
            "storms, cascades: first frame",
            |r: &EventRecord<'_>| r.start().map(|s| s.frame),
        ),
        int(
            "start_ts_ns",
            "storms, cascades: first frame's time",
            |r: &EventRecord<'_>| r.start().and_then(|s| s.ts_ns),
        ),
        int(
            "start_ns",
            "storms, cascades: start of the pause",
            |r: &EventRecord<'_>| match r.details() {
                Details::Storm(storm) => Some(storm.start_ns),
                Details::Cascade(cascade) => Some(cascade.start_ns),
                _ => None,
            },
        ),
        int(
            "duration_ns",
            "storms, cascades: how long",
            |r: &EventRecord<'_>| match r.details() {
                Details::Storm(storm) => Some(storm.duration_ns),
                Details::Cascade(cascade) => Some(cascade.duration_ns),
                _ => None,
            },
        ),
        int(
            "overlap_ns",
            "cascades: time all members were paused together",
            |r: &EventRecord<'_>| r.cascade().map(|c| c.overlap_ns),
        ),
        list(
            "senders",
            ColumnType::StrList,
            "cascades: the paused senders",
            |r: &EventRecord<'_>| {
                r.cascade()
                    .map(|c| c.senders.iter().map(|m| m.to_string()).collect())
            },
        ),
        list(
            "members_src",
            ColumnType::StrList,
            "cascades: each member's sender",
            |r: &EventRecord<'_>| r.members(|m| m.src.to_string()),
        ),
        list(
            "members_frame",
            ColumnType::IntList,
            "cascades: each member's first frame",
            |r: &EventRecord<'_>| r.members(|m| m.at.frame),
        ),
        list(
            "members_ts_ns",
            ColumnType::IntList,
            "cascades: each member's first time",
            |r: &EventRecord<'_>| r.members(|m| m.at.ts_ns),
        ),
        list(
            "members_joined_ns",
            ColumnType::IntList,
            "cascades: when each member joined",
            |r: &EventRecord<'_>| r.members(|m| m.joined_ns),
        ),
        list(
            "members_joined_after_ns",
            ColumnType::IntList,
            "cascades: each member's delay after the first",
            |r: &EventRecord<'_>| r.members(|m| m.joined_after_ns),
        ),
        text(
            "seen_at",
            "lost_between: capture point that saw it",
            |r: &EventRecord<'_>| match r.details() {
                Details::LostBetween { seen_at, .. } => seen_at.map(str::to_string),
                _ => None,
            },
        ),
        text(
            "missing_at",
            "lost_between: capture point that missed it",
            |r: &EventRecord<'_>| match r.details() {
                Details::LostBetween { missing_at, .. } => missing_at.map(str::to_string),
                _ => None,
            },
        ),
    ];
    RowSchema::new(c)
}
