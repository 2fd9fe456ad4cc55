//! What each fuzz target does with its input, kept apart from the `fuzz_target!` wrappers so
//! that `tests/robustness.rs` can replay saved crash inputs through exactly the same code
//! (it includes this file as a module).
//!
//! Beyond "no panic", the harness checks properties a crash alone would not reveal: a file
//! read through a stream yields the same records, warnings and verdict as the same file read
//! from memory; every JSON line parses; and a decoded packet does not contradict itself.

// Paths spelled out: `tests/robustness.rs` includes this file from another directory.
#[path = "export.rs"]
mod export;
#[path = "filter.rs"]
mod filter;
#[path = "fixture.rs"]
mod fixture;
#[path = "html.rs"]
mod html;
#[path = "info.rs"]
mod info;
#[path = "parsers.rs"]
mod parsers;
#[path = "pipeline.rs"]
mod pipeline;
#[path = "points.rs"]
mod points;
#[path = "render.rs"]
mod render;
#[path = "streams.rs"]
mod streams;
#[path = "writer.rs"]
mod writer;

pub use export::parquet_export;
pub use filter::filter_expr;
pub use html::html_report;
pub use info::info_capture;
pub use parsers::cli_parsers;
pub use pipeline::threaded_pipeline;
pub use points::merge_points;
pub use render::render_packet;
pub use streams::compressed_input;
pub use writer::write_capture;

use std::io::{self, Read};

use rdmadump::analyze::points::plan::Plan;
use rdmadump::analyze::{AnalyzeConfig, Analyzer};
use rdmadump::capture::merge::InputReport;
use rdmadump::capture::{CaptureReader, Input, ReadInput, Record, SliceInput, linktype};
use rdmadump::dissect::{CrcMode, DecodeOptions, Decoder, Kind, Packet, dissect};
use rdmadump::output::time::{Clock, TimeFormat};
use rdmadump::output::{analyze_json, analyze_text, json, text};
use rdmadump::report::Report;

/// The link types the dissector knows, in the order the selector byte picks them.
pub const LINKTYPES: [u32; 9] = [
    linktype::ETHERNET,
    linktype::LINUX_SLL,
    linktype::ERF,
    linktype::INFINIBAND,
    linktype::LINUX_SLL2,
    linktype::RAW,
    linktype::IPV4,
    linktype::IPV6,
    linktype::IPOIB,
];

/// `pcap_reader` and `pcapng_reader`: the input is a whole capture file.
pub fn capture_file(data: &[u8]) {
    let from_memory = read_all(SliceInput::new(data), true);
    // The records are compared, so dissecting them again would only cost time.
    let from_stream = read_all(ReadInput::new(Chunked::new(data), None), false);
    assert_eq!(
        from_memory, from_stream,
        "a stream and a mapping of the same bytes disagree"
    );
}

/// `erf_records`: two bytes of wire length (big-endian), then one ERF record.
pub fn erf_record(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    decode_record(linktype::ERF, u16::from_be_bytes(*len).into(), rest, 0);
}

/// `dissect_all_linktypes`: a selector byte (link type, and in its upper bits the decode
/// options), two bytes of wire length (big-endian), then the frame.
pub fn any_linktype(data: &[u8]) {
    let Some((&[selector, len_hi, len_lo], rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let linktype = LINKTYPES[usize::from(selector) % LINKTYPES.len()];
    let options = selector / LINKTYPES.len() as u8;
    decode_record(
        linktype,
        u16::from_be_bytes([len_hi, len_lo]).into(),
        rest,
        options,
    );
}

fn decode_record(linktype: u32, orig_len: u32, data: &[u8], options: u8) {
    let record = Record {
        data,
        orig_len,
        ts_ns: Some(1_700_000_000_000_000_000),
        linktype,
        iface: 0,
        offset: 0,
    };
    let opts = DecodeOptions {
        // Any port may be configured as RoCE; take one from the frame so the fuzzer can
        // line it up with the UDP header it writes.
        extra_roce_ports: if options & 1 != 0 {
            data.get(..2)
                .map(|p| vec![u16::from_be_bytes([p[0], p[1]])])
                .unwrap_or_default()
        } else {
            Vec::new()
        },
        // Deferred leaves the CRCs to `verify_crcs` below, the path batched reading takes.
        crc: if options & 2 == 0 {
            CrcMode::Inline
        } else {
            CrcMode::Deferred
        },
        ..DecodeOptions::default()
    };
    let mut out = Output::default();
    let frame = u64::from(options) + 1;
    // With bit 2 the decoder knows one connected-mode IPoIB QP, taken from the frame so the
    // fuzzer can line it up with the BTH it writes; without it, it is the stateless decode.
    let decode = |opts: &DecodeOptions| {
        let mut decoder = Decoder::new(opts.clone());
        if options & 4 != 0
            && let Some(&[a, b, c]) = data.first_chunk::<3>()
        {
            decoder.learn_ipoib_qp(u32::from_be_bytes([0, a, b, c]));
        }
        decoder.decode(&record, frame)
    };
    let mut pkt = decode(&opts);
    if opts.crc == CrcMode::Deferred {
        // A packet may be shown before its CRCs are computed; then, once computed, it must
        // be exactly what inline verification gives.
        out.check(&pkt);
        pkt.verify_crcs();
        let inline = DecodeOptions {
            crc: CrcMode::Inline,
            ..opts.clone()
        };
        assert_eq!(
            json_line(&pkt),
            json_line(&decode(&inline)),
            "deferred CRC verification differs from inline"
        );
    }
    out.check(&pkt);
}

fn json_line(pkt: &Packet<'_>) -> String {
    let mut out = Vec::new();
    json::write_packet(&mut out, pkt, None);
    String::from_utf8_lossy(&out).into_owned()
}

/// `analyze_capture`: a whole capture file fed to the analyzer. Interfaces of a pcapng with
/// odd numbers count as a second capture point, so the merge logic (duplicates seen at two
/// points) runs too. The limits are tiny so that flow eviction and the anomaly cap are hit;
/// they are picked from the input's length, which the fuzzer changes freely. Every value is
/// one the command line can produce (`--link-speed 1m` is the slowest link it accepts).
pub fn analyze_capture(data: &[u8]) {
    let Ok(mut reader) = CaptureReader::new(SliceInput::new(data)) else {
        return;
    };
    let n = data.len();
    let config = AnalyzeConfig {
        pmtu: [None, Some(256), Some(1024), Some(4096)][n % 4],
        link_speed_bps: [100_000_000_000, 10_000_000_000, 1_000_000, 800_000_000_000][n / 4 % 4],
        storm_threshold_ns: [100_000_000, 1, 0, u64::MAX][n / 16 % 4],
        max_flows: 1 + n / 64 % 4,
        // The smallest `--memory` evicts by usefulness and drops series.
        memory: [256 << 20, 1 << 16][n / 17 % 2],
        max_pfc_senders: 1 + n / 256 % 4,
        max_anomalies: n / 1024 % 8,
        plan: (n / 4096 % 2 == 1).then(|| Plan::separate(2)),
        single_point: false,
        skew_bound_ns: [100_000_000, 0, 1_000][n / 8192 % 3],
        order: (n / 16384 % 2 == 1).then(|| vec![1, 0]),
        interval_ns: [None, Some(1), Some(1_000)][n / 3 % 3],
        max_buckets: 1 + (n % 5) as u32,
        // What the HTML report draws is recorded on bad input too.
        graphs: n / 7 % 2 == 1,
        // `--qp` names the QPN in the text header.
        qp: (n / 11 % 2 == 1).then_some(n as u32 & 0xff_ffff),
        // `--stall 0ns` makes every silence with requests outstanding a stall.
        stall_ns: [None, Some(0), Some(1_000)][n / 13 % 3],
        dscp_map: rdmadump::analyze::priorities::DscpMap::with(&[(n as u8 & 63, 7)]),
    };
    let mut analyzer = Analyzer::new(config);
    let opts = DecodeOptions::default();
    let mut input = InputReport {
        files: vec!["a.pcap".into(), "b\"\u{1b}[31m.pcap".into()],
        ..InputReport::default()
    };
    while let Ok(true) = reader.advance() {
        let Some(record) = reader.current() else {
            break;
        };
        input.records += 1;
        let pkt = dissect(&record, input.records, &opts);
        analyzer.observe((record.iface % 2) as usize, &pkt);
    }
    input.truncated = reader.was_cut_short();
    analyzer.finish();
    let mut out = Vec::new();
    let report = Report::new(&analyzer, &input);
    analyze_json::write(&mut out, &report).expect("writing to memory cannot fail");
    if let Err(err) = serde_json::from_slice::<serde_json::Value>(&out) {
        panic!(
            "invalid report JSON ({err}): {}",
            String::from_utf8_lossy(&out)
        );
    }
    for (color, width) in [(false, None), (true, Some(40))] {
        let style = analyze_text::Style {
            color,
            width,
            connections: n.is_multiple_of(3).then_some(2),
        };
        analyze_text::render(&report, style);
    }
}

/// Everything one pass over a capture produced, to compare two passes.
#[derive(Debug, PartialEq, Eq, Default)]
pub struct Outcome {
    pub records: Vec<Summary>,
    pub warnings: Vec<String>,
    pub cut_short: bool,
    /// `None` when reading ended normally; else the error as text.
    pub error: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    pub offset: u64,
    pub orig_len: u32,
    pub ts_ns: Option<u64>,
    pub linktype: u32,
    pub iface: u32,
    pub data: Vec<u8>,
}

/// Reads every record, dissecting and rendering each when `decode` is set; stops at the
/// first error, as the command does.
pub fn read_all<I: Input>(input: I, decode: bool) -> Outcome {
    let mut outcome = Outcome::default();
    let mut reader = match CaptureReader::new(input) {
        Ok(reader) => reader,
        Err(err) => {
            outcome.error = Some(err.to_string());
            return outcome;
        }
    };
    let opts = DecodeOptions::default();
    let mut out = Output::default();
    loop {
        let advanced = reader.advance();
        outcome
            .warnings
            .extend(reader.take_warnings().map(|w| w.to_string()));
        match advanced {
            Ok(true) => {}
            Ok(false) => break,
            Err(err) => {
                outcome.error = Some(err.to_string());
                break;
            }
        }
        let Some(record) = reader.current() else {
            panic!("advance() found a record that current() cannot show");
        };
        outcome.records.push(Summary {
            offset: record.offset,
            orig_len: record.orig_len,
            ts_ns: record.ts_ns,
            linktype: record.linktype,
            iface: record.iface,
            data: record.data.to_vec(),
        });
        if decode {
            let frame = outcome.records.len() as u64;
            let pkt = dissect(&record, frame, &opts);
            out.check(&pkt);
        }
    }
    outcome.cut_short = reader.was_cut_short();
    outcome
}

/// Reusable output buffers and one clock per time format, so every format's arithmetic
/// sees the whole sequence of timestamps.
pub struct Output {
    buf: Vec<u8>,
    clocks: [Clock; 3],
}

impl Default for Output {
    fn default() -> Self {
        Output {
            buf: Vec::new(),
            clocks: [
                Clock::new(TimeFormat::Absolute),
                Clock::new(TimeFormat::Relative),
                Clock::new(TimeFormat::Delta),
            ],
        }
    }
}

impl Output {
    /// Renders `pkt` every way the command can, and checks what no input may break.
    pub fn check(&mut self, pkt: &Packet<'_>) {
        assert_eq!(
            pkt.error.is_some(),
            pkt.kind == Kind::Malformed,
            "kind malformed exactly when there is an error: {pkt:?}"
        );
        assert!(
            pkt.error.is_none() || pkt.truncated.is_none(),
            "both malformed and truncated: {pkt:?}"
        );
        if let Some(len) = pkt.payload_len {
            assert!(
                pkt.payload.len() <= len as usize,
                "captured payload longer than payload_len: {pkt:?}"
            );
            if pkt.bth.is_some() && pkt.error.is_none() && pkt.truncated.is_none() {
                assert_eq!(
                    pkt.payload.len(),
                    len as usize,
                    "a complete packet with part of its payload missing: {pkt:?}"
                );
            }
        }

        // The file name is escaped the same way whatever the packet, so once is enough.
        let with_file = pkt.frame <= 1;
        for file in [None, Some("in\"put\n.pcap")] {
            if file.is_some() && !with_file {
                continue;
            }
            self.buf.clear();
            json::write_packet(&mut self.buf, pkt, file);
            let line = self.buf.strip_suffix(b"\n").expect("JSON line ends in \\n");
            assert!(!line.contains(&b'\n'), "JSON output spans lines");
            if let Err(err) = serde_json::from_slice::<serde_json::Value>(line) {
                panic!("invalid JSON ({err}): {}", String::from_utf8_lossy(line));
            }
        }
        // One format per packet: each clock still sees a run of timestamps, at a third of
        // the cost.
        let clock_index = (pkt.frame % 3) as usize;
        {
            let clock = &mut self.clocks[clock_index];
            self.buf.clear();
            let file = with_file.then_some("merged input.pcap");
            text::write_packet(&mut self.buf, pkt, clock, file);
            let line = self.buf.strip_suffix(b"\n").expect("text line ends in \\n");
            assert!(!line.contains(&b'\n'), "text output spans lines");
            assert!(std::str::from_utf8(line).is_ok(), "text output not UTF-8");
        }
    }
}

/// A reader that hands out the bytes in irregular pieces, as pipes do, so that the stream
/// buffer's refill, slide and growth paths all run.
pub struct Chunked<'a> {
    rest: &'a [u8],
    step: usize,
}

const CHUNKS: [usize; 8] = [1, 2, 3, 5, 13, 4096, 7, 65536];

impl<'a> Chunked<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Chunked {
            rest: data,
            step: data.len() % CHUNKS.len(),
        }
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let want = CHUNKS[self.step % CHUNKS.len()];
        self.step += 1;
        let n = want.min(out.len()).min(self.rest.len());
        out[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}
