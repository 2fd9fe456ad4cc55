//! The input loop of the commands: every input merged by timestamp, decoded, worked on
//! (CRCs, filter, rendering) and consumed in order; for memory-mapped inputs, pipelined
//! over a reading thread, the calling thread and any further threads as helpers.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::Duration;

use smallvec::SmallVec;

use super::progress::{PROGRESS_EVERY, Progress};
use crate::capture::merge::{InputReport, Merger, Notice, open_sources};
use crate::capture::readahead::ReadAhead;
use crate::capture::{Record, Releaser, Source, Spool};
use crate::cli::InputArgs;
use crate::dissect::{
    CrcMode, DecodeOptions, Decoder, FrameClock, FrameClocks, Learnt, Packet, decode_learning,
};
use crate::filter::PacketFilter;
use crate::filter::time::TimeWindow;

/// Packets decoded per batch on the pipelined path: large enough that handing a batch to
/// the other thread costs nothing per packet, small enough that a batch's packets (250 KB)
/// stay in the second-level cache between two threads. Measured against 2048: the same
/// on 460 MB, and 19 ms instead of 25 ms on a 40k-frame capture, which pays less for first
/// touching fresh batch memory.
const BATCH: usize = 512;

/// Batches waiting for the consumer beyond which, with two threads, the reading thread
/// works on a batch itself before handing it over.
const WORKER_BACKLOG: usize = 2;

/// Batches decoded and not yet consumed, wherever they are: this bounds memory when the
/// consumer is slow, at about 250 KB of packets a batch plus its rendered output.
const QUEUED: usize = 6;

/// How long the reading thread waits for a stream's next record before it hands on the
/// batch it holds: far longer than a pipe takes to deliver its next 64 KiB when a capture
/// streams in bulk, short enough that a live capture shows no lag.
const LIVE_WAIT: Duration = Duration::from_millis(5);

/// Threads from which streams are spooled (see `read_streams_ahead`).
const SPOOL_THREADS: usize = 3;

/// Helper threads at most, however many threads are asked for: each needs batches of its
/// own in flight (see `queued`), and memory grows with them.
const MAX_HELPERS: usize = 64;

/// The merged inputs, with the progress bar and the messages that go with reading them.
struct Inputs<'m> {
    merger: Merger<'m>,
    progress: Progress,
    /// A preliminary pass: its notices would only repeat the real pass's.
    quiet: bool,
}

/// How a run reads its inputs beyond what the command line says.
#[derive(Debug, Default, Clone, Copy)]
pub struct RunOptions<'o> {
    /// Each input's clock minus the reference's, to merge capture points on one clock.
    pub offsets: &'o [i64],
    /// No progress bar and no notices: a pass that only prepares the real one.
    pub quiet: bool,
    /// Leave ICRC and VCRC unverified.
    pub skip_crcs: bool,
}

impl<'m> Inputs<'m> {
    fn next(&mut self) -> Option<(usize, u64)> {
        let records = self.merger.records();
        if records.is_multiple_of(PROGRESS_EVERY) {
            self.progress.update(self.merger.position(), records);
        }
        self.merger.next_record()
    }

    fn advance(&mut self, index: usize) {
        self.merger.advance(index);
        let quiet = self.quiet;
        let (files, notices) = self.merger.files_and_notices();
        for notice in notices.filter(|_| !quiet) {
            print_notice(files, &notice);
        }
    }

    fn finish(self) -> InputReport {
        self.progress.finish();
        let (report, notices) = self.merger.finish();
        for notice in notices.iter().filter(|_| !self.quiet) {
            print_notice(&report.files, notice);
        }
        report
    }
}

/// Says on stderr what reading an input found.
pub fn print_notice(files: &[String], notice: &Notice) {
    let name = files.get(notice.file).map_or("?", String::as_str);
    if notice.fatal {
        eprintln!("rdmadump: {name}: {}", notice.message);
    } else {
        eprintln!("rdmadump: warning: {name}: {}", notice.message);
    }
}

/// Packets decoded together, and what the worker stage made of them.
#[derive(Default)]
pub struct Batch<'m> {
    /// Input index and packet, in timestamp order. One packet is kept inline: a stream's
    /// record lives only until its reader moves on, so the streaming path makes a batch
    /// per packet, and that batch must not allocate.
    pub packets: SmallVec<[(usize, Packet<'m>); 1]>,
    /// Output the worker stage rendered, if any.
    pub out: Vec<u8>,
    /// End offset in `out` of each rendered packet, for `-c N`.
    pub ends: Vec<usize>,
    /// Offset in `out` where each packet's time is to be inserted, when times depend on
    /// the packets before and are written in order by the consumer.
    pub marks: Vec<usize>,
    /// On the pipelined path, the records read for this batch and not decoded yet.
    staged: Vec<Staged<'m>>,
    /// The generation of [`Lessons`] the staged records were decoded with; `None` before
    /// they are, and for a batch decoded in capture order as it was read.
    decoded_with: Option<u64>,
    /// What decoding learnt by the batch's end, when it learnt anything.
    learnt: Option<Box<Learnt>>,
}

/// A record read and given its clock, waiting to be decoded on whichever thread has time.
struct Staged<'m> {
    index: usize,
    record: Record<'m>,
    frame: u64,
    clock: FrameClock,
}

/// What decoding has learnt (connected-mode IPoIB QPs), as of the last batch consumed.
/// Batches are decoded on several threads at once, each from the lessons settled when its
/// decoding began; the consumer, which takes batches in order, settles each batch's lessons
/// after it, and decodes again a batch that began before an earlier one taught something.
/// That happens once per IPoIB-CM handshake at most; a capture without one never does it.
#[derive(Default)]
struct Lessons {
    /// The generation (how many batches taught something) and what they taught.
    settled: Mutex<(u64, Arc<Learnt>)>,
}

impl Lessons {
    fn settled(&self) -> MutexGuard<'_, (u64, Arc<Learnt>)> {
        self.settled.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn current(&self) -> (u64, Arc<Learnt>) {
        let settled = self.settled();
        (settled.0, Arc::clone(&settled.1))
    }

    fn generation(&self) -> u64 {
        self.settled().0
    }

    fn settle(&self, learnt: Learnt) {
        let mut settled = self.settled();
        settled.0 += 1;
        settled.1 = Arc::new(learnt);
    }
}

impl<'m> Batch<'m> {
    /// Decodes a record straight into the batch's storage, with no 500-byte move after.
    fn decode(&mut self, index: usize, record: &Record<'m>, frame: u64, decoder: &mut Decoder) {
        self.packets.push((index, Packet::default()));
        if let Some((_, slot)) = self.packets.last_mut() {
            decoder.decode_into(slot, record, frame);
        }
    }

    /// Decodes the staged records from the lessons settled now; the records stay staged, in
    /// case the batch must be decoded again.
    fn decode_staged(&mut self, opts: &DecodeOptions, lessons: &Lessons) {
        let (generation, settled) = lessons.current();
        // A copy per batch (1.3 KB, for 512 packets) that the batch's own records may add to.
        let mut learnt = Learnt::clone(&settled);
        let mut taught = false;
        self.packets.clear();
        for staged in &self.staged {
            self.packets.push((staged.index, Packet::default()));
            if let Some((_, slot)) = self.packets.last_mut() {
                taught |= decode_learning(
                    opts,
                    &mut learnt,
                    slot,
                    &staged.record,
                    staged.frame,
                    staged.clock,
                );
            }
        }
        self.decoded_with = Some(generation);
        self.learnt = taught.then(|| Box::new(learnt));
    }

    /// Records in the batch, decoded or staged.
    fn len(&self) -> usize {
        self.packets.len().max(self.staged.len())
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What `work` wrote.
    fn clear_output(&mut self) {
        self.out.clear();
        self.ends.clear();
        self.marks.clear();
    }

    fn clear(&mut self) {
        self.packets.clear();
        self.clear_output();
        self.staged.clear();
        self.decoded_with = None;
        self.learnt = None;
    }
}

/// Runs every packet of every input, merged by timestamp when there are several inputs,
/// through two stages: `work` (CRCs, filtering, rendering: anything that needs no state
/// carried from one batch to the next) and then `consume` (in order, on the calling thread;
/// it may stop the run). With memory-mapped inputs and more than one thread, reading runs
/// on a thread of their own, and decoding and `work` on whole batches wherever there is
/// time for them (see `pipelined`). Results do not depend on the thread count.
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
    for_each_batch_with(paths, args, RunOptions::default(), work, consume)
}

/// [`for_each_batch`] with [`RunOptions`].
pub fn for_each_batch_with<W, C>(
    paths: &[PathBuf],
    args: &InputArgs,
    run: RunOptions<'_>,
    work: W,
    consume: C,
) -> anyhow::Result<InputReport>
where
    W: for<'m> Fn(&mut Batch<'m>) + Sync,
    C: for<'m> FnMut(&mut Batch<'m>) -> anyhow::Result<ControlFlow<()>>,
{
    let threads = super::threads(args);
    let mut opened = Vec::new();
    let mut sources = open_sources(paths, args.no_mmap, &mut opened);
    if threads > 1 {
        read_streams_ahead(&mut sources, threads);
    }
    let mut merger = Merger::open(paths, &mut sources, opened);
    merger.set_offsets(run.offsets);
    let progress = if run.quiet {
        Progress::new(0)
    } else {
        Progress::new(merger.len_hint())
    };
    let mut inputs = Inputs {
        progress,
        merger,
        quiet: run.quiet,
    };
    // One decoder for every input, fed in merged order, so that what a record teaches
    // (connected-mode IPoIB QPs) applies to the records after it; on three threads or more
    // batches are decoded side by side and their lessons settled in order (`Lessons`).
    let mut opts = super::decode_options(args);
    if threads > 1 && inputs.merger.all_mapped() {
        // CRCs are left to `work`, which runs on both threads.
        opts.crc = CrcMode::Deferred;
        let helpers = (threads - 2).min(MAX_HELPERS);
        pipelined(
            &mut inputs,
            &mut Decoder::new(opts),
            helpers,
            &work,
            consume,
        )?;
    } else {
        streaming(&mut inputs, &mut Decoder::new(opts), &work, consume)?;
    }
    Ok(inputs.finish())
}

/// Streams (stdin, pipes, compressed files) are read and decompressed on a thread each,
/// beside the decoding. With three threads or more, into a [`Spool`], whose records are
/// then pipelined over the other threads as a mapped file's are; with two, through a
/// [`ReadAhead`] to the one-packet-at-a-time path. On this project's 2-core benchmark
/// machine the spool's fresh pages, zeroed by the kernel as the stream fills them, cost
/// more than decoding on one thread saves: `cat capture | analyze --json -` took
/// 0.41-1.1 s spooled against 0.32-0.85 s read ahead (440 MB, 6 alternating runs), while
/// `read --json` of its zstd copy took 0.23-0.27 s against 0.30-0.31 s, rendering JSON
/// on both threads. Where no address space can be reserved, streams are read ahead too.
fn read_streams_ahead(sources: &mut [Option<Source>], threads: usize) {
    for source in sources.iter_mut() {
        *source = match source.take() {
            Some(Source::Stream(reader, hint)) => match spool(reader, hint, threads) {
                Ok(spool) => Some(Source::Spooled(spool)),
                Err(reader) => {
                    let reader: Box<dyn std::io::Read + Send> = match ReadAhead::spawn(reader) {
                        Ok(ahead) => Box::new(ahead),
                        Err(reader) => reader,
                    };
                    Some(Source::Stream(reader, hint))
                }
            },
            other => other,
        };
    }
}

fn spool(
    reader: Box<dyn std::io::Read + Send>,
    hint: Option<u64>,
    threads: usize,
) -> Result<Spool, Box<dyn std::io::Read + Send>> {
    if threads >= SPOOL_THREADS {
        Spool::spawn(reader, hint)
    } else {
        Err(reader)
    }
}

/// `for_each_batch` for callers that take one packet at a time: CRCs and the filter run in
/// the worker stage, `visit` in order on this thread.
pub fn for_each_packet(
    paths: &[PathBuf],
    args: &InputArgs,
    filter: &PacketFilter,
    visit: impl FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<InputReport> {
    for_each_packet_with(paths, args, RunOptions::default(), filter, visit)
}

/// [`for_each_packet`] with [`RunOptions`].
pub fn for_each_packet_with(
    paths: &[PathBuf],
    args: &InputArgs,
    run: RunOptions<'_>,
    filter: &PacketFilter,
    mut visit: impl FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<InputReport> {
    for_each_batch_with(
        paths,
        args,
        run,
        |batch: &mut Batch<'_>| {
            if !run.skip_crcs {
                for (_, pkt) in &mut batch.packets {
                    pkt.verify_crcs();
                }
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

/// The worker stage of `read` and `analyze`: verifies the CRCs, and keeps the packets in
/// the time window that the filter selects.
pub fn verify_and_select(batch: &mut Batch<'_>, window: &TimeWindow, filter: &PacketFilter) {
    for (_, pkt) in &mut batch.packets {
        pkt.verify_crcs();
        window.anchor(pkt.ts_ns);
    }
    batch
        .packets
        .retain(|(_, pkt)| window.contains(pkt.ts_ns) && filter.matches(pkt));
}

/// One packet at a time, for streams, whose record bytes live only until the next read.
fn streaming<W, C>(
    inputs: &mut Inputs<'_>,
    decoder: &mut Decoder,
    work: &W,
    mut consume: C,
) -> anyhow::Result<()>
where
    W: for<'m> Fn(&mut Batch<'m>),
    C: for<'m> FnMut(&mut Batch<'m>) -> anyhow::Result<ControlFlow<()>>,
{
    // The output buffers carry over from one packet to the next; the packet itself sits
    // inline in a batch made afresh for each record.
    let mut out = Vec::new();
    let mut ends = Vec::new();
    let mut marks = Vec::new();
    while let Some((index, frame)) = inputs.next() {
        let mut flow = ControlFlow::Continue(());
        let mut used_up = None;
        if let Some(record) = inputs.merger.current(index) {
            let mut batch = Batch {
                packets: SmallVec::new(),
                out: std::mem::take(&mut out),
                ends: std::mem::take(&mut ends),
                marks: std::mem::take(&mut marks),
                ..Batch::default()
            };
            let offset = record.offset;
            batch.decode(index, &record, frame, decoder);
            work(&mut batch);
            flow = consume(&mut batch)?;
            batch.clear();
            (out, ends, marks) = (batch.out, batch.ends, batch.marks);
            used_up = Some(offset);
        }
        // The packet is consumed and nothing holds it: a mapping read on one thread can
        // drop what lies behind it.
        if let Some(offset) = used_up {
            inputs.merger.release_before(index, offset);
        }
        if flow.is_break() {
            return Ok(());
        }
        inputs.advance(index);
    }
    Ok(())
}

/// For each input, the file offset of the last record a batch holds from it (0: none). Once
/// the batch is consumed, and with it every batch before it, nothing borrows the mapping's
/// bytes before those offsets any more, and their pages can go.
type Reach = SmallVec<[u64; 2]>;

/// Halts every spooled input when dropped.
struct HaltOnExit<'m>(Vec<Option<Releaser<'m>>>);

impl Drop for HaltOnExit<'_> {
    fn drop(&mut self) {
        for releaser in self.0.iter().flatten() {
            releaser.halt();
        }
    }
}

/// A batch on its way from the reading thread to the consuming one.
struct Handed<'m> {
    parcel: Parcel<'m>,
    reach: Reach,
}

/// A batch itself, or the promise of it from a helper thread.
// One parcel travels per 512 packets, so the inline packet of a batch costs nothing here.
#[allow(clippy::large_enum_variant)]
enum Parcel<'m> {
    /// `worked`: `work` has run on it already, on the reading thread, while the consumer
    /// was behind.
    Ready { batch: Batch<'m>, worked: bool },
    /// A helper works on it, and sends it here when done.
    Helped(mpsc::Receiver<Batch<'m>>),
}

/// A batch for a helper thread, and where to send it once worked on.
type Job<'m> = (Batch<'m>, mpsc::SyncSender<Batch<'m>>);

/// Reads batches on a second thread, and consumes them, in the order read, on this one.
/// With no helpers the reading thread decodes as it reads, and `work` runs on whichever
/// thread has time for it: here, before consuming, or on the reading thread when batches
/// queue up here. With helpers, the reading thread only stages records with their frame
/// times, and decoding and `work` go to the helpers (see [`Lessons`] for what decoding
/// learns), or to the reading thread when every helper has a batch waiting. So the two
/// serial stages (reading, and consuming) run side by side, and the rest goes wherever
/// there is time: on two threads, `analyze` (reading and decoding about half of all its
/// time, its analysis and the CRCs the other half) and `read --json` (JSON rendering about
/// three quarters) both keep both cores busy. Consumed batches go back to the reading
/// thread, which reuses them and drops the mapping's pages they held. Packets borrow the
/// file mappings, so a batch holds no copies of packet bytes.
fn pipelined<'m, W, C>(
    inputs: &mut Inputs<'m>,
    decoder: &mut Decoder,
    helpers: usize,
    work: &W,
    mut consume: C,
) -> anyhow::Result<()>
where
    W: for<'b> Fn(&mut Batch<'b>) + Sync,
    C: for<'b> FnMut(&mut Batch<'b>) -> anyhow::Result<ControlFlow<()>>,
{
    // Batches handed to the consumer and not yet taken by it.
    let waiting = &AtomicUsize::new(0);
    let lessons = &Lessons::default();
    // Batches sent to the helpers and not yet taken by one.
    let unclaimed = &AtomicUsize::new(0);
    let opts = &decoder.options().clone();
    // Decoding the staged records, if any, and `work`, on whichever thread has time.
    let prepare = |batch: &mut Batch<'m>| {
        if batch.decoded_with.is_none() && !batch.staged.is_empty() {
            batch.decode_staged(opts, lessons);
        }
        work(batch);
    };
    let prepare = &prepare;
    let inputs_len = inputs.merger.files().len();
    // Threads beyond two take batches off a shared queue and work on them; the consumer
    // waits for each in the order read, so output order never changes. They end when the
    // reading thread does, which holds the sending end.
    // Every helper needs a batch to work on while the consumer waits for the oldest one.
    let queued = QUEUED.max(2 * helpers);
    let (to_helpers, jobs) = mpsc::sync_channel::<Job<'m>>(queued);
    let jobs = &std::sync::Mutex::new(jobs);
    std::thread::scope(|scope| {
        // Created inside the scope so that leaving it early (an error, `-c N`, a closed
        // pipe) drops the receiving end, and the reading thread's next send fails and
        // ends it. At most `queued` batches wait, which bounds memory when the consumer is
        // slow; the way back is unbounded, so that neither thread ever waits on the other
        // in both directions, but only batches that exist travel on it.
        let (to_consumer, inbox) = mpsc::sync_channel::<Handed<'m>>(queued);
        let (give_back, returned) = mpsc::channel::<Batch<'m>>();
        // The pages behind consumed batches are dropped here, where consuming ends, and
        // not on the reading thread: that thread is the longer chain of the two.
        let mut releasers = inputs.merger.releasers();
        // However consuming ends (the inputs done, `-c N`, a closed pipe, an error), a
        // spooled stream is halted once this returns: the reading thread may be waiting
        // for bytes of it that never come, and the scope waits for that thread.
        let _halt = HaltOnExit(releasers.clone());
        for _ in 0..helpers {
            scope.spawn(move || {
                loop {
                    let job = match jobs.lock() {
                        Ok(jobs) => jobs.recv(),
                        Err(_) => return,
                    };
                    let Ok((mut batch, done)) = job else {
                        return;
                    };
                    unclaimed.fetch_sub(1, Ordering::Relaxed);
                    prepare(&mut batch);
                    let _ = done.send(batch);
                }
            });
        }
        scope.spawn(move || {
            let mut spare: Vec<Batch<'m>> = Vec::new();
            let mut clocks = FrameClocks::default();
            let mut exhausted = false;
            while !exhausted {
                spare.extend(returned.try_iter());
                let mut batch = spare.pop().unwrap_or_default();
                let mut reach: Reach = smallvec::smallvec![0; inputs_len];
                // A batch's first record is waited for as long as it takes; once it has
                // one, a stream whose next record is late (a live capture) has the batch
                // handed on as it is, so that packets are shown as they arrive.
                inputs.merger.set_wait_limit(None);
                while batch.len() < BATCH {
                    let Some((index, frame)) = inputs.next() else {
                        exhausted = true;
                        break;
                    };
                    if let Some(record) = inputs.merger.current_mapped(index) {
                        if helpers > 0 {
                            batch.staged.push(Staged {
                                index,
                                clock: clocks.next(record.ts_ns),
                                record,
                                frame,
                            });
                        } else {
                            batch.decode(index, &record, frame, decoder);
                        }
                        if let Some(last) = reach.get_mut(index) {
                            *last = record.offset;
                        }
                        if batch.len() == 1 {
                            inputs.merger.set_wait_limit(Some(LIVE_WAIT));
                        }
                    }
                    inputs.advance(index);
                    if inputs.merger.is_stalled() {
                        break;
                    }
                }
                if batch.is_empty() {
                    continue;
                }
                let parcel = if helpers > 0 && unclaimed.load(Ordering::Relaxed) < helpers {
                    let (done, promise) = mpsc::sync_channel(1);
                    unclaimed.fetch_add(1, Ordering::Relaxed);
                    // Helpers end only when this sender goes, with this thread.
                    let _ = to_helpers.send((batch, done));
                    Parcel::Helped(promise)
                } else if helpers > 0 {
                    // Every helper has a batch waiting already: this thread, whose reading
                    // is the lighter part, prepares this one itself.
                    prepare(&mut batch);
                    Parcel::Ready {
                        batch,
                        worked: true,
                    }
                } else {
                    let worked = waiting.load(Ordering::Relaxed) >= WORKER_BACKLOG;
                    if worked {
                        prepare(&mut batch);
                    }
                    Parcel::Ready { batch, worked }
                };
                waiting.fetch_add(1, Ordering::Relaxed);
                if to_consumer.send(Handed { parcel, reach }).is_err() {
                    break;
                }
            }
        });
        for Handed { parcel, reach } in inbox {
            waiting.fetch_sub(1, Ordering::Relaxed);
            let mut batch = match parcel {
                Parcel::Ready {
                    batch,
                    worked: true,
                } => batch,
                Parcel::Ready { mut batch, .. } => {
                    prepare(&mut batch);
                    batch
                }
                Parcel::Helped(promise) => match promise.recv() {
                    Ok(batch) => batch,
                    // A helper that died (a panic in `work`) leaves its batch unsent.
                    Err(_) => anyhow::bail!("pipeline: a worker thread stopped"),
                },
            };
            // Every batch before this one is consumed, so the settled lessons are all that
            // decoding in capture order would know here. A batch decoded from older ones is
            // decoded, and worked on, again.
            if batch
                .decoded_with
                .is_some_and(|generation| generation != lessons.generation())
            {
                batch.clear_output();
                batch.decoded_with = None;
                prepare(&mut batch);
            }
            if let Some(learnt) = batch.learnt.take() {
                lessons.settle(*learnt);
            }
            if consume(&mut batch)?.is_break() {
                return Ok(());
            }
            batch.clear();
            for (releaser, &offset) in releasers.iter_mut().zip(&reach) {
                if let Some(releaser) = releaser {
                    releaser.release_before(offset);
                }
            }
            // The reading thread is gone once it has read everything; nothing is left to
            // reuse then.
            let _ = give_back.send(batch);
        }
        Ok(())
    })
}
