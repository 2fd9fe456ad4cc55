//! The threaded engine: reading on a thread of its own, decoding and the worker stage
//! wherever there is time, consuming in order on the calling thread.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use smallvec::SmallVec;

use super::PipelineError;
use super::batch::{Batch, Staged};
use super::committed::CommittedCmState;
use super::inputs::Inputs;
use crate::capture::Releaser;
use crate::dissect::{Decoder, FrameClocks};

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

/// Helper threads at most, however many threads are asked for: each needs batches of its
/// own in flight (see `queued`), and memory grows with them.
pub(super) const MAX_HELPERS: usize = 64;

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

/// A batch queued for the consuming thread by the reading one, with how far into each
/// input it reaches.
struct QueuedBatch<'m> {
    batch: PendingBatch<'m>,
    reach: Reach,
}

/// A batch itself, or the promise of it from a helper thread.
// One travels per 512 packets, so the inline packet of a batch costs nothing here.
#[allow(clippy::large_enum_variant)]
enum PendingBatch<'m> {
    /// `worked`: `work` has run on it already, on the reading thread, while the consumer
    /// was behind.
    Ready { batch: Batch<'m>, worked: bool },
    /// A helper works on it, and sends it here when done.
    AtHelper(mpsc::Receiver<Batch<'m>>),
}

/// A batch for a helper thread, and where to send it once worked on.
type Job<'m> = (Batch<'m>, mpsc::SyncSender<Batch<'m>>);

/// Reads batches on a second thread, and consumes them, in the order read, on this one.
/// With no helpers the reading thread decodes as it reads, and `work` runs on whichever
/// thread has time for it: here, before consuming, or on the reading thread when batches
/// queue up here. With helpers, the reading thread only stages records with their frame
/// times, and decoding and `work` go to the helpers (see [`CommittedCmState`] for what
/// decoding learns), or to the reading thread when every helper has a batch waiting. So the two
/// serial stages (reading, and consuming) run side by side, and the rest goes wherever
/// there is time: on two threads, `analyze` (reading and decoding about half of all its
/// time, its analysis and the CRCs the other half) and `read --json` (JSON rendering about
/// three quarters) both keep both cores busy. Consumed batches go back to the reading
/// thread, which reuses them and drops the mapping's pages they held. Packets borrow the
/// file mappings, so a batch holds no copies of packet bytes.
pub(super) fn pipelined<'m, W, C, E>(
    inputs: &mut Inputs<'m, '_>,
    decoder: &mut Decoder,
    helpers: usize,
    work: &W,
    mut consume: C,
) -> Result<(), E>
where
    W: for<'b> Fn(&mut Batch<'b>) + Sync,
    C: for<'b> FnMut(&mut Batch<'b>) -> Result<ControlFlow<()>, E>,
    E: From<PipelineError>,
{
    // Batches handed to the consumer and not yet taken by it.
    let waiting = &AtomicUsize::new(0);
    let committed = &CommittedCmState::default();
    // Batches sent to the helpers and not yet taken by one.
    let unclaimed = &AtomicUsize::new(0);
    let opts = &decoder.options().clone();
    // Decoding the staged records, if any, and `work`, on whichever thread has time.
    let prepare = |batch: &mut Batch<'m>| {
        if batch.decoded_at_generation.is_none() && !batch.staged.is_empty() {
            batch.decode_staged(opts, committed);
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
        let (to_consumer, inbox) = mpsc::sync_channel::<QueuedBatch<'m>>(queued);
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
                let pending = if helpers > 0 && unclaimed.load(Ordering::Relaxed) < helpers {
                    let (done, promise) = mpsc::sync_channel(1);
                    unclaimed.fetch_add(1, Ordering::Relaxed);
                    // Helpers end only when this sender goes, with this thread.
                    let _ = to_helpers.send((batch, done));
                    PendingBatch::AtHelper(promise)
                } else if helpers > 0 {
                    // Every helper has a batch waiting already: this thread, whose reading
                    // is the lighter part, prepares this one itself.
                    prepare(&mut batch);
                    PendingBatch::Ready {
                        batch,
                        worked: true,
                    }
                } else {
                    let worked = waiting.load(Ordering::Relaxed) >= WORKER_BACKLOG;
                    if worked {
                        prepare(&mut batch);
                    }
                    PendingBatch::Ready { batch, worked }
                };
                waiting.fetch_add(1, Ordering::Relaxed);
                let queued = QueuedBatch {
                    batch: pending,
                    reach,
                };
                if to_consumer.send(queued).is_err() {
                    break;
                }
            }
        });
        for QueuedBatch { batch, reach } in inbox {
            waiting.fetch_sub(1, Ordering::Relaxed);
            let mut batch = match batch {
                PendingBatch::Ready {
                    batch,
                    worked: true,
                } => batch,
                PendingBatch::Ready { mut batch, .. } => {
                    prepare(&mut batch);
                    batch
                }
                PendingBatch::AtHelper(promise) => match promise.recv() {
                    Ok(batch) => batch,
                    // A helper that died (a panic in `work`) leaves its batch unsent.
                    Err(_) => return Err(PipelineError::WorkerStopped.into()),
                },
            };
            // Every batch before this one is consumed, so the committed state is all that
            // decoding in capture order would know here. A batch decoded from an older one
            // is decoded, and worked on, again.
            if batch
                .decoded_at_generation
                .is_some_and(|generation| generation != committed.generation())
            {
                batch.clear_output();
                batch.decoded_at_generation = None;
                prepare(&mut batch);
            }
            if let Some(state) = batch.changed_state.take() {
                committed.commit(*state);
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
