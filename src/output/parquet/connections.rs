//! The `connections` dataset: one row per connection and direction, with what `analyze
//! --json` says of both, and one per UD or RD flow, which has no connection.

use crate::analyze::connections::stall::Silence;
use crate::analyze::connections::{NAK_CODES, OPS};
use crate::analyze::key::{Cause, Transport};
use crate::dissect::Address;
use crate::report::connections::{ConnectionRow, Direction, Summary};
use crate::report::flows::FlowRow;

use super::columns::{ColumnType, Table};
use super::rows::{RowColumn, RowSchema, column, int, list, shown, text};

/// One row of the dataset.
pub enum ConnectionRecord<'a> {
    /// One direction of a connection: A's requests and B's answers (`a_to_b`), or B's and
    /// A's.
    Direction {
        capture: &'a str,
        connection: &'a ConnectionRow<'a>,
        direction: Direction<'a>,
        /// True for `a_to_b`.
        from_a: bool,
    },
    /// A flow of a datagram transport.
    Flow {
        capture: &'a str,
        flow: FlowRow<'a>,
        transport: Transport,
    },
}

impl<'a> ConnectionRecord<'a> {
    /// The rows of a connection: one per direction that saw traffic.
    pub fn of_connection(
        capture: &'a str,
        connection: &'a ConnectionRow<'a>,
    ) -> impl Iterator<Item = ConnectionRecord<'a>> {
        let c = &connection.conn;
        [(c.a_to_b(), true), (c.b_to_a(), false)]
            .into_iter()
            // The report has no numbers for a direction without traffic.
            .filter(|(direction, _)| direction.packets() > 0)
            .map(move |(direction, from_a)| ConnectionRecord::Direction {
                capture,
                connection,
                direction,
                from_a,
            })
    }

    /// The connection's place in the ranking; none for a flow.
    fn place(&self) -> Option<crate::report::rank::Place> {
        match self {
            ConnectionRecord::Direction { connection, .. } => connection.place,
            ConnectionRecord::Flow { .. } => None,
        }
    }

    /// The row of a flow of a datagram transport (UD or RD), which no connection counts;
    /// none for another flow.
    pub fn of_flow(capture: &'a str, flow: FlowRow<'a>) -> Option<ConnectionRecord<'a>> {
        let transport = datagram_transport(&flow)?;
        Some(ConnectionRecord::Flow {
            capture,
            flow,
            transport,
        })
    }

    fn capture(&self) -> &'a str {
        match self {
            ConnectionRecord::Direction { capture, .. }
            | ConnectionRecord::Flow { capture, .. } => capture,
        }
    }

    /// The connection, the direction, and whether it is A's.
    fn direction(&self) -> Option<(&'a ConnectionRow<'a>, &Direction<'a>, bool)> {
        match self {
            ConnectionRecord::Direction {
                connection,
                direction,
                from_a,
                ..
            } => Some((connection, direction, *from_a)),
            ConnectionRecord::Flow { .. } => None,
        }
    }

    /// The end whose requests the direction counts: its address and QPN.
    fn requester(&self) -> Option<(Address, Option<u32>)> {
        let (c, _, from_a) = self.direction()?;
        let conn = &c.conn;
        Some(if from_a {
            (conn.a_addr, conn.a_qpn)
        } else {
            (conn.b_addr, conn.b_qpn)
        })
    }

    /// The end that answers them.
    fn responder(&self) -> Option<(Address, Option<u32>)> {
        let (c, _, from_a) = self.direction()?;
        let conn = &c.conn;
        Some(if from_a {
            (conn.b_addr, conn.b_qpn)
        } else {
            (conn.a_addr, conn.a_qpn)
        })
    }

    fn flow(&self) -> Option<&FlowRow<'a>> {
        match self {
            ConnectionRecord::Flow { flow, .. } => Some(flow),
            ConnectionRecord::Direction { .. } => None,
        }
    }

    fn first_frame(&self) -> u64 {
        match self {
            ConnectionRecord::Direction { connection, .. } => connection.conn.first().frame,
            ConnectionRecord::Flow { flow, .. } => flow.flow.first.frame,
        }
    }
}

/// The transport of a flow whose every opcode is a datagram's, by the opcodes' transport
/// bits: UD or RD, never both. Opcodes pooled as `other` are not known to be either.
fn datagram_transport(flow: &FlowRow<'_>) -> Option<Transport> {
    let (entries, other) = flow.opcodes().entries();
    if other > 0 {
        return None;
    }
    let mut transport = None;
    for (op, _) in entries {
        let this = Transport::of_opcode(op)
            .filter(|t| matches!(t, Transport::Ud | Transport::Rd))
            .filter(|_| crate::wire::opcode::info(op).known)?;
        if transport.is_some_and(|t| t != this) {
            return None;
        }
        transport = Some(this);
    }
    transport
}

type Column<'a> = RowColumn<ConnectionRecord<'a>>;

/// A count of the direction, none for a flow.
fn direction_int<'a, T: super::rows::ToCell>(
    name: &str,
    about: &str,
    get: impl Fn(&Direction<'_>) -> T + 'static,
) -> Column<'a> {
    int(name, about, move |r: &ConnectionRecord<'_>| {
        r.direction().map(|(_, d, _)| get(d))
    })
}

/// A count that connection directions and flows both have.
fn shared_int<'a, T: super::rows::ToCell>(
    name: &str,
    about: &str,
    of_direction: impl Fn(&Direction<'_>) -> T + 'static,
    of_flow: impl Fn(&FlowRow<'_>) -> T + 'static,
) -> Column<'a> {
    int(name, about, move |r: &ConnectionRecord<'_>| match r {
        ConnectionRecord::Direction { direction, .. } => Some(of_direction(direction)),
        ConnectionRecord::Flow { flow, .. } => Some(of_flow(flow)),
    })
}

/// The columns of a distribution: `name_samples`, `_min`, `_p50`, `_p99` when asked for,
/// `_max`. A column is null where the report gives no such value.
fn stats<'a>(
    columns: &mut Vec<Column<'a>>,
    name: &str,
    about: &str,
    with_p99: bool,
    get: for<'x, 'y> fn(&'y Direction<'x>) -> Summary<'x>,
) {
    for key in ["samples", "min", "p50", "p99", "max"] {
        if key == "p99" && !with_p99 {
            continue;
        }
        columns.push(int(
            &format!("{name}_{key}"),
            &format!("{about}: {key}"),
            move |r: &ConnectionRecord<'_>| r.direction().and_then(|(_, d, _)| get(d).get(key)),
        ));
    }
}

/// A list column with one item per stall of the direction, longest first, as the JSON
/// `stalls` list gives them.
fn stall_list<'a, T: super::rows::ToCell + 'static>(
    name: &str,
    ty: ColumnType,
    about: &str,
    get: fn(&Silence) -> T,
) -> Column<'a> {
    list(name, ty, about, move |r: &ConnectionRecord<'_>| {
        r.direction()
            .map(|(_, d, _)| d.stalls().iter().map(get).collect::<Vec<_>>())
    })
}

/// The direction's longest stalls, a list column per key of the JSON `stalls` items.
fn stall_lists(c: &mut Vec<Column<'_>>) {
    use ColumnType::{IntList, StrList};
    c.extend([
        stall_list("stalls_start_ns", IntList, "each stall's start", |s| {
            s.start_ns
        }),
        stall_list("stalls_duration_ns", IntList, "each stall's length", |s| {
            s.duration_ns
        }),
        stall_list(
            "stalls_end_frame",
            IntList,
            "the frame that ended each stall",
            |s| s.frame,
        ),
        stall_list(
            "stalls_ended_by",
            StrList,
            "ack, nak, rnr_nak, retransmission, rnr_retry or request",
            |s| s.ended_by.name(),
        ),
        stall_list(
            "stalls_after",
            StrList,
            "nak or rnr_nak when the stall began with one, else null",
            |s| s.began_with.map(|b| b.name()),
        ),
        stall_list(
            "stalls_priority",
            IntList,
            "the priority whose pauses each stall was measured against",
            |s| s.priority,
        ),
        stall_list(
            "stalls_paused_ns",
            IntList,
            "how long that priority was paused during each stall",
            |s| s.paused_ns,
        ),
        stall_list(
            "stalls_paused_by",
            StrList,
            "the sender that paused it longest during each stall",
            |s| s.paused_by.map(|m| m.to_string()),
        ),
        stall_list(
            "stalls_cnp",
            IntList,
            "1 when a CNP reached the requester during the stall",
            |s| u8::from(s.cnp),
        ),
    ]);
}

/// The `connections` dataset's columns.
pub fn connection_schema<'a>() -> RowSchema<ConnectionRecord<'a>> {
    let mut c: Vec<Column<'a>> = vec![
        text(
            "capture",
            "the capture file's name, without its directory",
            |r: &ConnectionRecord<'_>| r.capture().to_string(),
        ),
        text(
            "record",
            "connection (one direction of a QP pair) or flow (UD or RD traffic)",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { .. } => "connection",
                ConnectionRecord::Flow { .. } => "flow",
            },
        ),
        int(
            "frame",
            "the row's first frame (first_frame), to find it in Wireshark",
            |r: &ConnectionRecord<'_>| r.first_frame(),
        ),
        text(
            "transport",
            "rc, uc, xrc (connections); ud, rd (flows)",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { connection, .. } => connection.conn.transport(),
                ConnectionRecord::Flow { transport, .. } => transport.name(),
            },
        ),
        text(
            "direction",
            "a_to_b or b_to_a: whose requests the row counts (connections)",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .map(|(_, _, from_a)| if from_a { "a_to_b" } else { "b_to_a" })
            },
        ),
        shown(
            "src",
            "the requester's address: A's for a_to_b (GID or IP)",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { .. } => r.requester().map(|(addr, _)| addr),
                ConnectionRecord::Flow { flow, .. } => Some(flow.key.src),
            },
        ),
        shown(
            "dst",
            "the responder's address",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { .. } => r.responder().map(|(addr, _)| addr),
                ConnectionRecord::Flow { flow, .. } => Some(flow.key.dst),
            },
        ),
        int(
            "src_qpn",
            "the requester's QPN, when known",
            |r: &ConnectionRecord<'_>| r.requester().and_then(|(_, qpn)| qpn),
        ),
        int(
            "dest_qp",
            "the responder's QPN: the requests' BTH destination QP",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { .. } => r.responder().and_then(|(_, qpn)| qpn),
                ConnectionRecord::Flow { flow, .. } => Some(flow.key.dest_qp),
            },
        ),
        shown("a_addr", "end A's address", |r: &ConnectionRecord<'_>| {
            r.direction().map(|(c, _, _)| c.conn.a_addr)
        }),
        int(
            "a_qpn",
            "end A's QPN, when known",
            |r: &ConnectionRecord<'_>| r.direction().and_then(|(c, _, _)| c.conn.a_qpn),
        ),
        shown("b_addr", "end B's address", |r: &ConnectionRecord<'_>| {
            r.direction().map(|(c, _, _)| c.conn.b_addr)
        }),
        int("b_qpn", "end B's QPN", |r: &ConnectionRecord<'_>| {
            r.direction().and_then(|(c, _, _)| c.conn.b_qpn)
        }),
        text(
            "paired_by",
            "cm, traffic or unpaired: how the two ends were matched",
            |r: &ConnectionRecord<'_>| r.direction().map(|(c, _, _)| c.conn.paired_by().name()),
        ),
        int(
            "pairing_candidates",
            "ends that could have been B's peer, when paired by traffic",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .and_then(|(c, _, _)| c.conn.pairing_candidates())
            },
        ),
        int(
            "path_mtu",
            "path MTU in bytes",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .and_then(|(c, _, _)| c.conn.path_mtu())
                    .map(|p| p.0)
            },
        ),
        text(
            "path_mtu_source",
            "cm, option, packets or inferred",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .and_then(|(c, _, _)| c.conn.path_mtu())
                    .map(|p| p.1)
            },
        ),
        text(
            "state",
            "the connection's CM state at the end of the capture",
            |r: &ConnectionRecord<'_>| r.direction().map(|(c, _, _)| c.conn.state().name()),
        ),
        int(
            "first_frame",
            "first frame of the connection (or flow)",
            |r: &ConnectionRecord<'_>| r.first_frame(),
        ),
        int(
            "last_frame",
            "last frame of the connection (or flow)",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { connection, .. } => connection.conn.last().frame,
                ConnectionRecord::Flow { flow, .. } => flow.flow.last.frame,
            },
        ),
        text(
            "history",
            "what happened, one letter per event, as `analyze` shows it",
            |r: &ConnectionRecord<'_>| r.direction().map(|(c, _, _)| c.conn.history()),
        ),
        int(
            "rank",
            "the connection's place by time lost, 1 for the worst (both rows of a connection)",
            |r: &ConnectionRecord<'_>| r.place().map(|p| p.rank),
        ),
        int(
            "time_lost_ns",
            "stall + retransmission waits + paused time of the connection, both directions \
             (the parts overlap: it ranks, it is not wall time)",
            |r: &ConnectionRecord<'_>| r.place().map(|p| p.time_lost.total_ns()),
        ),
        int(
            "time_lost_stall_ns",
            "the connection's stall time, both directions",
            |r: &ConnectionRecord<'_>| r.place().map(|p| p.time_lost.stall_ns),
        ),
        int(
            "time_lost_retx_wait_ns",
            "the waits of the connection's retransmission episodes, both directions",
            |r: &ConnectionRecord<'_>| r.place().map(|p| p.time_lost.retx_wait_ns),
        ),
        int(
            "time_lost_paused_ns",
            "the time the connection's priority was paused with requests outstanding",
            |r: &ConnectionRecord<'_>| r.place().map(|p| p.time_lost.paused_ns),
        ),
        int(
            "goodput_vs_median_ppm",
            "goodput of the busier direction over the median's, in millionths",
            |r: &ConnectionRecord<'_>| {
                r.place()
                    .and_then(|p| p.goodput_vs_median)
                    .map(|(v, _)| (v * 1e6).round() as u64)
            },
        ),
        text(
            "goodput_median_of",
            "the median goodput_vs_median is against: host_pair or capture",
            |r: &ConnectionRecord<'_>| {
                r.place()
                    .and_then(|p| p.goodput_vs_median)
                    .map(|(_, of)| of.name())
            },
        ),
        shared_int(
            "packets",
            "packets in this direction",
            |d| d.packets(),
            |f| f.flow.packets,
        ),
        direction_int("payload_bytes", "request and response payload bytes", |d| {
            d.payload_bytes()
        }),
    ];
    for (i, op) in OPS.into_iter().enumerate() {
        c.push(direction_int(
            &format!("messages_{op}"),
            &format!("{op} messages"),
            move |d| d.req.messages[i],
        ));
    }
    stats(
        &mut c,
        "message_bytes",
        "message size in bytes",
        true,
        |d| d.message_bytes(),
    );
    c.extend([
        int(
            "first_ts_ns",
            "first packet, nanoseconds since the epoch",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { direction, .. } => direction.req.first_ts,
                ConnectionRecord::Flow { flow, .. } => flow.flow.first.ts_ns,
            },
        ),
        int(
            "last_ts_ns",
            "last packet, nanoseconds since the epoch",
            |r: &ConnectionRecord<'_>| match r {
                ConnectionRecord::Direction { direction, .. } => direction.req.last_ts,
                ConnectionRecord::Flow { flow, .. } => flow.flow.last.ts_ns,
            },
        ),
        direction_int("active_ns", "last minus first packet", |d| d.req.active_ns),
        direction_int(
            "goodput_bps",
            "this direction's new payload (no retransmissions), bits per second of active_ns",
            |d| d.req.goodput_bps(),
        ),
    ]);
    stats(&mut c, "rtt_ns", "request to acknowledgement", true, |d| {
        d.rtt()
    });
    stats(
        &mut c,
        "read_latency_ns_first",
        "READ request to first response",
        true,
        |d| d.read_latency_first(),
    );
    stats(
        &mut c,
        "read_latency_ns_last",
        "READ request to last response",
        true,
        |d| d.read_latency_last(),
    );
    stats(
        &mut c,
        "atomic_latency_ns",
        "atomic request to its acknowledgement",
        true,
        |d| d.atomic_latency(),
    );
    c.extend([
        shared_int(
            "psn_gaps",
            "PSN gaps in the requests",
            |d| d.req.psn_gaps,
            |f| f.flow.psn_gaps,
        ),
        shared_int(
            "missing_psns",
            "PSNs skipped by the gaps",
            |d| d.req.missing_psns,
            |f| f.flow.missing_psns,
        ),
        shared_int(
            "retransmitted",
            "retransmitted request packets",
            |d| d.req.retransmitted,
            |f| f.flow.retransmitted,
        ),
        shared_int(
            "go_back_n",
            "go-back-N episodes",
            |d| d.req.go_back_n,
            |f| f.flow.go_back_n,
        ),
        direction_int(
            "go_back_0",
            "retransmissions from the first unacknowledged PSN",
            |d| d.req.go_back_0,
        ),
    ]);
    for (i, code) in NAK_CODES.into_iter().enumerate() {
        c.push(direction_int(
            &format!("naks_{code}"),
            &format!("NAKs: {code}"),
            move |d| d.rsp.naks[i],
        ));
    }
    c.push(shared_int(
        "rnr_naks",
        "RNR NAKs",
        |d| d.rsp.rnr_naks,
        |f| f.flow.rnr_naks,
    ));
    stats(
        &mut c,
        "nak_to_retx_ns",
        "NAK to the retransmission it asked for",
        true,
        |d| d.nak_to_retx(),
    );
    for cause in Cause::ALL {
        c.push(direction_int(
            &format!("retransmissions_by_cause_{}", cause.name()),
            &format!("retransmission episodes caused by: {}", cause.name()),
            move |d| d.retransmissions(cause),
        ));
    }
    c.extend([
        direction_int(
            "retx_wait_ns",
            "the sum of the retransmission episodes' waits",
            |d| d.retx_wait_ns(),
        ),
        direction_int("timeout_count", "retransmissions after a timeout", |d| {
            d.timeout().map(|t| t.count)
        }),
        direction_int(
            "timeout_inferred_timeout_ns",
            "the local ACK timeout the timeouts show: 4.096 us x 2^k",
            |d| d.timeout().and_then(|t| t.inferred_timeout_ns),
        ),
        direction_int("timeout_k", "that timeout's k", |d| {
            d.timeout().and_then(|t| t.k)
        }),
        column(
            "timeout_backoff",
            ColumnType::Bool,
            "whether a PSN's repeated timeouts doubled their wait",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .and_then(|(_, d, _)| d.timeout())
                    .and_then(|t| t.backoff)
            },
        ),
        direction_int(
            "timeout_max_retries",
            "the most timeouts one PSN took in a row",
            |d| d.timeout().map(|t| t.max_retries),
        ),
        direction_int("rnr_retries_count", "retries after an RNR NAK", |d| {
            d.rnr_retries().map(|r| r.count)
        }),
        direction_int(
            "rnr_retries_asked_ns",
            "the waits the RNR NAKs asked for, summed",
            |d| d.rnr_retries().map(|r| r.asked_ns),
        ),
        direction_int(
            "rnr_retries_waited_ns",
            "the waits before the retries after RNR NAKs, summed",
            |d| d.rnr_retries().map(|r| r.waited_ns),
        ),
    ]);
    c.extend([
        direction_int(
            "max_outstanding_psns",
            "most request PSNs outstanding at once",
            |d| d.req.max_outstanding_psns,
        ),
        shared_int(
            "ecn_ce",
            "CE-marked packets",
            |d| d.req.ecn_ce,
            |f| f.flow.ecn_ce,
        ),
        shared_int(
            "fecn",
            "packets with the BTH FECN bit",
            |d| d.fecn(),
            |f| f.flow.fecn,
        ),
        shared_int(
            "becn",
            "packets with the BTH BECN bit",
            |d| d.becn(),
            |f| f.flow.becn,
        ),
        shared_int(
            "cnps",
            "CNPs sent back to the requester",
            |d| d.rsp.cnps,
            |f| f.flow.cnps,
        ),
    ]);
    stats(&mut c, "cnp_interval_ns", "time between CNPs", false, |d| {
        d.cnp_interval()
    });
    stats(
        &mut c,
        "ce_to_cnp_ns",
        "CE-marked packet to its CNP",
        false,
        |d| d.ce_to_cnp(),
    );
    stats(
        &mut c,
        "ce_per_cnp",
        "CE marks each CNP answered",
        false,
        |d| d.ce_per_cnp(),
    );
    stats(
        &mut c,
        "rate_before_cnp_bps",
        "sender's request payload rate in the 50 us before a CNP",
        false,
        |d| d.rate_before_cnp(),
    );
    stats(
        &mut c,
        "rate_after_cnp_bps",
        "sender's request payload rate in the 50 us after a CNP",
        false,
        |d| d.rate_after_cnp(),
    );
    c.extend([
        direction_int(
            "rate_cut_after_cnp_samples",
            "CNPs with the sender's rate known before and after",
            |d| (d.rate_cut_samples() > 0).then(|| d.rate_cut_samples()),
        ),
        // The datasets have no floating-point column: the ratio is in millionths.
        direction_int(
            "rate_cut_after_cnp_p50_ppm",
            "median of after-rate over before-rate per CNP, in millionths",
            |d| d.rate_cut_after_cnp_ppm(),
        ),
    ]);
    c.extend([
        direction_int(
            "capture_loss_missed",
            "requests and READ responses the capture missed although the responder acknowledged them",
            |d| d.capture_loss().missed,
        ),
        direction_int(
            "capture_loss_expected",
            "requests and READ responses captured, plus capture_loss_missed",
            |d| d.capture_loss().expected(),
        ),
        direction_int(
            "capture_loss_unconfirmed",
            "skipped PSNs neither acknowledged nor repaired",
            |d| d.capture_loss().unconfirmed,
        ),
        int(
            "priority",
            "the connection's PFC priority: VLAN PCP, else DSCP through --dscp-map",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .and_then(|(c, _, _)| c.conn.class())
                    .map(|class| class.priority)
            },
        ),
        text(
            "priority_source",
            "pcp or dscp: where priority came from",
            |r: &ConnectionRecord<'_>| {
                r.direction()
                    .and_then(|(c, _, _)| c.conn.class())
                    .map(|class| class.source.name())
            },
        ),
        direction_int(
            "stall_ns",
            "time stalled: silences with requests outstanding longer than the threshold",
            |d| d.stall_ns(),
        ),
        direction_int("stall_count", "stalls", |d| d.stall_count()),
        int(
            "stall_threshold_ns",
            "the silence a stall exceeds (--stall, or 4 x p99 RTT and at least 20 us)",
            |r: &ConnectionRecord<'_>| r.direction().and_then(|(_, d, _)| d.stall_threshold_ns()),
        ),
        direction_int(
            "idle_ns",
            "time between packets with nothing outstanding",
            |d| d.idle_ns(),
        ),
        direction_int(
            "paused_ns",
            "time the priority was paused during silences with requests outstanding",
            |d| d.paused_ns(),
        ),
        direction_int(
            "unseen_silences_count",
            "silences ended by a packet showing traffic the capture missed: not stalls",
            |d| d.unseen_silences().count,
        ),
        direction_int(
            "unseen_silences_ns",
            "their total time",
            |d| d.unseen_silences().ns,
        ),
        direction_int(
            "unconfirmed_stalls_count",
            "silences a new request ended on a capture missing packets: an unseen ACK may have made them idle",
            |d| d.unconfirmed_stalls().count,
        ),
        direction_int(
            "unconfirmed_stalls_ns",
            "their total time",
            |d| d.unconfirmed_stalls().ns,
        ),
    ]);
    stall_lists(&mut c);
    // Flow rows: what `analyze --json` `flows[]` has and a connection row lacks.
    c.extend([
        text(
            "role",
            "request, response or cnp (flows)",
            |r: &ConnectionRecord<'_>| r.flow().map(|f| f.key.role.name()),
        ),
        int(
            "bytes",
            "frame bytes (flows)",
            |r: &ConnectionRecord<'_>| r.flow().map(|f| f.flow.bytes),
        ),
        int(
            "first_psn",
            "first PSN (flows)",
            |r: &ConnectionRecord<'_>| r.flow().map(|f| f.flow.first_psn),
        ),
        int(
            "last_psn",
            "last PSN (flows)",
            |r: &ConnectionRecord<'_>| r.flow().map(|f| f.flow.last_psn),
        ),
        int(
            "duplicates",
            "duplicate packets (flows)",
            |r: &ConnectionRecord<'_>| r.flow().map(|f| f.flow.duplicates),
        ),
        int("naks", "NAKs (flows)", |r: &ConnectionRecord<'_>| {
            r.flow().map(|f| f.flow.naks)
        }),
        int(
            "nak_seq_err",
            "PSN sequence error NAKs (flows)",
            |r: &ConnectionRecord<'_>| r.flow().map(|f| f.flow.nak_seq_err),
        ),
        int(
            "pmtu",
            "path MTU used for PSN accounting (flows)",
            |r: &ConnectionRecord<'_>| r.flow().and_then(|f| f.pmtu()),
        ),
        text(
            "pmtu_source",
            "where pmtu came from (flows)",
            |r: &ConnectionRecord<'_>| r.flow().and_then(|f| f.pmtu_source()),
        ),
        list(
            "opcodes_name",
            ColumnType::StrList,
            "opcode names, in order of first appearance (flows)",
            |r: &ConnectionRecord<'_>| {
                r.flow().map(|f| {
                    let (entries, _) = f.opcodes().entries();
                    entries
                        .map(|(op, _)| crate::wire::opcode::info(op).name)
                        .collect::<Vec<_>>()
                })
            },
        ),
        list(
            "opcodes_packets",
            ColumnType::IntList,
            "packets of each opcode in opcodes_name (flows)",
            |r: &ConnectionRecord<'_>| {
                r.flow().map(|f| {
                    let (entries, _) = f.opcodes().entries();
                    entries.map(|(_, packets)| packets).collect::<Vec<_>>()
                })
            },
        ),
    ]);
    RowSchema::new(c)
}

/// The `connections` table of one capture's report, directions then flows without one,
/// handed to `emit` a record batch of `batch_rows` rows at a time, the last one shorter:
/// what `export` writes and what the Python package returns.
pub fn connection_batches<E: From<arrow_schema::ArrowError>>(
    report: &crate::report::Report<'_>,
    capture: &str,
    batch_rows: usize,
    mut emit: impl FnMut(arrow_array::RecordBatch) -> Result<(), E>,
) -> Result<(), E> {
    let connections: Vec<_> = report.connections.iter().collect();
    // After the rows it reads: a schema's columns read rows of one lifetime.
    let schema = connection_schema();
    let mut table = Table::new(&schema.specs());
    let directions = connections
        .iter()
        .flat_map(|connection| ConnectionRecord::of_connection(capture, connection));
    let flows = report
        .flows
        .iter()
        .filter_map(|flow| ConnectionRecord::of_flow(capture, flow));
    for record in directions.chain(flows) {
        schema.push(&mut table, &record);
        if table.rows() >= batch_rows {
            emit(table.finish()?)?;
        }
    }
    emit(table.finish()?)
}
