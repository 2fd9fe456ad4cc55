//! `threaded_pipeline`: an arbitrary capture through the input loop on one thread, on two
//! (a reading thread), and on four (helpers decoding batches side by side), mapped and
//! streamed, with and without `-c N`. What `read` prints is the same every way.

use std::ops::ControlFlow;
use std::path::PathBuf;

use rdmadump::filter::PacketFilter;
use rdmadump::filter::time::{TimeBound, TimeWindow};
use rdmadump::output::json;
use rdmadump::pipeline::{Batch, PipelineError, PipelineOptions, Silent, for_each_batch};

use super::fixture;

/// Selections `read -Y` might be given, picked by the mode byte.
const FILTERS: [Option<&str>; 5] = [
    None,
    Some("bth"),
    Some("kind == roce_v2 or kind == ib"),
    Some("bth.psn > 5 and not mad"),
    Some("frame.len > 60"),
];

/// Input: a mode byte (filter, `-c`, `--since`), then a capture file.
pub fn threaded_pipeline(data: &[u8]) {
    let Some((&mode, capture)) = data.split_first() else {
        return;
    };
    let path = fixture::scratch_dir().join("threaded_pipeline.bin");
    std::fs::write(&path, capture).expect("write the scratch file");
    let paths = [path];
    let filter = FILTERS[usize::from(mode) % FILTERS.len()];
    let limit = (mode & 0x40 != 0).then_some(u64::from(mode >> 3 & 7));
    let since = (mode & 0x80 != 0).then_some(TimeBound::Relative(1_000));
    let reference = run(&paths, 1, true, filter, limit, since);
    for (threads, mmap) in [(1, false), (2, true), (2, false), (4, true)] {
        let got = run(&paths, threads, mmap, filter, limit, since);
        assert_eq!(
            got.0,
            reference.0,
            "{threads} threads{} print other lines than one",
            if mmap { "" } else { ", streamed" }
        );
        if limit.is_none() {
            assert_eq!(got.1, reference.1, "{threads} threads read other records");
        }
    }
}

/// The lines `read --json` prints, and the records read, failed and truncated.
fn run(
    paths: &[PathBuf],
    threads: usize,
    mmap: bool,
    filter: Option<&str>,
    limit: Option<u64>,
    since: Option<TimeBound>,
) -> (Vec<u8>, (u64, bool, bool)) {
    let options = PipelineOptions {
        threads,
        mmap,
        ..PipelineOptions::default()
    };
    let filter = PacketFilter::new(filter, None, None).expect("the filters compile");
    let window = TimeWindow::new(since, None);
    let mut printed = Vec::new();
    let mut shown = 0u64;
    let limit = limit.unwrap_or(u64::MAX);
    let report = for_each_batch(
        paths,
        &options,
        &mut Silent,
        |batch: &mut Batch<'_>| {
            rdmadump::pipeline::verify_and_select(batch, &window, &filter);
            for (_, pkt) in &batch.packets {
                json::write_packet(&mut batch.out, pkt, None);
                batch.ends.push(batch.out.len());
            }
        },
        |batch: &mut Batch<'_>| {
            for (i, &end) in batch.ends.iter().enumerate() {
                if shown == limit {
                    return Ok(ControlFlow::Break(()));
                }
                let start = i.checked_sub(1).map_or(0, |p| batch.ends[p]);
                printed.extend_from_slice(&batch.out[start..end]);
                shown += 1;
            }
            Ok::<_, PipelineError>(ControlFlow::Continue(()))
        },
    )
    .expect("a worker thread stopped");
    (printed, (report.records, report.failed, report.truncated))
}
