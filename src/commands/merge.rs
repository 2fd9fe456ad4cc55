//! Reading every input in timestamp order: the streaming loop, and for memory-mapped inputs
//! a pipelined one that verifies CRCs on a second core.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::mpsc;

use super::{InputReport, Progress, display_path};
use crate::capture::{AnyReader, Source};
use crate::cli::InputArgs;
use crate::dissect::{CrcMode, DecodeOptions, Packet, dissect};
use crate::filter::PacketFilter;

/// Packets decoded per batch on the pipelined path: large enough that handing a batch to
/// the other thread costs nothing per packet, small enough to stay in cache.
const BATCH: usize = 2048;

/// Batches in flight between the decoding thread and the CRC thread.
const IN_FLIGHT: usize = 2;

struct Merger<'m> {
    readers: Vec<Option<(AnyReader<'m>, u64)>>,
    report: InputReport,
    progress: Progress,
}

impl<'m> Merger<'m> {
    fn open(paths: &[PathBuf], sources: &'m mut [Option<Source>], report: InputReport) -> Self {
        let mut merger = Merger {
            readers: Vec::with_capacity(paths.len()),
            report,
            progress: Progress::new(0),
        };
        for (source, path) in sources.iter_mut().zip(paths) {
            let opened = source.as_mut().map(AnyReader::open);
            let reader = match opened {
                Some(Ok(mut reader)) => match reader.advance() {
                    Ok(_) => Some((reader, 0)),
                    Err(err) => merger.fail(&display_path(path), &err),
                },
                Some(Err(err)) => merger.fail(&display_path(path), &err),
                None => None,
            };
            merger.readers.push(reader);
        }
        let total = merger
            .readers
            .iter()
            .flatten()
            .filter_map(|(r, _)| r.len_hint())
            .sum();
        merger.progress = Progress::new(total);
        merger
    }

    fn fail<T>(&mut self, name: &str, err: &dyn std::fmt::Display) -> Option<T> {
        eprintln!("rdmadump: {name}: {err}");
        self.report.failed = true;
        None
    }

    fn all_mapped(&self) -> bool {
        self.readers.iter().flatten().all(|(r, _)| r.is_mapped())
    }

    /// The input whose current record is earliest, with its next frame number. A record
    /// without a timestamp (pcapng SPB) goes first, so it stays next to its neighbours;
    /// ties keep command-line order.
    fn next(&mut self) -> Option<(usize, u64)> {
        if self.report.records.is_multiple_of(super::PROGRESS_EVERY) {
            let done = self
                .readers
                .iter()
                .flatten()
                .map(|(r, _)| r.position())
                .sum();
            self.progress.update(done, self.report.records);
        }
        let mut next: Option<(usize, u64)> = None;
        for (index, slot) in self.readers.iter().enumerate() {
            if let Some((reader, _)) = slot
                && let Some(ts) = reader.current_ts()
            {
                let ts = ts.unwrap_or(0);
                if next.is_none_or(|(_, best)| ts < best) {
                    next = Some((index, ts));
                }
            }
        }
        let (index, _) = next?;
        let (_, frames) = self.readers[index].as_mut()?;
        *frames += 1;
        self.report.records += 1;
        Some((index, *frames))
    }

    /// Moves input `index` past the record just used, reporting what the container says.
    fn advance(&mut self, index: usize) {
        let Some((reader, _)) = self.readers[index].as_mut() else {
            return;
        };
        let advanced = reader.advance();
        let name = &self.report.files[index];
        for warning in reader.take_warnings() {
            eprintln!("rdmadump: warning: {name}: {warning}");
        }
        match advanced {
            Ok(true) => {}
            Ok(false) => {
                self.report.truncated |= reader.was_cut_short();
                self.readers[index] = None;
            }
            Err(err) => {
                let name = name.clone();
                self.readers[index] = None;
                self.fail::<()>(&name, &err);
            }
        }
    }

    fn finish(mut self) -> InputReport {
        self.progress.finish();
        for (slot, name) in self.readers.iter_mut().zip(&self.report.files) {
            if let Some((reader, _)) = slot {
                for warning in reader.take_warnings() {
                    eprintln!("rdmadump: warning: {name}: {warning}");
                }
            }
        }
        self.report
    }
}

/// Streams every matching packet of every input to `visit`, merged by timestamp when there
/// are several inputs. Each packet knows its file index and its frame number within that
/// file. `visit` may stop the whole run. The output does not depend on `args.threads`.
pub fn for_each_packet(
    paths: &[PathBuf],
    args: &InputArgs,
    filter: &PacketFilter,
    mut visit: impl FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<InputReport> {
    let report = InputReport {
        files: paths.iter().map(|p| display_path(p)).collect(),
        ..InputReport::default()
    };
    let mut sources = Vec::with_capacity(paths.len());
    let mut failed = false;
    for path in paths {
        match Source::open(path, args.no_mmap) {
            Ok(source) => sources.push(Some(source)),
            Err(err) => {
                eprintln!("rdmadump: {}: {err}", display_path(path));
                failed = true;
                sources.push(None);
            }
        }
    }
    let mut merger = Merger::open(paths, &mut sources, report);
    merger.report.failed |= failed;
    let opts = super::decode_options(args);
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads > 1 && merger.all_mapped() {
        pipelined(&mut merger, opts, filter, &mut visit)?;
    } else {
        streaming(&mut merger, &opts, filter, &mut visit)?;
    }
    Ok(merger.finish())
}

type Visit<'v> = dyn FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>> + 'v;

fn streaming(
    merger: &mut Merger<'_>,
    opts: &DecodeOptions,
    filter: &PacketFilter,
    visit: &mut Visit<'_>,
) -> anyhow::Result<()> {
    while let Some((index, frame)) = merger.next() {
        let Some((reader, _)) = merger.readers[index].as_mut() else {
            break;
        };
        if let Some(record) = reader.current() {
            let pkt = dissect(&record, frame, opts);
            if filter.matches(&pkt) && visit(index, &pkt)?.is_break() {
                return Ok(());
            }
        }
        merger.advance(index);
    }
    Ok(())
}

/// Decodes batches on this thread while another thread computes their CRCs, then filters
/// and visits each batch in order. Packets borrow the file mappings, so a batch holds no
/// copies of packet bytes.
fn pipelined<'m>(
    merger: &mut Merger<'m>,
    mut opts: DecodeOptions,
    filter: &PacketFilter,
    visit: &mut Visit<'_>,
) -> anyhow::Result<()> {
    opts.crc = CrcMode::Deferred;
    std::thread::scope(|scope| {
        // Created inside the scope so that leaving it early (an error, `-c N`, a closed
        // pipe) drops both ends this thread holds, and the worker sees its input end.
        let (to_worker, work) = mpsc::sync_channel::<Vec<(usize, Packet<'m>)>>(IN_FLIGHT);
        let (to_main, done) = mpsc::sync_channel::<Vec<(usize, Packet<'m>)>>(IN_FLIGHT);
        scope.spawn(move || {
            for mut batch in work {
                for (_, pkt) in &mut batch {
                    pkt.verify_crcs();
                }
                if to_main.send(batch).is_err() {
                    break;
                }
            }
        });
        let mut in_flight = 0;
        let mut spare: Vec<Vec<(usize, Packet<'m>)>> = Vec::new();
        let mut exhausted = false;
        loop {
            while !exhausted && in_flight < IN_FLIGHT {
                let mut batch = spare.pop().unwrap_or_else(|| Vec::with_capacity(BATCH));
                while batch.len() < BATCH {
                    let Some((index, frame)) = merger.next() else {
                        exhausted = true;
                        break;
                    };
                    let record = merger.readers[index]
                        .as_ref()
                        .and_then(|(r, _)| r.current_mapped());
                    if let Some(record) = record {
                        batch.push((index, dissect(&record, frame, &opts)));
                    }
                    merger.advance(index);
                }
                if batch.is_empty() {
                    break;
                }
                // The worker only ends when this sender is dropped, so the send succeeds.
                let _ = to_worker.send(batch);
                in_flight += 1;
            }
            if in_flight == 0 {
                return Ok(());
            }
            let Ok(mut batch) = done.recv() else {
                return Ok(());
            };
            in_flight -= 1;
            for (index, pkt) in &batch {
                if filter.matches(pkt) && visit(*index, pkt)?.is_break() {
                    return Ok(());
                }
            }
            batch.clear();
            spare.push(batch);
        }
    })
}
