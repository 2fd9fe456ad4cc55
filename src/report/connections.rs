//! Connections as report rows: each pairs A's end with B's, and splits the traffic into
//! `a_to_b` (A's requests and B's responses to them) and `b_to_a`.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::values::{Files, serialize_rows};
use crate::analyze::connections::history::EVENTS;
use crate::analyze::connections::{
    ConnectionTable, End, History, HistoryEvent, NAK_CODES, OPS, PairedBy, RATIO_SCALE, Requests,
    Responses, State,
};
use crate::analyze::key::{Cause, FrameRef, Transport, legal_pmtu_at_least};
use crate::analyze::sketch::Sketch;
use crate::dissect::Address;

static NO_REQUESTS: std::sync::LazyLock<Requests> = std::sync::LazyLock::new(Requests::default);
static NO_RESPONSES: std::sync::LazyLock<Responses> = std::sync::LazyLock::new(Responses::default);

/// One connection, borrowed from the table.
#[derive(Clone, Copy)]
pub struct Connection<'a> {
    /// A's end (what B sends to A), when A's QPN is known.
    pub a_end: Option<&'a End>,
    /// B's end (what A sends to B).
    pub b_end: Option<&'a End>,
    pub a_addr: Address,
    pub a_qpn: Option<u32>,
    pub b_addr: Address,
    pub b_qpn: Option<u32>,
}

/// One direction: the requests that arrived at one end, the responses at the other.
#[derive(Clone, Copy)]
pub struct Direction<'a> {
    pub req: &'a Requests,
    pub rsp: &'a Responses,
    /// The inputs, for the frames the JSON names (a stall's end) when there are several.
    pub files: Option<Files<'a>>,
}

impl<'a> Connection<'a> {
    /// Every connection of `table`, in order of first appearance of either end.
    pub fn all(table: &'a ConnectionTable) -> impl Iterator<Item = Connection<'a>> + 'a {
        let ends = table.ends();
        ends.iter().enumerate().filter_map(move |(i, end)| {
            let key = end.key?;
            match end.peer {
                Some(p) if (p as usize) < i => None,
                Some(p) => {
                    let other = ends.get(p as usize)?;
                    let other_key = other.key?;
                    let (a, b, ak, bk) = if end.is_a {
                        (end, other, key, other_key)
                    } else {
                        (other, end, other_key, key)
                    };
                    Some(Connection {
                        a_end: Some(a),
                        b_end: Some(b),
                        a_addr: ak.addr,
                        a_qpn: Some(ak.qpn),
                        b_addr: bk.addr,
                        b_qpn: Some(bk.qpn),
                    })
                }
                // Alone, the end is B's: A sent it requests (or answered its requests)
                // from a QPN the packets do not carry.
                None => Some(Connection {
                    a_end: None,
                    b_end: Some(end),
                    a_addr: key.peer,
                    a_qpn: None,
                    b_addr: key.addr,
                    b_qpn: Some(key.qpn),
                }),
            }
        })
    }

    fn ends(&self) -> impl Iterator<Item = &'a End> {
        self.a_end.into_iter().chain(self.b_end)
    }

    fn main_end(&self) -> &'a End {
        self.b_end.or(self.a_end).expect("a connection has an end")
    }

    pub fn a_to_b(&self) -> Direction<'a> {
        Direction {
            req: self.b_end.map_or(&*NO_REQUESTS, |e| &e.req),
            rsp: self.a_end.map_or(&*NO_RESPONSES, |e| &e.rsp),
            files: None,
        }
    }

    pub fn b_to_a(&self) -> Direction<'a> {
        match (self.a_end, self.b_end) {
            (Some(a), Some(b)) => Direction {
                req: &a.req,
                rsp: &b.rsp,
                files: None,
            },
            // Unpaired: B's end holds A's answers to B's requests.
            (None, Some(b)) => Direction {
                req: &NO_REQUESTS,
                rsp: &b.rsp,
                files: None,
            },
            _ => Direction {
                req: &NO_REQUESTS,
                rsp: &NO_RESPONSES,
                files: None,
            },
        }
    }

    pub fn paired_by(&self) -> PairedBy {
        self.main_end().paired_by
    }

    pub fn transport(&self) -> &'static str {
        // An end that saw neither CM nor a request or response (only CNPs) has not shown
        // its transport: it is reported as RC, as the report always has.
        self.main_end()
            .transport
            .map_or(Transport::Rc.name(), Transport::name)
    }

    pub fn state(&self) -> State {
        self.main_end().state
    }

    /// The path MTU as CM, `--pmtu` or a full-sized packet told it, or else the largest
    /// payload either way rounded up to the next legal PMTU: a lower bound (`inferred`).
    pub fn path_mtu(&self) -> Option<(u32, &'static str)> {
        let known = self.ends().filter_map(|e| e.pmtu).next();
        known.map(|(m, s)| (m, s.name())).or_else(|| {
            let largest = self
                .ends()
                .map(|e| e.req.max_payload.max(e.rsp.max_payload))
                .max()
                .filter(|&p| p > 0)?;
            Some((legal_pmtu_at_least(largest), "inferred"))
        })
    }

    pub fn first(&self) -> FrameRef {
        self.ends()
            .map(|e| e.first)
            .min_by_key(|f| (f.ts_ns, f.file, f.frame))
            .unwrap_or_default()
    }

    pub fn last(&self) -> FrameRef {
        self.ends()
            .map(|e| e.last)
            .max_by_key(|f| (f.ts_ns, f.file, f.frame))
            .unwrap_or_default()
    }

    pub fn history(&self) -> String {
        match (self.a_end, self.b_end) {
            (Some(a), b) => render_history(&a.history, b.map(|b| &b.history)),
            (None, Some(b)) => {
                // B's end alone: its "into" events are A's direction.
                let mut swapped = History::default();
                for (clock, event, into) in b.history.events() {
                    swapped.push(event, !into, clock);
                }
                swapped.dropped = b.history.dropped;
                render_history(&swapped, None)
            }
            (None, None) => String::new(),
        }
    }

    /// The connection's PFC priority and how it was found: from A's requests, else B's.
    pub fn class(&self) -> Option<crate::analyze::priorities::Class> {
        self.a_to_b().req.class.or(self.b_to_a().req.class)
    }

    pub fn candidates(&self) -> u8 {
        self.main_end().candidates
    }

    /// The ends that could have been B's peer, when the two were paired by traffic.
    pub fn pairing_candidates(&self) -> Option<u8> {
        (self.paired_by() == PairedBy::Traffic).then(|| self.candidates())
    }
}

/// A direction whose sender got CNPs, with the sender's name (`addr qp 0x…`).
pub struct CnpSender<'a> {
    pub sender: String,
    pub direction: Direction<'a>,
}

/// Every direction whose sender got CNPs, the most CNPs first (in table order among
/// equals): what the text summary and the HTML congestion table list.
pub fn cnp_senders<'a>(connections: impl Iterator<Item = Connection<'a>>) -> Vec<CnpSender<'a>> {
    let qpn = |q: Option<u32>| q.map_or("?".to_string(), |q| format!("{q:#x}"));
    let mut senders: Vec<CnpSender<'a>> = connections
        .flat_map(|c| {
            [
                (c.a_addr, c.a_qpn, c.a_to_b()),
                (c.b_addr, c.b_qpn, c.b_to_a()),
            ]
        })
        .filter(|(_, _, d)| d.rsp.cnps > 0)
        .map(|(addr, q, direction)| CnpSender {
            sender: format!("{addr} qp {}", qpn(q)),
            direction,
        })
        .collect();
    senders.sort_by_key(|s| std::cmp::Reverse(s.direction.rsp.cnps));
    senders
}

impl<'a> Direction<'a> {
    pub fn messages(&self) -> u64 {
        self.req.messages.iter().map(|&n| u64::from(n)).sum()
    }
    pub fn naks(&self) -> u64 {
        self.rsp.naks.iter().map(|&n| u64::from(n)).sum()
    }

    /// Requests and responses: nothing was seen this way when 0, and the report then has
    /// no numbers for it.
    pub fn packets(&self) -> u64 {
        self.req.packets + self.rsp.packets
    }
    pub fn payload_bytes(&self) -> u64 {
        self.req.payload_bytes + self.rsp.payload_bytes
    }
    pub fn fecn(&self) -> u32 {
        self.req.fecn + self.rsp.fecn
    }
    pub fn becn(&self) -> u32 {
        self.req.becn + self.rsp.becn
    }

    pub fn message_bytes(&self) -> Summary<'a> {
        Summary::new(&self.req.message_bytes, SIZES)
    }
    pub fn rtt(&self) -> Summary<'a> {
        Summary::new(&self.rsp.rtt, FULL)
    }
    pub fn read_latency_first(&self) -> Summary<'a> {
        Summary::new(&self.rsp.read_first, FULL)
    }
    pub fn read_latency_last(&self) -> Summary<'a> {
        Summary::new(&self.rsp.read_last, FULL)
    }
    pub fn atomic_latency(&self) -> Summary<'a> {
        Summary::new(&self.rsp.atomic, FULL)
    }
    pub fn nak_to_retx(&self) -> Summary<'a> {
        Summary::new(&self.req.nak_to_retx, MIN_P50_MAX)
    }
    pub fn cnp_interval(&self) -> Summary<'a> {
        Summary::new(&self.rsp.cnp_interval, MIN_P50)
    }
    pub fn ce_to_cnp(&self) -> Summary<'a> {
        Summary::new(&self.rsp.ce_to_cnp, MIN_P50_MAX)
    }
    pub fn ce_per_cnp(&self) -> Summary<'a> {
        Summary::new(&self.rsp.ce_per_cnp, MIN_P50_MAX)
    }
    /// The sender's rate in the window before each CNP it got.
    pub fn rate_before_cnp(&self) -> Summary<'a> {
        Summary::new(self.req.reaction.before_bps(), MIN_P50_MAX)
    }
    /// The sender's rate in the window after each CNP it got.
    pub fn rate_after_cnp(&self) -> Summary<'a> {
        Summary::new(self.req.reaction.after_bps(), MIN_P50_MAX)
    }
    /// The median of after over before, per CNP: 0.5 when the sender halves its rate.
    pub fn rate_cut_after_cnp(&self) -> Option<f64> {
        self.rate_cut_after_cnp_ppm()
            .map(|p50| p50 as f64 / RATIO_SCALE)
    }
    /// [`Self::rate_cut_after_cnp`] in millionths.
    pub fn rate_cut_after_cnp_ppm(&self) -> Option<u64> {
        self.req.reaction.rate_cut().quantile(0.5)
    }
    /// CNPs whose rate before and after were both measured.
    pub fn rate_cut_samples(&self) -> u64 {
        self.req.reaction.rate_cut().count()
    }
    /// What the capture missed of this direction's sequenced packets.
    pub fn capture_loss(&self) -> crate::analyze::capture_loss::Counts {
        self.req.capture.counts
    }

    /// Retransmission episodes (go-backs and single retransmissions) of one cause.
    pub fn retransmissions(&self, cause: Cause) -> u32 {
        self.req.causes.count(cause)
    }

    /// Retransmission episodes, all causes together.
    pub fn retransmission_episodes(&self) -> u32 {
        self.req.causes.total()
    }

    /// The time retransmissions cost this direction: the sum of the episodes' waits.
    pub fn retx_wait_ns(&self) -> u64 {
        self.req.causes.wait_ns
    }

    /// What the timeouts show of the sender's ACK timer; none without a timeout.
    pub fn timeout(&self) -> Option<Timeouts> {
        let c = &self.req.causes;
        let count = c.count(Cause::Timeout);
        (count > 0).then(|| {
            let inferred = c.inferred_timeout();
            Timeouts {
                count,
                inferred_timeout_ns: inferred.map(|(ns, _)| ns),
                k: inferred.map(|(_, k)| k),
                backoff: c.backoff(),
                max_retries: c.max_retries,
            }
        })
    }

    /// The retries after RNR NAKs: what the NAKs asked for and what the sender waited.
    pub fn rnr_retries(&self) -> Option<RnrRetries> {
        let c = &self.req.causes;
        let count = c.count(Cause::Rnr);
        (count > 0).then_some(RnrRetries {
            count,
            asked_ns: c.rnr_asked_ns,
            waited_ns: c.rnr_waited_ns,
        })
    }

    /// Time stalled: silences with requests outstanding longer than the threshold.
    pub fn stall_ns(&self) -> u64 {
        self.req.stalls.stall_ns()
    }
    pub fn stall_count(&self) -> u64 {
        self.req.stalls.stall_count()
    }
    /// Time between packets with nothing outstanding.
    pub fn idle_ns(&self) -> u64 {
        self.req.stalls.idle_ns
    }
    /// Time the direction's priority was paused during its silences with requests
    /// outstanding (of at least 20 µs, or `--stall`): stalls and shorter silences alike.
    pub fn paused_ns(&self) -> u64 {
        self.req.stalls.paused_ns()
    }
    /// Silences with requests outstanding, longer than the stall threshold, that ended
    /// with a packet showing traffic the capture missed: how many, and their total time.
    /// They are not stalls.
    pub fn unseen_silences(&self) -> SilenceTally {
        let (count, ns) = self.req.stalls.unseen();
        SilenceTally { count, ns }
    }
    /// Silences longer than the stall threshold, ended by a new request, on a capture that
    /// misses packets of the connection: an ACK the capture missed may have left nothing
    /// outstanding in them. They are not counted as stalls.
    pub fn unconfirmed_stalls(&self) -> SilenceTally {
        let (count, ns) = self.req.stalls.unconfirmed();
        SilenceTally { count, ns }
    }
    /// The silence a stall must exceed; none for a direction that never fell silent.
    pub fn stall_threshold_ns(&self) -> Option<u64> {
        self.req.stalls.silences.as_ref().map(|s| s.threshold_ns)
    }
    /// The longest stalls, longest first.
    pub fn stalls(&self) -> &'a [crate::analyze::connections::stall::Silence] {
        self.req.stalls.longest()
    }
}

/// A count of silences and their total time: see [`Direction::unseen_silences`] and
/// [`Direction::unconfirmed_stalls`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SilenceTally {
    pub count: u64,
    pub ns: u64,
}

/// Retransmission episodes of both directions with their causes, as the text and HTML
/// tables write them: `3 (2 nak, 1 timeout)`, or `2 timeout` when they share one, or `0`.
pub fn retx_causes(ab: &Direction<'_>, ba: &Direction<'_>) -> String {
    let causes: Vec<String> = Cause::ALL
        .into_iter()
        .map(|c| (ab.retransmissions(c) + ba.retransmissions(c), c.name()))
        .filter(|&(n, _)| n > 0)
        .map(|(n, c)| format!("{n} {c}"))
        .collect();
    match causes.as_slice() {
        [] => "0".to_string(),
        [one] => one.clone(),
        several => {
            let total = ab.retransmission_episodes() + ba.retransmission_episodes();
            format!("{total} ({})", several.join(", "))
        }
    }
}

/// A direction's timeout retransmissions, as the JSON `timeout` object gives them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Timeouts {
    pub count: u32,
    /// 4.096 µs × 2^k for the k nearest the shortest wait; from two timeouts or more.
    pub inferred_timeout_ns: Option<u64>,
    pub k: Option<u8>,
    /// Whether a PSN's repeated waits doubled; null when no PSN timed out twice.
    pub backoff: Option<bool>,
    /// The most timeouts one PSN took in a row.
    pub max_retries: u32,
}

/// A direction's retries after RNR NAKs, sums over them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RnrRetries {
    pub count: u32,
    pub asked_ns: u64,
    pub waited_ns: u64,
}

/// Episodes by cause, every cause named.
struct ByCause<'a>(&'a Direction<'a>);

impl Serialize for ByCause<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Cause::ALL.len()))?;
        for cause in Cause::ALL {
            map.serialize_entry(cause.name(), &self.0.retransmissions(cause))?;
        }
        map.end()
    }
}

/// A distribution as the report gives it: `{samples, min, p50, p99, max}`, or fewer keys
/// for the rarer measures; `null` without samples.
#[derive(Clone, Copy)]
pub struct Summary<'a> {
    sketch: &'a Sketch,
    keys: &'static [&'static str],
}

const FULL: &[&str] = &["samples", "min", "p50", "p99", "max"];
const SIZES: &[&str] = &["min", "p50", "p99", "max"];
const MIN_P50_MAX: &[&str] = &["samples", "min", "p50", "max"];
const MIN_P50: &[&str] = &["samples", "min", "p50"];

impl<'a> Summary<'a> {
    fn new(sketch: &'a Sketch, keys: &'static [&'static str]) -> Self {
        Summary { sketch, keys }
    }

    /// The value the report gives under `key` (`samples`, `min`, `p50`, `p99`, `max`):
    /// none without samples, nor for a key this measure does not give.
    pub fn get(&self, key: &str) -> Option<u64> {
        let s = self.sketch;
        if s.count() == 0 || !self.keys.contains(&key) {
            return None;
        }
        match key {
            "samples" => Some(s.count()),
            "min" => s.min(),
            "p50" => s.quantile(0.5),
            "p99" => s.quantile(0.99),
            _ => s.max(),
        }
    }
}

impl Serialize for Summary<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.sketch.count() == 0 {
            return serializer.serialize_none();
        }
        let mut map = serializer.serialize_map(Some(self.keys.len()))?;
        for &key in self.keys {
            if key == "samples" {
                map.serialize_entry(key, &self.sketch.count())?;
            } else {
                map.serialize_entry(key, &self.get(key))?;
            }
        }
        map.end()
    }
}

struct Counts<'a, const N: usize>(&'a [u32; N], &'static [&'static str; N]);

impl<const N: usize> Serialize for Counts<'_, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (name, &n) in self.1.iter().zip(self.0) {
            if n > 0 {
                map.serialize_entry(name, &n)?;
            }
        }
        map.end()
    }
}

impl Serialize for Direction<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (q, r) = (self.req, self.rsp);
        if self.packets() == 0 {
            // Nothing seen this way (or the far end's QPN is unknown): no numbers to give.
            return serializer.serialize_none();
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("packets", &self.packets())?;
        map.serialize_entry("payload_bytes", &self.payload_bytes())?;
        map.serialize_entry("messages", &Counts(&q.messages, &OPS))?;
        map.serialize_entry("message_bytes", &self.message_bytes())?;
        map.serialize_entry("first_ts_ns", &q.first_ts)?;
        map.serialize_entry("last_ts_ns", &q.last_ts)?;
        map.serialize_entry("active_ns", &q.active_ns)?;
        map.serialize_entry("goodput_bps", &q.goodput_bps())?;
        map.serialize_entry("rtt_ns", &self.rtt())?;
        map.serialize_entry(
            "read_latency_ns",
            &ReadLatency {
                first: self.read_latency_first(),
                last: self.read_latency_last(),
            },
        )?;
        map.serialize_entry("atomic_latency_ns", &self.atomic_latency())?;
        map.serialize_entry("psn_gaps", &q.psn_gaps)?;
        map.serialize_entry("missing_psns", &q.missing_psns)?;
        map.serialize_entry("retransmitted", &q.retransmitted)?;
        map.serialize_entry("go_back_n", &q.go_back_n)?;
        map.serialize_entry("go_back_0", &q.go_back_0)?;
        map.serialize_entry("naks", &Counts(&r.naks, &NAK_CODES))?;
        map.serialize_entry("rnr_naks", &r.rnr_naks)?;
        map.serialize_entry("nak_to_retx_ns", &self.nak_to_retx())?;
        map.serialize_entry("retransmissions_by_cause", &ByCause(self))?;
        map.serialize_entry("retx_wait_ns", &self.retx_wait_ns())?;
        map.serialize_entry("timeout", &self.timeout())?;
        map.serialize_entry("rnr_retries", &self.rnr_retries())?;
        map.serialize_entry("max_outstanding_psns", &q.max_outstanding_psns)?;
        map.serialize_entry("ecn_ce", &q.ecn_ce)?;
        map.serialize_entry("fecn", &self.fecn())?;
        map.serialize_entry("becn", &self.becn())?;
        map.serialize_entry("cnps", &r.cnps)?;
        map.serialize_entry("cnp_interval_ns", &self.cnp_interval())?;
        map.serialize_entry("ce_to_cnp_ns", &self.ce_to_cnp())?;
        map.serialize_entry("ce_per_cnp", &self.ce_per_cnp())?;
        map.serialize_entry("rate_before_cnp_bps", &self.rate_before_cnp())?;
        map.serialize_entry("rate_after_cnp_bps", &self.rate_after_cnp())?;
        map.serialize_entry(
            "rate_cut_after_cnp",
            &self.rate_cut_after_cnp().map(|p50| RateCut {
                samples: self.rate_cut_samples(),
                p50,
            }),
        )?;
        map.serialize_entry("capture_loss", &self.capture_loss())?;
        map.serialize_entry("stall_ns", &self.stall_ns())?;
        map.serialize_entry("stall_count", &self.stall_count())?;
        map.serialize_entry("stall_threshold_ns", &self.stall_threshold_ns())?;
        map.serialize_entry("idle_ns", &self.idle_ns())?;
        map.serialize_entry("paused_ns", &self.paused_ns())?;
        map.serialize_entry(
            "stalls",
            &super::stalls::StallRows(self.stalls(), self.files),
        )?;
        map.serialize_entry("unseen_silences", &self.unseen_silences())?;
        map.serialize_entry("unconfirmed_stalls", &self.unconfirmed_stalls())?;
        if let Some(timeline) = q.timeline() {
            map.serialize_entry("timeline", timeline)?;
        }
        map.end()
    }
}

/// `after / before` of the sender's rate around its CNPs.
#[derive(Serialize)]
struct RateCut {
    samples: u64,
    p50: f64,
}

struct ReadLatency<'a> {
    first: Summary<'a>,
    last: Summary<'a>,
}

impl Serialize for ReadLatency<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("first", &self.first)?;
        map.serialize_entry("last", &self.last)?;
        map.end()
    }
}

#[derive(Serialize)]
struct EndId {
    addr: String,
    qpn: Option<u32>,
}

/// A connection as the JSON `connections` array writes it; `files` names the input of
/// the first and last frames when there are several.
pub struct ConnectionRow<'a> {
    pub conn: Connection<'a>,
    pub file_names: Option<(&'a str, &'a str)>,
    pub files: Files<'a>,
    pub place: Option<super::rank::Place>,
}

impl Serialize for ConnectionRow<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = &self.conn;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("transport", c.transport())?;
        map.serialize_entry(
            "a",
            &EndId {
                addr: c.a_addr.to_string(),
                qpn: c.a_qpn,
            },
        )?;
        map.serialize_entry(
            "b",
            &EndId {
                addr: c.b_addr.to_string(),
                qpn: c.b_qpn,
            },
        )?;
        map.serialize_entry("paired_by", c.paired_by().name())?;
        if let Some(candidates) = c.pairing_candidates() {
            map.serialize_entry("pairing_candidates", &candidates)?;
        }
        let pmtu = c.path_mtu();
        map.serialize_entry("path_mtu", &pmtu.map(|p| p.0))?;
        map.serialize_entry("path_mtu_source", &pmtu.map(|p| p.1))?;
        map.serialize_entry("state", c.state().name())?;
        let class = c.class();
        map.serialize_entry("priority", &class.map(|c| c.priority))?;
        map.serialize_entry("priority_source", &class.map(|c| c.source.name()))?;
        map.serialize_entry("first_frame", &c.first().frame)?;
        map.serialize_entry("last_frame", &c.last().frame)?;
        if let Some((first, last)) = self.file_names {
            map.serialize_entry("first_file", first)?;
            map.serialize_entry("last_file", last)?;
        }
        map.serialize_entry("history", &c.history())?;
        if let Some(place) = &self.place {
            map.serialize_entry("rank", &place.rank)?;
            map.serialize_entry("time_lost_ns", &place.time_lost.total_ns())?;
            map.serialize_entry("time_lost", &place.time_lost)?;
            let vs = place.goodput_vs_median;
            map.serialize_entry("goodput_vs_median", &vs.map(|v| v.0))?;
            map.serialize_entry("goodput_median_of", &vs.map(|v| v.1.name()))?;
        }
        let files = Some(self.files);
        map.serialize_entry(
            "a_to_b",
            &Direction {
                files,
                ..c.a_to_b()
            },
        )?;
        map.serialize_entry(
            "b_to_a",
            &Direction {
                files,
                ..c.b_to_a()
            },
        )?;
        map.end()
    }
}

/// Every connection, as the report's `connections` array (in order of appearance, each
/// with its `rank`).
pub struct Connections<'a> {
    pub table: &'a ConnectionTable,
    pub files: Files<'a>,
    pub ranking: super::rank::Ranking,
}

impl<'a> Connections<'a> {
    pub fn new(table: &'a ConnectionTable, files: Files<'a>) -> Self {
        Connections {
            table,
            files,
            ranking: super::rank::Ranking::of(Connection::all(table)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = ConnectionRow<'a>> + '_ {
        let files = self.files;
        Connection::all(self.table)
            .enumerate()
            .map(move |(i, conn)| {
                let file_names = files
                    .name(conn.first().file)
                    .zip(files.name(conn.last().file));
                ConnectionRow {
                    conn,
                    file_names,
                    files,
                    place: self.ranking.place(i).copied(),
                }
            })
    }

    /// The connections worst first, with their places.
    pub fn ranked(&self) -> Vec<(Connection<'a>, super::rank::Place)> {
        let all: Vec<Connection<'a>> = Connection::all(self.table).collect();
        self.ranking
            .order()
            .iter()
            .filter_map(|&i| Some((*all.get(i)?, *self.ranking.place(i)?)))
            .collect()
    }
}

impl Serialize for Connections<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_rows(serializer, None, self.iter())
    }
}

/// Merges the two ends' histories into the connection's string: upper case for events of
/// A's requests (arriving at B's end) and of B's answers to them (arriving at A's end).
fn render_history(a_end: &History, b_end: Option<&History>) -> String {
    let mut all: Vec<(u64, HistoryEvent, bool)> = Vec::with_capacity(2 * EVENTS);
    for (clock, event, into) in a_end.events() {
        // At A's end, "into" events belong to B's direction.
        all.push((clock, event, !into));
    }
    if let Some(b) = b_end {
        all.extend(b.events());
    }
    all.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(all.len() + 1);
    let mut last = 0u8;
    for (_, event, a_dir) in all {
        // The handshake and the disconnect belong to both directions: upper case.
        let both = matches!(event, HistoryEvent::Handshake | HistoryEvent::Disconnect);
        let shown = if a_dir || both {
            event.letter().to_ascii_uppercase()
        } else {
            event.letter()
        };
        if shown != last {
            out.push(char::from(shown));
            last = shown;
        }
    }
    let dropped = a_end.dropped + b_end.map_or(0, |b| b.dropped);
    if dropped > 0 {
        out.push('+');
    }
    out
}
