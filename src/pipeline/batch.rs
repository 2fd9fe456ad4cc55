//! A batch of packets: decoded together, worked on together, consumed in order.

use smallvec::SmallVec;

use super::committed::CommittedCmState;
use crate::capture::Record;
use crate::dissect::{DecodeOptions, Decoder, FrameClock, IpoibCmState, Packet, decode_with_state};

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
    /// What else the worker stage made of the packets, for the consumer to take in order:
    /// `export` builds a batch's rows as Arrow columns there, off the consuming thread.
    /// Typed by the caller, since what a worker makes is the caller's business.
    pub made: Option<Box<dyn std::any::Any + Send>>,
    /// On the pipelined path, the records read for this batch and not decoded yet.
    pub(super) staged: Vec<Staged<'m>>,
    /// The generation of the [`CommittedCmState`] the staged records were decoded with;
    /// `None` before they are, and for a batch decoded in capture order as it was read.
    pub(super) decoded_at_generation: Option<u64>,
    /// The IPoIB-CM state at the batch's end, when its records changed it.
    pub(super) changed_state: Option<Box<IpoibCmState>>,
}

/// A record read and given its clock, waiting to be decoded on whichever thread has time.
pub(super) struct Staged<'m> {
    pub(super) index: usize,
    pub(super) record: Record<'m>,
    pub(super) frame: u64,
    pub(super) clock: FrameClock,
}

impl<'m> Batch<'m> {
    /// Decodes a record straight into the batch's storage, with no 500-byte move after.
    pub(super) fn decode(
        &mut self,
        index: usize,
        record: &Record<'m>,
        frame: u64,
        decoder: &mut Decoder,
    ) {
        self.packets.push((index, Packet::default()));
        if let Some((_, slot)) = self.packets.last_mut() {
            decoder.decode_into(slot, record, frame);
        }
    }

    /// Decodes the staged records from the state committed now; the records stay staged, in
    /// case the batch must be decoded again.
    pub(super) fn decode_staged(&mut self, opts: &DecodeOptions, committed: &CommittedCmState) {
        let (generation, snapshot) = committed.snapshot();
        // A copy per batch (1.3 KB, for 512 packets) that the batch's own records may add to.
        let mut state = IpoibCmState::clone(&snapshot);
        let mut changed = false;
        self.packets.clear();
        for staged in &self.staged {
            self.packets.push((staged.index, Packet::default()));
            if let Some((_, slot)) = self.packets.last_mut() {
                changed |= decode_with_state(
                    opts,
                    &mut state,
                    slot,
                    &staged.record,
                    staged.frame,
                    staged.clock,
                );
            }
        }
        self.decoded_at_generation = Some(generation);
        self.changed_state = changed.then(|| Box::new(state));
    }

    /// Records in the batch, decoded or staged.
    pub(super) fn len(&self) -> usize {
        self.packets.len().max(self.staged.len())
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What `work` wrote.
    pub(super) fn clear_output(&mut self) {
        self.out.clear();
        self.ends.clear();
        self.marks.clear();
        self.made = None;
    }

    pub(super) fn clear(&mut self) {
        self.packets.clear();
        self.clear_output();
        self.staged.clear();
        self.decoded_at_generation = None;
        self.changed_state = None;
    }
}
