//! Reading every input in timestamp order: the streaming loop, and for memory-mapped inputs
//! a pipelined one that verifies CRCs on a second core.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use super::{InputReport, Progress, display_path};
use crate::capture::{AnyReader, Record, Source};
use crate::cli::InputArgs;
use crate::dissect::{CrcMode, DecodeOptions, Packet, dissect_into};
use crate::filter::PacketFilter;

/// Packets decoded per batch on the pipelined path: large enough that handing a batch to
/// the other thread costs nothing per packet, small enough that a batch's packets (250 KB)
/// stay in the second-level cache between the two threads. Measured against 2048: the same
/// on 460 MB, and 19 ms instead of 25 ms on a 40k-frame capture, which pays less for first
/// touching fresh batch memory.
const BATCH: usize = 512;

/// Batches waiting for the worker thread (or being worked on) beyond which this thread
/// works on a batch itself.
const WORKER_BACKLOG: usize = 2;

/// Batches decoded and not yet consumed, wherever they are: this bounds memory when the
/// consumer is slow, at about 250 KB of packets a batch plus its rendered output.
const QUEUED: usize = 6;

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
                    Err(err) => failed(&mut merger.report, &display_path(path), &err),
                },
                Some(Err(err)) => failed(&mut merger.report, &display_path(path), &err),
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
        print_warnings(reader, name);
        match advanced {
            Ok(true) => {}
            Ok(false) => {
                self.report.truncated |= reader.was_cut_short();
                self.readers[index] = None;
            }
            Err(err) => {
                eprintln!("rdmadump: {name}: {err}");
                self.report.failed = true;
                self.readers[index] = None;
            }
        }
    }

    fn finish(mut self) -> InputReport {
        self.progress.finish();
        for (slot, name) in self.readers.iter_mut().zip(&self.report.files) {
            if let Some((reader, _)) = slot {
                print_warnings(reader, name);
            }
        }
        self.report
    }
}

/// Says on stderr that input `name` failed, and marks the run as failed.
fn failed<T>(report: &mut InputReport, name: &str, err: &dyn std::fmt::Display) -> Option<T> {
    eprintln!("rdmadump: {name}: {err}");
    report.failed = true;
    None
}

fn print_warnings(reader: &mut AnyReader<'_>, name: &str) {
    if reader.has_warnings() {
        for warning in reader.take_warnings() {
            eprintln!("rdmadump: warning: {name}: {warning}");
        }
    }
}

/// Packets decoded together, and what the worker stage made of them.
#[derive(Default)]
pub struct Batch<'m> {
    /// Input index and packet, in timestamp order.
    pub packets: Vec<(usize, Packet<'m>)>,
    /// Output the worker stage rendered, if any.
    pub out: Vec<u8>,
    /// End offset in `out` of each rendered packet, for `-c N`.
    pub ends: Vec<usize>,
    /// Offset in `out` where each packet's time is to be inserted, when times depend on
    /// the packets before and are written in order by the consumer.
    pub marks: Vec<usize>,
}

impl<'m> Batch<'m> {
    /// Decodes a record straight into the batch's storage, with no 500-byte move after.
    fn decode(&mut self, index: usize, record: &Record<'m>, frame: u64, opts: &DecodeOptions) {
        self.packets.push((index, Packet::default()));
        if let Some((_, slot)) = self.packets.last_mut() {
            dissect_into(slot, record, frame, opts);
        }
    }

    fn clear(&mut self) {
        self.packets.clear();
        self.out.clear();
        self.ends.clear();
        self.marks.clear();
    }
}

/// Runs every packet of every input, merged by timestamp when there are several inputs,
/// through two stages: `work` (CRCs, filtering, rendering: anything that needs no state
/// carried from one batch to the next) and then `consume` (in order, on the calling thread;
/// it may stop the run). With memory-mapped inputs and more than one thread, `work` runs on
/// both threads, each on whole batches. Results do not depend on the thread count.
pub fn for_each_batch<W, C>(
    paths: &[PathBuf],
    args: &InputArgs,
    work: W,
    consume: C,
) -> anyhow::Result<InputReport>
where
    W: for<'m> Fn(&mut Batch<'m>) + Sync,
    C: for<'m> FnMut(&mut Batch<'m>) -> anyhow::Result<ControlFlow<()>>,
{
    let mut report = InputReport {
        files: paths.iter().map(|p| display_path(p)).collect(),
        ..InputReport::default()
    };
    let mut sources: Vec<Option<Source>> = paths
        .iter()
        .map(|path| match Source::open(path, args.no_mmap) {
            Ok(source) => Some(source),
            Err(err) => failed(&mut report, &display_path(path), &err),
        })
        .collect();
    let mut merger = Merger::open(paths, &mut sources, report);
    let opts = super::decode_options(args);
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads > 1 && merger.all_mapped() {
        pipelined(&mut merger, opts, &work, consume)?;
    } else {
        streaming(&mut merger, &opts, &work, consume)?;
    }
    Ok(merger.finish())
}

/// `for_each_batch` for callers that take one packet at a time: CRCs and the filter run in
/// the worker stage, `visit` in order on this thread.
pub fn for_each_packet(
    paths: &[PathBuf],
    args: &InputArgs,
    filter: &PacketFilter,
    mut visit: impl FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<InputReport> {
    for_each_batch(
        paths,
        args,
        |batch: &mut Batch<'_>| {
            for (_, pkt) in &mut batch.packets {
                pkt.verify_crcs();
            }
            batch.packets.retain(|(_, pkt)| filter.matches(pkt));
        },
        |batch: &mut Batch<'_>| {
            for (index, pkt) in &batch.packets {
                if visit(*index, pkt)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        },
    )
}

/// One packet at a time, for streams, whose record bytes live only until the next read.
fn streaming<W, C>(
    merger: &mut Merger<'_>,
    opts: &DecodeOptions,
    work: &W,
    mut consume: C,
) -> anyhow::Result<()>
where
    W: for<'m> Fn(&mut Batch<'m>),
    C: for<'m> FnMut(&mut Batch<'m>) -> anyhow::Result<ControlFlow<()>>,
{
    // A record lives only until its reader moves on, so each packet gets a batch of its own;
    // the batch's allocations are carried over from one packet to the next.
    let mut parked = Batch::<'static>::default();
    while let Some((index, frame)) = merger.next() {
        let Some((reader, _)) = merger.readers[index].as_mut() else {
            break;
        };
        let mut flow = ControlFlow::Continue(());
        if let Some(record) = reader.current() {
            let mut batch = Batch {
                packets: recycle(std::mem::take(&mut parked.packets)),
                out: std::mem::take(&mut parked.out),
                ends: std::mem::take(&mut parked.ends),
                marks: std::mem::take(&mut parked.marks),
            };
            batch.decode(index, &record, frame, opts);
            work(&mut batch);
            flow = consume(&mut batch)?;
            batch.clear();
            parked = Batch {
                packets: recycle(batch.packets),
                out: batch.out,
                ends: batch.ends,
                marks: batch.marks,
            };
        }
        if flow.is_break() {
            return Ok(());
        }
        merger.advance(index);
    }
    Ok(())
}

/// An emptied vector's allocation, reused for packets of another lifetime: collecting an
/// empty iterator into a vector of the same layout happens in place, without allocating.
// The `filter_map` is what changes the element type; clippy sees only that it keeps nothing.
#[allow(clippy::unnecessary_filter_map)]
fn recycle<'a, 'b>(mut packets: Vec<(usize, Packet<'a>)>) -> Vec<(usize, Packet<'b>)> {
    packets.clear();
    packets.into_iter().filter_map(|_| None).collect()
}

/// Where a batch in the pipeline is: worked on here, or sent to the worker thread.
enum Slot<'m> {
    Here(Batch<'m>),
    Sent,
}

/// Decodes batches on this thread and shares `work` with a second thread: a batch goes to
/// the worker while it has room, and is worked on here when it has not. So whichever of
/// decoding and working is dearer, both cores stay busy (for `read --json` on 64-byte
/// frames, JSON formatting is about half of all the time, decoding about a tenth).
/// Batches are consumed in the order they were decoded, whichever thread
/// worked on them. Packets borrow the file mappings, so a batch holds no copies of packet
/// bytes.
fn pipelined<'m, W, C>(
    merger: &mut Merger<'m>,
    mut opts: DecodeOptions,
    work: &W,
    mut consume: C,
) -> anyhow::Result<()>
where
    W: for<'b> Fn(&mut Batch<'b>) + Sync,
    C: for<'b> FnMut(&mut Batch<'b>) -> anyhow::Result<ControlFlow<()>>,
{
    // CRCs are left to `work`, which runs on both threads.
    opts.crc = CrcMode::Deferred;
    // Batches sent to the worker and not yet worked on. Counted apart from the batches it
    // has finished: one finished while this thread was decoding must not make this thread
    // think the worker is still busy.
    let backlog = &AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // Created inside the scope so that leaving it early (an error, `-c N`, a closed
        // pipe) drops both ends this thread holds, and the worker sees its input end.
        // No more than QUEUED batches exist at once, so sends never block.
        let (to_worker, inbox) = mpsc::sync_channel::<Batch<'m>>(QUEUED);
        let (to_main, done) = mpsc::sync_channel::<Batch<'m>>(QUEUED);
        scope.spawn(move || {
            for mut batch in inbox {
                work(&mut batch);
                backlog.fetch_sub(1, Ordering::Relaxed);
                if to_main.send(batch).is_err() {
                    break;
                }
            }
        });
        let mut order: VecDeque<Slot<'m>> = VecDeque::with_capacity(QUEUED + 1);
        let mut spare: Vec<Batch<'m>> = Vec::new();
        let mut exhausted = false;
        loop {
            // Consume whatever is ready at the front, without waiting; wait only when the
            // queue is full or there is nothing left to decode.
            loop {
                let must_wait = exhausted || order.len() >= QUEUED;
                let Some(front) = order.front_mut() else {
                    break;
                };
                let mut batch = match front {
                    Slot::Here(batch) => std::mem::take(batch),
                    Slot::Sent if must_wait => match done.recv() {
                        Ok(batch) => batch,
                        Err(_) => return Ok(()),
                    },
                    Slot::Sent => match done.try_recv() {
                        Ok(batch) => batch,
                        Err(_) => break,
                    },
                };
                order.pop_front();
                if consume(&mut batch)?.is_break() {
                    return Ok(());
                }
                batch.clear();
                spare.push(batch);
            }
            if exhausted {
                return Ok(());
            }
            let mut batch = spare.pop().unwrap_or_default();
            while batch.packets.len() < BATCH {
                let Some((index, frame)) = merger.next() else {
                    exhausted = true;
                    break;
                };
                let record = merger.readers[index]
                    .as_ref()
                    .and_then(|(r, _)| r.current_mapped());
                if let Some(record) = record {
                    batch.decode(index, &record, frame, &opts);
                }
                merger.advance(index);
            }
            if batch.packets.is_empty() {
                continue;
            }
            if backlog.load(Ordering::Relaxed) < WORKER_BACKLOG {
                backlog.fetch_add(1, Ordering::Relaxed);
                // The worker only ends when this sender is dropped, so the send succeeds.
                let _ = to_worker.send(batch);
                order.push_back(Slot::Sent);
            } else {
                work(&mut batch);
                order.push_back(Slot::Here(batch));
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycling_keeps_the_allocation() {
        let parked: Vec<(usize, Packet<'static>)> = Vec::with_capacity(8);
        let address = parked.as_ptr() as usize;
        let reused: Vec<(usize, Packet<'_>)> = recycle(parked);
        assert_eq!(reused.as_ptr() as usize, address);
        assert_eq!(reused.capacity(), 8);
    }
}
