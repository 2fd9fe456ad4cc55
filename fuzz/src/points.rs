//! `merge_points`: one arbitrary capture split into up to 32 files, as capture points of
//! the same traffic with their own clocks, then what `analyze A B ...` does with them: the
//! skew estimation that tells the points apart, the k-way merge on the reference clock, and
//! the analysis of the merged packets.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::PathBuf;

use rdmadump::analyze::key::FlowKey;
use rdmadump::analyze::points::plan::{self, Plan};
use rdmadump::analyze::points::skew::SkewEstimator;
use rdmadump::analyze::points::{Identity, MAX_POINTS};
use rdmadump::analyze::{AnalyzeConfig, Analyzer};
use rdmadump::capture::merge::{Merger, open_sources};
use rdmadump::capture::write::PcapNgWriter;
use rdmadump::capture::{CaptureReader, InterfaceInfo, SliceInput, TsResolution};
use rdmadump::filter::PacketFilter;
use rdmadump::output::analyze_json;
use rdmadump::pipeline::{PipelineError, PipelineOptions, Silent, for_each_packet};
use rdmadump::report::Report;

use super::fixture;

/// Steps between the points' clocks, picked by the mode byte.
const CLOCK_STEPS: [i64; 4] = [0, 1_000, -50_000, 3_000_000];

/// Input: the number of files (1 to 32), a mode byte (how records are spread, copied and
/// shifted), then a capture whose records are split among the files.
pub fn merge_points(data: &[u8]) {
    let Some((&[files, mode], capture)) = data.split_first_chunk::<2>() else {
        return;
    };
    let files = usize::from(files % 32) + 1;
    let Some(paths) = split(capture, files, mode) else {
        return;
    };
    let bound_ns = [100_000_000, 1_000, 0][usize::from(mode >> 6) % 3];
    let options = PipelineOptions {
        threads: 1,
        verify_crcs: false,
        ..PipelineOptions::default()
    };
    // The matching pass of `analyze` (commands/points.rs), with `--offset` on the last file
    // when the mode asks for it.
    let mut estimator = SkewEstimator::new(files, bound_ns);
    let _ = for_each_packet(
        &paths,
        &options,
        &mut Silent,
        &PacketFilter::default(),
        |file, pkt| {
            if let (Some(key), Some(bth), Some(ts)) = (FlowKey::of(pkt), pkt.bth, pkt.ts_ns) {
                let len = pkt.payload_len.unwrap_or(0);
                let id = Identity::new(&key, bth.psn(), bth.opcode(), len);
                let data = SkewEstimator::is_data(&key, bth.opcode());
                estimator.observe(file as u16, ts, &key, id, data);
            }
            Ok::<_, PipelineError>(ControlFlow::Continue(()))
        },
    );
    // `--offset` needs several inputs.
    let mut manual = vec![None; files];
    if mode & 8 != 0 && files > 1 {
        manual[files - 1] = Some(CLOCK_STEPS[usize::from(mode >> 4) % 4]);
    }
    let plan = plan::plan(estimator, &manual);
    check_plan(&plan, &manual);
    let offsets = plan.file_offsets_ns();
    check_merge(&paths, &offsets);
    if plan.points() > MAX_POINTS {
        // `analyze` refuses these, and says so.
        return;
    }
    let config = AnalyzeConfig {
        plan: (plan.points() > 1).then_some(plan),
        skew_bound_ns: bound_ns,
        max_flows: 4,
        ..AnalyzeConfig::default()
    };
    let mut analyzer = Analyzer::new(config);
    let options = PipelineOptions { offsets, ..options };
    let input = for_each_packet(
        &paths,
        &options,
        &mut Silent,
        &PacketFilter::default(),
        |file, pkt| {
            analyzer.observe(file, pkt);
            Ok::<_, PipelineError>(ControlFlow::Continue(()))
        },
    )
    .expect("one thread has no worker to lose");
    analyzer.finish();
    let report = Report::new(&analyzer, &input);
    let mut out = Vec::new();
    analyze_json::write(&mut out, &report).expect("writing to memory cannot fail");
    if let Err(err) = serde_json::from_slice::<serde_json::Value>(&out) {
        panic!("invalid report JSON ({err})");
    }
}

/// Writes the records of `capture` into `files` pcapng files: each record to one file, and
/// (by the mode) a copy to the next, each file's times shifted by its own clock offset.
fn split(capture: &[u8], files: usize, mode: u8) -> Option<Vec<PathBuf>> {
    let mut reader = CaptureReader::new(SliceInput::new(capture)).ok()?;
    let step = CLOCK_STEPS[usize::from(mode >> 4) % 4];
    // Each file's writer, and its interface for each link type.
    type Split = (PcapNgWriter<Vec<u8>>, HashMap<u32, u32>);
    let mut writers: Vec<Split> = (0..files)
        .map(|_| {
            let writer = PcapNgWriter::new(Vec::new(), "fuzz").expect("writing to memory");
            (writer, HashMap::new())
        })
        .collect();
    let mut n = 0usize;
    while let Ok(true) = reader.advance() {
        let Some(record) = reader.current() else {
            break;
        };
        let first = (n * (usize::from(mode & 7) + 1) + n / 3) % files;
        let copy = (mode & 8 != 0 || n % 2 == 1).then_some((first + 1) % files);
        for file in std::iter::once(first).chain(copy.filter(|&c| c != first)) {
            let shift = step * file as i64;
            let ts = record.ts_ns.map(|ts| ts.saturating_add_signed(shift));
            let (writer, ids) = &mut writers[file];
            let id = match ids.get(&record.linktype) {
                Some(&id) => id,
                None => {
                    let interface = InterfaceInfo {
                        linktype: record.linktype,
                        snaplen: 0,
                        resolution: TsResolution::NANO,
                    };
                    let id = writer.add_interface(interface).ok()?;
                    ids.insert(record.linktype, id);
                    id
                }
            };
            writer
                .write(id, ts, record.orig_len, record.data)
                .expect("writing to memory");
        }
        n += 1;
    }
    let dir = fixture::scratch_dir();
    let paths = writers
        .into_iter()
        .enumerate()
        .map(|(file, (writer, _))| {
            let path = dir.join(format!("point-{file}.pcapng"));
            std::fs::write(&path, writer.into_inner()).expect("write a point's file");
            path
        })
        .collect();
    Some(paths)
}

/// A plan puts every file at one point, numbers the points from 0 without gaps, and gives
/// the first file's point no offset unless `--offset` gave it one.
fn check_plan(plan: &Plan, manual: &[Option<i64>]) {
    let files = manual.len();
    assert_eq!(plan.point_of.len(), files, "a point for every file");
    let points = plan.points();
    assert!(
        (1..=files).contains(&points),
        "{points} points for {files} files"
    );
    for point in 0..points {
        assert!(
            plan.files_of(point).next().is_some(),
            "point {point} has no file: {:?}",
            plan.point_of
        );
    }
    let offsets = plan.file_offsets_ns();
    assert_eq!(offsets.len(), files, "an offset for every file");
    assert_eq!(
        offsets[0],
        manual[0].unwrap_or(0),
        "the first file is the reference clock"
    );
}

/// The merge hands out the record earliest on the reference clock, ties in input order,
/// and every record of every file exactly once.
fn check_merge(paths: &[PathBuf], offsets: &[i64]) {
    let mut expected = 0u64;
    for path in paths {
        let bytes = std::fs::read(path).expect("read a point's file");
        let mut reader = CaptureReader::new(SliceInput::new(&bytes)).expect("a written file");
        while let Ok(true) = reader.advance() {
            expected += 1;
        }
    }
    let mut opened = Vec::new();
    let mut sources = open_sources(paths, false, &mut opened);
    let mut merger = Merger::open(paths, &mut sources, opened);
    merger.set_offsets(offsets);
    let on_reference = |ts: Option<u64>, index: usize| {
        i128::from(ts.unwrap_or(0)) - i128::from(offsets.get(index).copied().unwrap_or(0))
    };
    let mut merged = 0u64;
    let mut frames = vec![0u64; paths.len()];
    while let Some((index, frame)) = merger.next_record() {
        merged += 1;
        frames[index] += 1;
        assert_eq!(
            frame, frames[index],
            "frames of input {index} counted in order"
        );
        let chosen = merger.current(index).expect("the chosen input's record");
        let at = on_reference(chosen.ts_ns, index).clamp(0, i128::from(u64::MAX));
        for other in (0..paths.len()).filter(|&o| o != index) {
            if let Some(record) = merger.current(other) {
                let then = on_reference(record.ts_ns, other).clamp(0, i128::from(u64::MAX));
                assert!(
                    at < then || at == then && index < other,
                    "input {index} at {at} chosen before input {other} at {then}"
                );
            }
        }
        merger.advance(index);
    }
    assert_eq!(merged, expected, "the merge lost or repeated records");
}
