//! Where a packet's time goes, stage by stage, on one thread: the ns-per-packet table of
//! docs/performance.md. It runs the stages of `analyze --json` and `read --json` over a
//! capture, a batch of packets at a time as the pipeline does, and times each stage of each
//! batch apart.
//!
//!   cargo run --release --example stages -- target/bench/roce_1k.pcap
//!
//! A stage is serial when the design needs the packets in order and the state carried from
//! one packet to the next (the container walk; the analysis, as it stands; the write); the
//! others see one packet at a time and can run on any core. Decoding is serial on two
//! threads, where the reading thread decodes as it reads; from three, batches are decoded
//! on the helpers, and what a batch learns (IPoIB QPs) is settled in order by the consumer.
//! The pipeline runs the two serial chains (reading, consuming) side by side, so the table
//! ends with the speedup that allows each command on 2 and 16 threads.

use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use rdmadump::analyze::{AnalyzeConfig, Analyzer};
use rdmadump::capture::merge::InputReport;
use rdmadump::capture::{CaptureReader, Mapped, Record, SliceInput};
use rdmadump::dissect::{CrcMode, DecodeOptions, Decoder, Packet};
use rdmadump::filter::PacketFilter;
use rdmadump::output::{analyze_json, json};
use rdmadump::report::Report;

/// As the pipeline's batch.
const BATCH: usize = 512;

#[derive(Clone, Copy)]
enum Stage {
    Walk,
    Decode,
    Crc,
    Filter,
    Analyze,
    Render,
    Write,
}

const STAGES: [(Stage, &str, bool); 7] = [
    (Stage::Walk, "container walk (pcap records)", true),
    (
        Stage::Decode,
        "decode (dissect, no CRCs; serial on 2 threads only)",
        false,
    ),
    (Stage::Crc, "ICRC/VCRC", false),
    (Stage::Filter, "filter (none given)", false),
    (Stage::Analyze, "analyze (observe)", true),
    (Stage::Render, "JSON render (read --json)", false),
    (Stage::Write, "write (read --json, to /dev/null)", true),
];

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/bench/roce_1k.pcap".into());
    let file = File::open(&path)?;
    let mapping = Mapped::map(&file)?;
    let mut reader = CaptureReader::new(SliceInput::over_mapping(&mapping))?;
    let mut decoder = Decoder::new(DecodeOptions {
        crc: CrcMode::Deferred,
        ..DecodeOptions::default()
    });
    let filter = PacketFilter::default();
    let mut analyzer = Analyzer::new(AnalyzeConfig::default());
    let mut sink = File::create("/dev/null")?;
    let mut spent = [Duration::ZERO; STAGES.len()];
    let mut records: Vec<Record<'_>> = Vec::with_capacity(BATCH);
    let mut packets: Vec<Packet<'_>> = Vec::with_capacity(BATCH);
    let mut out = Vec::new();
    let mut count = 0u64;
    let mut frame = 0u64;
    loop {
        let start = Instant::now();
        records.clear();
        while records.len() < BATCH && reader.advance()? {
            records.extend(reader.current_mapped());
        }
        spent[Stage::Walk as usize] += start.elapsed();
        if records.is_empty() {
            break;
        }
        let start = Instant::now();
        packets.clear();
        for record in &records {
            frame += 1;
            packets.push(Packet::default());
            if let Some(slot) = packets.last_mut() {
                decoder.decode_into(slot, record, frame);
            }
        }
        spent[Stage::Decode as usize] += start.elapsed();
        let start = Instant::now();
        for pkt in &mut packets {
            pkt.verify_crcs();
        }
        spent[Stage::Crc as usize] += start.elapsed();
        let start = Instant::now();
        packets.retain(|pkt| filter.matches(pkt));
        spent[Stage::Filter as usize] += start.elapsed();
        let start = Instant::now();
        for pkt in &packets {
            analyzer.observe(0, pkt);
        }
        spent[Stage::Analyze as usize] += start.elapsed();
        let start = Instant::now();
        out.clear();
        for pkt in &packets {
            json::write_packet(&mut out, pkt, None);
        }
        spent[Stage::Render as usize] += start.elapsed();
        let start = Instant::now();
        sink.write_all(&out)?;
        spent[Stage::Write as usize] += start.elapsed();
        count += packets.len() as u64;
    }
    let start = Instant::now();
    analyzer.finish();
    let input = InputReport {
        files: vec![path.clone()],
        records: count,
        ..InputReport::default()
    };
    let mut report_bytes = Vec::new();
    analyze_json::write(&mut report_bytes, &Report::new(&analyzer, &input))?;
    black_box(&report_bytes);
    let report = start.elapsed();

    let per_packet = |d: Duration| d.as_nanos() as f64 / count.max(1) as f64;
    println!("{count} packets of {path}, one thread\n");
    println!("| stage | ns/packet | serial |");
    println!("|---|---:|---|");
    for ((_, name, serial), d) in STAGES.iter().zip(spent) {
        let kind = if *serial { "yes" } else { "no" };
        println!("| {name} | {:.1} | {kind} |", per_packet(d));
    }
    println!(
        "| analyze finish + JSON report | {:.1} | yes |",
        per_packet(report)
    );
    // Which stages each command runs, on which serial chain of the pipeline: the reading
    // thread walks (and decodes, on two threads), the calling thread consumes (analyses,
    // or writes), and the rest goes to whichever thread is free. On n threads a packet
    // costs at least the longer chain, and at least the total over n.
    let commands: [(&str, &[Stage], &[Stage], Duration); 2] = [
        (
            "analyze --json",
            &[Stage::Crc, Stage::Filter],
            &[Stage::Analyze],
            report,
        ),
        (
            "read --json",
            &[Stage::Crc, Stage::Filter, Stage::Render],
            &[Stage::Write],
            Duration::ZERO,
        ),
    ];
    let ns = |stage: Stage| per_packet(spent[stage as usize]);
    let walk = ns(Stage::Walk);
    let decode = ns(Stage::Decode);
    println!(
        "\n| command | ns/packet, 1 thread | reading chain, 2 / 3+ threads | consuming chain \
         | serial fraction, 16 threads | bound on 2 / 16 threads |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, parallel, consuming, extra) in commands {
        let consuming: f64 = consuming.iter().map(|&s| ns(s)).sum::<f64>() + per_packet(extra);
        let total = walk + decode + consuming + parallel.iter().map(|&s| ns(s)).sum::<f64>();
        let reading = |n: f64| if n <= 2.0 { walk + decode } else { walk };
        let bound = |n: f64| total / reading(n).max(consuming).max(total / n);
        println!(
            "| {name} | {total:.1} | {:.1} / {walk:.1} | {consuming:.1} | {:.2} | {:.2} x / {:.2} x |",
            walk + decode,
            (walk + consuming) / total,
            bound(2.0),
            bound(16.0)
        );
    }
    Ok(())
}
