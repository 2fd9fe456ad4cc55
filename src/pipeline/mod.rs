//! The input loop: every input merged by timestamp, decoded, worked on (CRCs, filter,
//! rendering) and consumed in order; for memory-mapped inputs, pipelined over a reading
//! thread, the calling thread and any further threads as helpers. Every command runs its
//! inputs through here, and library users get the same threaded reader:
//!
//! ```
//! use std::ops::ControlFlow;
//! use std::path::PathBuf;
//! use rdmadump::filter::PacketFilter;
//! use rdmadump::pipeline::{PipelineError, PipelineOptions, Silent, for_each_packet};
//!
//! let paths = [PathBuf::from("fixtures/roce_v2_crc_cases.pcap")];
//! let options = PipelineOptions { threads: 2, ..PipelineOptions::default() };
//! let mut frames = Vec::new();
//! let all = PacketFilter::default();
//! let report = for_each_packet(&paths, &options, &mut Silent, &all, |_input, packet| {
//!     frames.push(packet.frame);
//!     Ok::<_, PipelineError>(ControlFlow::Continue(()))
//! })?;
//! assert_eq!(report.records, frames.len() as u64);
//! // In capture order, however many threads decoded them.
//! assert!(frames.windows(2).all(|pair| pair[0] < pair[1]));
//! # Ok::<(), PipelineError>(())
//! ```

mod batch;
mod committed;
mod engine;
mod inputs;
mod observer;
mod streaming;

pub use batch::Batch;
pub use observer::{Observer, PROGRESS_EVERY, Silent};

use std::ops::ControlFlow;
use std::path::PathBuf;

use crate::capture::InMemory;
use crate::capture::merge::{InputReport, Merger, open_inputs};
use crate::dissect::{CrcMode, DecodeOptions, Decoder, Packet};
use crate::filter::PacketFilter;
use crate::filter::time::TimeWindow;

use inputs::Inputs;

/// What went wrong in the pipeline itself; the inputs' own troubles are notices and the
/// report's `failed`, and the consumer's errors are its own.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A helper thread ended without handing back its batch (a panic in `work`).
    #[error("pipeline: a worker thread stopped")]
    WorkerStopped,
}

/// How a run reads its inputs.
#[derive(Debug, Clone)]
pub struct PipelineOptions {
    /// Threads to use: 1 does everything on the calling thread; 2 reads and decodes on a
    /// second one; each one more decodes and works on batches beside them. Streams are
    /// read on a thread of their own from 2.
    pub threads: usize,
    /// Memory-map files (otherwise they are read through a buffer, and one packet at a
    /// time).
    pub mmap: bool,
    pub decode: DecodeOptions,
    /// Each input's clock minus the first's, to merge capture points on one clock.
    pub offsets: Vec<i64>,
    /// Verify ICRC and VCRC in [`for_each_packet`].
    pub verify_crcs: bool,
    /// Captures already in memory, by the index of the path that names them: read in place
    /// of that path, which is not opened.
    pub in_memory: Vec<Option<InMemory>>,
}

impl Default for PipelineOptions {
    /// One thread per core, files mapped, CRCs verified.
    fn default() -> Self {
        PipelineOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            mmap: true,
            decode: DecodeOptions::default(),
            offsets: Vec::new(),
            verify_crcs: true,
            in_memory: Vec::new(),
        }
    }
}

/// Runs every packet of every input, merged by timestamp when there are several inputs,
/// through two stages: `work` (CRCs, filtering, rendering: anything that needs no state
/// carried from one batch to the next) and then `consume` (in order, on the calling thread;
/// it may stop the run). With memory-mapped inputs and more than one thread, reading runs
/// on a thread of their own, and decoding and `work` on whole batches wherever there is
/// time for them. Results do not depend on the thread count. `observer` hears of progress
/// and of what is wrong with an input; the report says what was read.
pub fn for_each_batch<W, C, E>(
    paths: &[PathBuf],
    options: &PipelineOptions,
    observer: &mut dyn Observer,
    work: W,
    consume: C,
) -> Result<InputReport, E>
where
    W: for<'m> Fn(&mut Batch<'m>) + Sync,
    C: for<'m> FnMut(&mut Batch<'m>) -> Result<ControlFlow<()>, E>,
    E: From<PipelineError>,
{
    let threads = options.threads;
    let mut opened = Vec::new();
    let mut sources = open_inputs(paths, &options.in_memory, !options.mmap, &mut opened);
    if threads > 1 {
        inputs::read_streams_ahead(&mut sources, threads);
    }
    let mut merger = Merger::open(paths, &mut sources, opened);
    merger.set_offsets(&options.offsets);
    observer.started(merger.len_hint());
    let mut inputs = Inputs { merger, observer };
    // One decoder for every input, fed in merged order, so that what a record teaches
    // (connected-mode IPoIB QPs) applies to the records after it; on three threads or more
    // batches are decoded side by side and their states committed in order.
    let mut opts = options.decode.clone();
    if threads > 1 && inputs.merger.all_mapped() {
        // CRCs are left to `work`, which runs on both threads.
        opts.crc = CrcMode::Deferred;
        let helpers = (threads - 2).min(engine::MAX_HELPERS);
        engine::pipelined(
            &mut inputs,
            &mut Decoder::new(opts),
            helpers,
            &work,
            consume,
        )?;
    } else {
        streaming::streaming(&mut inputs, &mut Decoder::new(opts), &work, consume)?;
    }
    Ok(inputs.finish())
}

/// [`for_each_batch`] for callers that take one packet at a time: CRCs (unless
/// `options.verify_crcs` is off) and the filter run in the worker stage, `visit` in order
/// on this thread.
pub fn for_each_packet<V, E>(
    paths: &[PathBuf],
    options: &PipelineOptions,
    observer: &mut dyn Observer,
    filter: &PacketFilter,
    mut visit: V,
) -> Result<InputReport, E>
where
    V: FnMut(usize, &Packet<'_>) -> Result<ControlFlow<()>, E>,
    E: From<PipelineError>,
{
    let verify_crcs = options.verify_crcs;
    for_each_batch(
        paths,
        options,
        observer,
        |batch: &mut Batch<'_>| {
            if verify_crcs {
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
