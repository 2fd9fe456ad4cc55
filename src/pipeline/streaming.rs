//! One packet at a time, on the calling thread.

use std::ops::ControlFlow;

use smallvec::SmallVec;

use super::batch::Batch;
use super::inputs::Inputs;
use crate::dissect::Decoder;

/// One packet at a time, for streams, whose record bytes live only until the next read.
pub(super) fn streaming<W, C, E>(
    inputs: &mut Inputs<'_, '_>,
    decoder: &mut Decoder,
    work: &W,
    mut consume: C,
) -> Result<(), E>
where
    W: for<'m> Fn(&mut Batch<'m>),
    C: for<'m> FnMut(&mut Batch<'m>) -> Result<ControlFlow<()>, E>,
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
            // The rest of the batch is dropped with it: its packet holds nothing to free.
            batch.clear_output();
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
