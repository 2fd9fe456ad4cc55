//! `rdmadump analyze --json`: one JSON document. The key names in docs/json-schema.md are a
//! contract; more may be added, none renamed.

use super::flows::{Flow, FlowKey, FrameRef};
use super::pfc::{ALL_PRIORITIES, Cascade, Storm};
use super::{AnalyzeConfig, Analyzer, AnomalyKind, CrcCounts, What};
use crate::capture::merge::InputReport;
use crate::dissect::Kind;
use crate::output::jsonw::{Obj, Sink, Spilling};
use crate::wire::opcode::{self, Role};

/// Memory one flow costs in the table: its state, plus an index entry with the hash
/// table's control byte and spare capacity (at most 1/8 empty at full load). Growth can
/// leave up to as much again unused until the table fills.
pub fn bytes_per_flow() -> usize {
    let state = std::mem::size_of::<(FlowKey, Flow)>();
    let index = (std::mem::size_of::<(FlowKey, u32)>() + 1) * 8 / 7;
    state + index
}

/// Writes the document to `out` as it is produced: with a million flows it is hundreds of
/// megabytes, which must not be held in memory on top of the flow table.
pub fn write(
    out: impl std::io::Write,
    analyzer: &Analyzer,
    input: &InputReport,
) -> std::io::Result<()> {
    let files = &input.files;
    let mut sink = Spilling::new(out);
    {
        let mut doc = Obj::new(&mut sink);
        {
            let mut capture = doc.obj("capture");
            {
                let mut list = capture.arr("files");
                for name in files {
                    list.str(name);
                }
            }
            capture.u64("packets", input.records);
            capture.u64("analyzed", analyzer.packets);
            if let Some(ts) = analyzer.first_ts {
                capture.seconds("first_ts", ts);
            }
            if let Some(ts) = analyzer.last_ts {
                capture.seconds("last_ts", ts);
            }
            capture.bool("truncated", input.truncated);
        }
        {
            let mut counts = doc.obj("counts");
            for kind in Kind::ALL {
                counts.u64(kind.name(), analyzer.counts.get(kind));
            }
            counts.u64("cnp", analyzer.counts.cnp);
        }
        crc(&mut doc, "icrc", analyzer.icrc);
        crc(&mut doc, "vcrc", analyzer.vcrc);
        doc.u64("ecn_ce", analyzer.ecn_ce);
        congestion(&mut doc, analyzer, files);
        flows(&mut doc, analyzer, files);
        {
            let mut table = doc.obj("flow_table");
            table
                .u64("flows", analyzer.flows.len() as u64)
                .u64("max_flows", analyzer.config.max_flows as u64)
                .u64("evicted", analyzer.flows.evicted)
                .u64("bytes_per_flow", bytes_per_flow() as u64);
        }
        pfc(&mut doc, analyzer, files);
        anomalies(&mut doc, analyzer, files);
    }
    sink.buf().push(b'\n');
    sink.finish()
}

fn crc<S: Sink + ?Sized>(doc: &mut Obj<'_, S>, key: &str, counts: CrcCounts) {
    doc.obj(key)
        .u64("ok", counts.ok)
        .u64("bad", counts.bad)
        .u64("unverifiable", counts.unverifiable);
}

/// The keys naming one frame reference: `frame`/`ts`/`file`, or with a prefix.
struct RefKeys {
    frame: &'static str,
    ts: &'static str,
    file: &'static str,
}

macro_rules! ref_keys {
    ($name:ident, $prefix:literal) => {
        const $name: RefKeys = RefKeys {
            frame: concat!($prefix, "frame"),
            ts: concat!($prefix, "ts"),
            file: concat!($prefix, "file"),
        };
    };
}
ref_keys!(AT, "");
ref_keys!(FIRST, "first_");
ref_keys!(LAST, "last_");
ref_keys!(START, "start_");
ref_keys!(NAK, "nak_");

fn frame_ref<S: Sink + ?Sized>(o: &mut Obj<'_, S>, keys: &RefKeys, at: FrameRef, files: &[String]) {
    o.u64(keys.frame, at.frame);
    if let Some(ts) = at.ts_ns {
        o.seconds(keys.ts, ts);
    }
    if files.len() > 1 {
        o.str(
            keys.file,
            files.get(usize::from(at.file)).map_or("", |s| s.as_str()),
        );
    }
}

fn flow_key<S: Sink + ?Sized>(o: &mut Obj<'_, S>, key: &FlowKey) {
    o.display("src", key.src)
        .display("dst", key.dst)
        .u64("dest_qp", u64::from(key.dest_qp))
        .str("role", key.role.name());
}

fn flows<S: Sink + ?Sized>(doc: &mut Obj<'_, S>, analyzer: &Analyzer, files: &[String]) {
    let mut list = doc.arr("flows");
    for (key, flow) in analyzer.flows.sorted() {
        let mut o = list.obj();
        flow_key(&mut o, key);
        o.u64("packets", flow.packets).u64("bytes", flow.bytes);
        frame_ref(&mut o, &FIRST, flow.first, files);
        frame_ref(&mut o, &LAST, flow.last, files);
        o.u64("first_psn", u64::from(flow.first_psn))
            .u64("last_psn", u64::from(flow.last_psn))
            .u64("psn_gaps", flow.psn_gaps)
            .u64("missing_psns", flow.missing_psns)
            .u64("retransmitted", flow.retransmitted)
            .u64("go_back_n", flow.go_back_n)
            .u64("duplicates", flow.duplicates)
            .u64("naks", flow.naks)
            .u64("nak_seq_err", flow.nak_seq_err)
            .u64("rnr_naks", flow.rnr_naks)
            .u64("ecn_ce", flow.ecn_ce)
            .u64("cnps", flow.cnps);
        if let Some((pmtu, source)) = flow.pmtu_used {
            o.u64("pmtu", u64::from(pmtu))
                .str("pmtu_source", source.name());
        }
        let mut histogram = o.obj("opcodes");
        for (op, count) in flow.opcodes.entries() {
            histogram.u64(opcode::info(op).name, u64::from(count));
        }
        if flow.opcodes.other() > 0 {
            histogram.u64("other", u64::from(flow.opcodes.other()));
        }
    }
}

fn congestion<S: Sink + ?Sized>(doc: &mut Obj<'_, S>, analyzer: &Analyzer, files: &[String]) {
    let mut c = doc.obj("congestion");
    let flows = analyzer.flows.sorted();
    {
        let mut marked = c.arr("ce_flows");
        for (key, flow) in flows.iter().filter(|(_, f)| f.ecn_ce > 0) {
            let mut o = marked.obj();
            flow_key(&mut o, key);
            o.u64("ecn_ce", flow.ecn_ce);
            if let Some(first) = flow.first_ce {
                frame_ref(&mut o, &FIRST, first, files);
            }
        }
    }
    {
        let mut targets = c.arr("cnp_targets");
        for (key, flow) in flows.iter().filter(|(k, _)| k.role == Role::Cnp) {
            let mut o = targets.obj();
            flow_key(&mut o, key);
            o.u64("cnps", flow.cnps);
            frame_ref(&mut o, &FIRST, flow.first, files);
            // The CE marks that caused these CNPs travelled the other way: requests from
            // the CNP's destination to its source.
            let first_ce = flows
                .iter()
                .filter(|(k, f)| {
                    k.role == Role::Request
                        && k.src == key.dst
                        && k.dst == key.src
                        && f.first_ce.is_some()
                })
                .filter_map(|(_, f)| f.first_ce.and_then(|at| at.ts_ns))
                .min();
            if let (Some(ce), Some(cnp)) = (first_ce, flow.first.ts_ns)
                && cnp >= ce
            {
                o.u64("ce_to_cnp_ns", cnp - ce);
            }
        }
    }
    if let Some((at, key)) = &analyzer.first_ce {
        let mut o = c.obj("first_ce");
        flow_key(&mut o, key);
        frame_ref(&mut o, &AT, *at, files);
    }
    if let Some((at, key)) = &analyzer.first_cnp {
        let mut o = c.obj("first_cnp");
        flow_key(&mut o, key);
        frame_ref(&mut o, &AT, *at, files);
    }
    if let (Some((ce, _)), Some((cnp, _))) = (analyzer.first_ce, analyzer.first_cnp)
        && let (Some(ce), Some(cnp)) = (ce.ts_ns, cnp.ts_ns)
        && cnp >= ce
    {
        c.u64("ce_to_cnp_ns", cnp - ce);
    }
}

pub fn priority_name(priority: u8) -> String {
    if priority == ALL_PRIORITIES {
        "all".to_string()
    } else {
        priority.to_string()
    }
}

fn priority<S: Sink + ?Sized>(o: &mut Obj<'_, S>, priority: u8) {
    if priority == ALL_PRIORITIES {
        o.str("priority", "all");
    } else {
        o.u64("priority", u64::from(priority));
    }
}

fn storm<S: Sink + ?Sized>(o: &mut Obj<'_, S>, storm: &Storm, files: &[String]) {
    o.display("src", storm.src);
    priority(o, storm.priority);
    o.seconds("start", storm.start_ns)
        .u64("start_ns", storm.start_ns)
        .seconds("duration", storm.duration_ns)
        .u64("duration_ns", storm.duration_ns)
        .u64("frames", storm.frames);
    frame_ref(o, &START, storm.start, files);
}

fn cascade<S: Sink + ?Sized>(o: &mut Obj<'_, S>, cascade: &Cascade, files: &[String]) {
    priority(o, cascade.priority);
    {
        let mut senders = o.arr("senders");
        for mac in &cascade.senders {
            senders.display(mac);
        }
    }
    if cascade.more_senders > 0 {
        o.u64("more_senders", cascade.more_senders);
    }
    o.seconds("start", cascade.start_ns)
        .u64("start_ns", cascade.start_ns)
        .seconds("duration", cascade.duration_ns)
        .u64("duration_ns", cascade.duration_ns);
    frame_ref(o, &START, cascade.start, files);
}

fn pfc<S: Sink + ?Sized>(doc: &mut Obj<'_, S>, analyzer: &Analyzer, files: &[String]) {
    let tracker = &analyzer.pfc;
    let config: &AnalyzeConfig = &analyzer.config;
    let mut p = doc.obj("pfc");
    p.u64("frames", tracker.pfc_frames)
        .u64("pause_8023x", tracker.pause_frames)
        .u64("link_speed_bps", config.link_speed_bps)
        .u64("storm_threshold_ns", config.storm_threshold_ns)
        .u64("evicted", tracker.evicted)
        .u64("storm_count", tracker.storm_count)
        .u64("cascade_count", tracker.cascade_count);
    {
        let mut senders = p.arr("senders");
        for ((mac, prio), stats) in tracker.sorted_senders() {
            let mut o = senders.obj();
            o.display("src", mac);
            priority(&mut o, *prio);
            o.u64("frames", stats.frames)
                .u64("pause_frames", stats.pause_frames)
                .u64("xon_frames", stats.xon_frames)
                .u64("paused_ns", stats.paused_ns);
        }
    }
    {
        let mut storms = p.arr("storms");
        let mut sorted: Vec<&Storm> = tracker.storms.iter().collect();
        sorted.sort_by_key(|s| (s.start_ns, s.priority));
        for s in sorted {
            storm(&mut storms.obj(), s, files);
        }
    }
    let mut cascades = p.arr("cascades");
    for c in &tracker.cascades {
        cascade(&mut cascades.obj(), c, files);
    }
}

fn anomalies<S: Sink + ?Sized>(doc: &mut Obj<'_, S>, analyzer: &Analyzer, files: &[String]) {
    let sink = &analyzer.anomalies;
    {
        let mut counts = doc.obj("anomaly_counts");
        for kind in AnomalyKind::ALL {
            counts.u64(kind.name(), sink.count(kind));
        }
    }
    doc.u64("anomalies_omitted", sink.total() - sink.kept.len() as u64);
    let mut list = doc.arr("anomalies");
    for anomaly in &sink.kept {
        let mut o = list.obj();
        o.str("kind", anomaly.what.kind().name());
        frame_ref(&mut o, &AT, anomaly.at, files);
        match &anomaly.what {
            What::PsnGap {
                flow,
                psn,
                expected,
                missing,
            } => {
                flow_key(&mut o, flow);
                o.u64("psn", u64::from(*psn))
                    .u64("expected_psn", u64::from(*expected))
                    .u64("missing", u64::from(*missing));
            }
            What::GoBackN {
                flow,
                from_psn,
                to_psn,
                depth,
                nak,
                delay_ns,
            } => {
                flow_key(&mut o, flow);
                o.u64("from_psn", u64::from(*from_psn))
                    .u64("to_psn", u64::from(*to_psn))
                    .u64("depth", u64::from(*depth));
                if let Some(nak) = nak {
                    frame_ref(&mut o, &NAK, *nak, files);
                }
                if let Some(delay) = delay_ns {
                    o.u64("delay_ns", *delay).str(
                        "delay_from",
                        if nak.is_some() {
                            "nak"
                        } else {
                            "previous_packet"
                        },
                    );
                }
            }
            What::Nak { flow, psn, code } => {
                flow_key(&mut o, flow);
                o.u64("psn", u64::from(*psn)).str("code", code.name());
            }
            What::RnrNak { flow, psn, timer } => {
                flow_key(&mut o, flow);
                o.u64("psn", u64::from(*psn))
                    .u64("timer", u64::from(*timer));
            }
            What::IcrcBad(check) | What::VcrcBad(check) => {
                if let Some(stored) = check.stored {
                    o.u64("stored", u64::from(stored));
                }
                if let Some(computed) = check.computed {
                    o.u64("computed", u64::from(computed));
                }
            }
            What::PfcStorm(s) => storm(&mut o, s, files),
            What::PauseCascade(c) => cascade(&mut o, c, files),
            What::Malformed(err) => {
                o.str("layer", err.layer.name())
                    .u64("offset", err.offset as u64)
                    .display("message", err);
            }
        }
    }
}
