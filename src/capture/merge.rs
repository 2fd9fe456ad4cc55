//! Several captures read as one, in timestamp order: what `analyze` needs when capture
//! points are given together. The merge reports what went wrong as values; printing them
//! is the caller's business.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{
    AnyReader, CaptureError, Container, Damage, InMemory, InterfaceInfo, Record, Releaser, Source,
    compressed,
};

/// What reading the inputs found, beyond the packets themselves.
#[derive(Debug, Default, Clone)]
pub struct InputReport {
    /// The inputs as the user named them (`<stdin>` for `-`).
    pub files: Vec<String>,
    /// Records read, before filtering.
    pub records: u64,
    /// Some input ended in the middle of a record.
    pub truncated: bool,
    /// Some input could not be opened or was damaged beyond recovery.
    pub failed: bool,
    /// Each input's own outcome, in the order given: which one failed, and why.
    pub inputs: Vec<InputOutcome>,
}

impl InputReport {
    /// Not a record could be read: every input failed to open or to read. A document made
    /// of nothing would read as a clean, empty capture, so none is written.
    pub fn all_failed(&self) -> bool {
        self.records == 0
            && !self.inputs.is_empty()
            && self.inputs.iter().all(|i| i.status == InputStatus::Failed)
    }
}

/// How reading one input ended.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum InputStatus {
    /// Read to its end.
    #[default]
    Ok,
    /// It ended in the middle of a record (a capture cut short); read up to there.
    Truncated,
    /// It could not be opened, or was damaged beyond recovery: read up to the damage.
    Failed,
}

impl InputStatus {
    pub fn name(self) -> &'static str {
        match self {
            InputStatus::Ok => "ok",
            InputStatus::Truncated => "truncated",
            InputStatus::Failed => "failed",
        }
    }
}

/// One input's outcome, and the error that ended it when it failed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct InputOutcome {
    pub status: InputStatus,
    pub error: Option<String>,
    /// Where in the file (decompressed, for a compressed one) a truncated or damaged input
    /// broke: the record cut short, or the damage that stopped the reading.
    pub broke_at: Option<u64>,
    /// What the reader skipped over to read on past damage.
    pub damage: Damage,
}

/// Something to tell the user about one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Index of the input in the order given.
    pub file: usize,
    /// True when the input could not be read (any further); false for a warning about a
    /// container that was read on.
    pub fatal: bool,
    pub message: String,
}

/// How an input is named in messages: `-` is standard input.
pub fn display_path(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// From this many inputs on, a regular file that is read as a stream (compressed, or
/// `--no-mmap`) waits unopened for its turn in the merge ([`Source::Deferred`]). Open, each
/// holds a decompressor, buffers and a read-ahead thread: 300-370 KB, so 10,000 rotated
/// `.gz` files took 3.7 GB. Below it, every stream is opened at once and read ahead.
pub const DEFER_STREAMS_FROM: usize = 64;

/// Inputs mapped at most. A mapping lasts until the run ends (records borrow from it), and
/// the kernel's `vm.max_map_count` (65,530 by default) counts every one: past 65,530
/// inputs the run aborted. The inputs past this are deferred streams instead.
pub const MAX_MAPPED: usize = 16_384;

/// Opens every path (see [`Source::open`]); a path that cannot be opened is `None`, with a
/// fatal notice. With many inputs, streamed regular files are checked and closed again, to
/// be opened when the merge reaches them ([`DEFER_STREAMS_FROM`], [`MAX_MAPPED`]).
pub fn open_sources(
    paths: &[PathBuf],
    no_mmap: bool,
    notices: &mut Vec<Notice>,
) -> Vec<Option<Source>> {
    open_inputs(paths, &[], no_mmap, notices)
}

/// [`open_sources`], except that the capture `in_memory` holds at a path's index is read in
/// place of that path, which then only names it.
pub fn open_inputs(
    paths: &[PathBuf],
    in_memory: &[Option<InMemory>],
    no_mmap: bool,
    notices: &mut Vec<Notice>,
) -> Vec<Option<Source>> {
    let many = paths.len() >= DEFER_STREAMS_FROM;
    let mut mapped = 0;
    paths
        .iter()
        .enumerate()
        .map(|(file, path)| {
            let held = in_memory.get(file).cloned().flatten();
            let from_disk = held.is_none();
            let opened = match held {
                Some(bytes) => Source::in_memory(bytes),
                None => Source::open(path, no_mmap || mapped >= MAX_MAPPED),
            };
            match opened {
                Ok(Source::Mapped(map)) => {
                    mapped += 1;
                    Some(Source::Mapped(map))
                }
                Ok(Source::Stream(..)) if many && from_disk && is_regular_file(path) => {
                    Some(Source::Deferred(path.clone()))
                }
                Ok(source) => Some(source),
                Err(err) => {
                    notices.push(Notice {
                        file,
                        fatal: true,
                        message: err.to_string(),
                    });
                    None
                }
            }
        })
        .collect()
}

/// A regular file, not standard input or a pipe: one that can be opened again by its path.
fn is_regular_file(path: &Path) -> bool {
    path.as_os_str() != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// A deferred input before its turn: where to open it again, and when its first record
/// merges.
struct Parked {
    path: PathBuf,
    first_ts: Option<u64>,
}

/// A k-way merge of capture readers by record timestamp. Frame numbers count per input,
/// from 1, as Wireshark numbers them.
pub struct Merger<'m> {
    /// Each input's reader with the frame number of its current record; `None` once the
    /// input is finished or failed, or while it is parked.
    readers: Vec<Option<(AnyReader<'m>, u64)>>,
    /// Deferred inputs that gave a first record and wait, closed, for the merge to reach
    /// it. A deferred input is read once to find that record, then again from its start.
    parked: Vec<Option<Parked>>,
    /// Inputs whose next record did not arrive within the wait limit: they have no current
    /// record until advanced again.
    stalled: Vec<bool>,
    /// The stalled inputs, so that finding them costs nothing when there are none.
    waiting: Vec<usize>,
    report: InputReport,
    notices: Vec<Notice>,
    /// Each input's clock minus the reference clock: records are merged on the reference
    /// clock, so that capture points whose clocks differ interleave as the packets flowed.
    offsets: Vec<i64>,
    /// The inputs with a current record, earliest first: (merge time, input, that input's
    /// step when pushed). Scanning every input for every record made 1,000 inputs cost
    /// 11 times the CPU of one file of the same records. An entry whose step is not its
    /// input's current one is left over from a record already used, and skipped.
    queue: Queue,
    /// How many times each input has moved on.
    steps: Vec<u64>,
    /// Queue entries looked at, to check that a record costs the same however many inputs.
    #[cfg(test)]
    looked_at: u64,
}

impl<'m> Merger<'m> {
    /// Opens a reader on every source and positions it on its first record. `notices`
    /// holds what opening the sources already found.
    pub fn open(
        paths: &[PathBuf],
        sources: &'m mut [Option<Source>],
        mut notices: Vec<Notice>,
    ) -> Self {
        let mut report = InputReport {
            files: paths.iter().map(|p| display_path(p)).collect(),
            failed: notices.iter().any(|n| n.fatal),
            inputs: vec![InputOutcome::default(); paths.len()],
            ..InputReport::default()
        };
        for notice in notices.iter().filter(|n| n.fatal) {
            mark_failed(&mut report, notice.file, &notice.message);
        }
        let mut readers = Vec::with_capacity(sources.len());
        let mut parked: Vec<Option<Parked>> = Vec::with_capacity(sources.len());
        for (file, source) in sources.iter_mut().enumerate() {
            if let Some(Source::Deferred(path)) = source {
                let (reader, park) = match park(path) {
                    Ok(Ok(park)) => (None, Some(park)),
                    // No record to merge: kept open, for what it warned of.
                    Ok(Err(reader)) => (Some((reader, 0)), None),
                    Err(err) => (fail(&mut report, &mut notices, file, &err), None),
                };
                readers.push(reader);
                parked.push(park);
                continue;
            }
            parked.push(None);
            let opened = source.as_mut().map(AnyReader::open);
            let reader = match opened {
                Some(Ok(mut reader)) => match reader.advance() {
                    Ok(_) => Some((reader, 0)),
                    Err(err) => fail(&mut report, &mut notices, file, &err),
                },
                Some(Err(err)) => fail(&mut report, &mut notices, file, &err),
                None => None,
            };
            readers.push(reader);
        }
        let readers_len = readers.len();
        let mut merger = Merger {
            stalled: vec![false; readers.len()],
            waiting: Vec::new(),
            steps: vec![0; readers.len()],
            readers,
            parked,
            report,
            notices,
            offsets: Vec::new(),
            queue: Queue::for_inputs(readers_len),
            #[cfg(test)]
            looked_at: 0,
        };
        merger.requeue_all();
        merger
    }

    /// Merges on the reference clock: `offsets[i]` is input i's clock minus the reference's.
    pub fn set_offsets(&mut self, offsets: &[i64]) {
        self.offsets = offsets.to_vec();
        self.requeue_all();
    }

    /// When input `index`'s current record is merged: a record without a timestamp (pcapng
    /// SPB) at 0, so that it goes first and stays next to its neighbours.
    fn merge_time(&self, index: usize) -> Option<u64> {
        let ts = match self.readers.get(index)? {
            Some((reader, _)) => reader.current_ts()?,
            None => self.parked.get(index)?.as_ref()?.first_ts,
        };
        let offset = self.offsets.get(index).copied().unwrap_or(0);
        Some(ts.unwrap_or(0).saturating_add_signed(-offset))
    }

    /// Puts input `index` in the queue at its current record, if it has one.
    fn enqueue(&mut self, index: usize) {
        if let Some(at) = self.merge_time(index) {
            self.queue.push((at, index, self.steps[index]));
        }
    }

    fn requeue_all(&mut self) {
        self.queue.clear();
        for index in 0..self.readers.len() {
            self.enqueue(index);
        }
    }

    /// Total size of the inputs, where known, for a progress display.
    pub fn len_hint(&self) -> u64 {
        self.readers
            .iter()
            .flatten()
            .filter_map(|(r, _)| r.len_hint())
            .sum()
    }

    /// Bytes consumed so far over all inputs still open.
    pub fn position(&self) -> u64 {
        self.readers
            .iter()
            .flatten()
            .map(|(r, _)| r.position())
            .sum()
    }

    /// The inputs' names, in the order given.
    pub fn files(&self) -> &[String] {
        &self.report.files
    }

    /// Records handed out so far.
    pub fn records(&self) -> u64 {
        self.report.records
    }

    /// Every input has failed and none gave a record (see [`InputReport::all_failed`]).
    pub fn all_failed(&self) -> bool {
        self.report.all_failed()
    }

    /// True when every open input is memory-mapped, so records outlive the reader's next
    /// step and can be held in batches.
    pub fn all_mapped(&self) -> bool {
        self.parked.iter().all(Option::is_none)
            && self.readers.iter().flatten().all(|(r, _)| r.is_mapped())
    }

    /// The input whose current record is earliest, with that record's frame number. A
    /// record without a timestamp (pcapng SPB) goes first, so it stays next to its
    /// neighbours; ties keep command-line order.
    pub fn next_record(&mut self) -> Option<(usize, u64)> {
        // A stalled input still holds its place in the merge: its next record is waited
        // for, however long it takes, before any record is chosen.
        for index in std::mem::take(&mut self.waiting) {
            if let Some(Some((reader, _))) = self.readers.get_mut(index) {
                reader.set_wait_limit(None);
            }
            self.advance(index);
        }
        // Ties keep command-line order: the queue orders on (time, input).
        let index = loop {
            let (_, index, step) = self.queue.peek()?;
            #[cfg(test)]
            {
                self.looked_at += 1;
            }
            if step == self.steps[index] && (self.readers[index].is_some() || self.unpark(index)) {
                break index;
            }
            self.queue.pop();
        };
        let (_, frames) = self.readers[index].as_mut()?;
        *frames += 1;
        self.report.records += 1;
        Some((index, *frames))
    }

    /// Opens parked input `index` again, on its first record, now that the merge reached
    /// it; false when it is not parked or cannot be read any more.
    #[cold]
    fn unpark(&mut self, index: usize) -> bool {
        let Some(parked) = self.parked.get_mut(index).and_then(Option::take) else {
            return false;
        };
        match on_first_record(&parked.path) {
            Ok((reader, true)) => {
                self.readers[index] = Some((reader, 0));
                true
            }
            Ok((_, false)) => {
                let err = "the capture changed while it was read: its records are gone";
                fail::<()>(&mut self.report, &mut self.notices, index, &err);
                false
            }
            Err(err) => {
                fail::<()>(&mut self.report, &mut self.notices, index, &err);
                false
            }
        }
    }

    /// The current record of input `index`, borrowed until the input moves on.
    pub fn current(&mut self, index: usize) -> Option<Record<'_>> {
        self.readers.get_mut(index)?.as_mut()?.0.current()
    }

    /// The current record of a memory-mapped input `index`, borrowed from the mapping.
    pub fn current_mapped(&self, index: usize) -> Option<Record<'m>> {
        self.readers.get(index)?.as_ref()?.0.current_mapped()
    }

    /// Says that every record of input `index` before file `offset` is used up (consumed,
    /// and held by no batch), so that a mapped input can drop those pages.
    pub fn release_before(&mut self, index: usize, offset: u64) {
        if let Some(Some((reader, _))) = self.readers.get_mut(index) {
            reader.release_before(offset);
        }
    }

    /// For each input, what drops its mapped pages from the thread that uses up records,
    /// which then calls it instead of [`Merger::release_before`].
    pub fn releasers(&self) -> Vec<Option<Releaser<'m>>> {
        self.readers
            .iter()
            .map(|r| r.as_ref().and_then(|(reader, _)| reader.releaser()))
            .collect()
    }

    /// The container of input `index`, while it is still being read.
    pub fn container(&self, index: usize) -> Option<Container> {
        Some(self.readers.get(index)?.as_ref()?.0.container())
    }

    /// Interface `id` of input `index` as its container declares it, for the current
    /// record (pcapng: in the current section).
    pub fn interface(&self, index: usize, id: u32) -> Option<InterfaceInfo> {
        self.readers.get(index)?.as_ref()?.0.interface(id)
    }

    /// Moves input `index` past the record just used, noting what the container says.
    pub fn advance(&mut self, index: usize) {
        let Some(Some((reader, _))) = self.readers.get_mut(index) else {
            return;
        };
        let advanced = reader.advance();
        collect_warnings(reader, index, &mut self.notices, &mut self.report);
        // The record used is the queue's first, but for a caller that skipped one.
        if let Some((_, first, step)) = self.queue.peek()
            && (first, step) == (index, self.steps[index])
        {
            self.queue.pop();
        }
        self.steps[index] += 1;
        if let Some(stalled) = self.stalled.get_mut(index) {
            let was = *stalled;
            *stalled =
                matches!(&advanced, Err(CaptureError::Io(e)) if e.kind() == ErrorKind::WouldBlock);
            if was != *stalled {
                if *stalled {
                    self.waiting.push(index);
                } else {
                    self.waiting.retain(|&i| i != index);
                }
            }
            if *stalled {
                return;
            }
        }
        match advanced {
            Ok(true) => match &mut self.queue {
                // One input goes next whenever it has a record: no time to look up.
                Queue::One(slot) => *slot = Some((0, index, self.steps[index])),
                Queue::Many(_) => self.enqueue(index),
            },
            Ok(false) => {
                if reader.was_cut_short() {
                    self.report.truncated = true;
                    if let Some(input) = self.report.inputs.get_mut(index) {
                        input.status = InputStatus::Truncated;
                        // Every whole record before it was consumed.
                        input.broke_at = Some(reader.position());
                    }
                }
                self.readers[index] = None;
            }
            Err(CaptureError::Io(err)) if compressed::is_cut_short(&err) => {
                // Like an uncompressed capture cut short: every record before was read.
                self.report.truncated = true;
                if let Some(input) = self.report.inputs.get_mut(index) {
                    input.status = InputStatus::Truncated;
                    input.broke_at = Some(reader.position());
                }
                self.notices.push(Notice {
                    file: index,
                    fatal: false,
                    message: format!("offset {}: {err}", reader.position()),
                });
                self.readers[index] = None;
            }
            Err(err) => {
                fail::<()>(&mut self.report, &mut self.notices, index, &err);
                if let Some(input) = self.report.inputs.get_mut(index) {
                    input.broke_at = Some(match err {
                        CaptureError::Damaged { offset, .. } => offset,
                        _ => reader.position(),
                    });
                }
                self.readers[index] = None;
            }
        }
    }

    /// Lets every input wait at most `limit` for its next record when advanced (`None`:
    /// as long as it takes); an input that waited in vain is stalled.
    pub fn set_wait_limit(&mut self, limit: Option<Duration>) {
        for (reader, _) in self.readers.iter_mut().flatten() {
            reader.set_wait_limit(limit);
        }
    }

    /// Some input's next record did not arrive within the wait limit.
    pub fn is_stalled(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The inputs' names, and what has been found since the last call, in the order found.
    pub fn files_and_notices(&mut self) -> (&[String], std::vec::Drain<'_, Notice>) {
        (&self.report.files, self.notices.drain(..))
    }

    /// Ends the merge: the summary, and the notices not yet taken.
    pub fn finish(mut self) -> (InputReport, Vec<Notice>) {
        for (file, slot) in self.readers.iter_mut().enumerate() {
            if let Some((reader, _)) = slot {
                collect_warnings(reader, file, &mut self.notices, &mut self.report);
            }
        }
        (self.report, self.notices)
    }
}

/// Notes that input `file` failed, and marks the run as failed.
/// A queue entry: (merge time, input, that input's step when pushed).
type Entry = (u64, usize, u64);

/// The merge queue. One input, the common case, needs no heap: its one entry is a slot,
/// which saves every record a heap push and pop.
enum Queue {
    One(Option<Entry>),
    Many(BinaryHeap<Reverse<Entry>>),
}

impl Queue {
    fn for_inputs(inputs: usize) -> Self {
        if inputs <= 1 {
            Queue::One(None)
        } else {
            Queue::Many(BinaryHeap::with_capacity(inputs))
        }
    }

    /// With one input, an entry replaces any older one, which is stale by then.
    fn push(&mut self, entry: Entry) {
        match self {
            Queue::One(slot) => *slot = Some(entry),
            Queue::Many(heap) => heap.push(Reverse(entry)),
        }
    }

    fn peek(&self) -> Option<Entry> {
        match self {
            Queue::One(slot) => *slot,
            Queue::Many(heap) => heap.peek().map(|&Reverse(entry)| entry),
        }
    }

    fn pop(&mut self) {
        match self {
            Queue::One(slot) => *slot = None,
            Queue::Many(heap) => {
                heap.pop();
            }
        }
    }

    fn clear(&mut self) {
        match self {
            Queue::One(slot) => *slot = None,
            Queue::Many(heap) => heap.clear(),
        }
    }
}

fn fail<T>(
    report: &mut InputReport,
    notices: &mut Vec<Notice>,
    file: usize,
    err: &dyn std::fmt::Display,
) -> Option<T> {
    let message = err.to_string();
    mark_failed(report, file, &message);
    notices.push(Notice {
        file,
        fatal: true,
        message,
    });
    report.failed = true;
    None
}

fn mark_failed(report: &mut InputReport, file: usize, message: &str) {
    if let Some(input) = report.inputs.get_mut(file) {
        input.status = InputStatus::Failed;
        input.error = Some(message.to_string());
    }
}

/// Passes on what the reader warned of, and keeps its damage count in the input's outcome.
/// Warnings past the reader's cap were counted only: one notice says how many.
fn collect_warnings(
    reader: &mut AnyReader<'_>,
    file: usize,
    notices: &mut Vec<Notice>,
    report: &mut InputReport,
) {
    if !reader.has_warnings() {
        return;
    }
    notices.extend(reader.take_warnings().into_iter().map(|w| Notice {
        file,
        fatal: false,
        message: w.to_string(),
    }));
    let damage = reader.damage();
    if let Some(outcome) = report.inputs.get_mut(file) {
        let dropped = damage.warnings_dropped - outcome.damage.warnings_dropped;
        if dropped > 0 {
            notices.push(Notice {
                file,
                fatal: false,
                message: format!(
                    "{dropped} more warnings at offset {} were counted, not listed",
                    reader.position()
                ),
            });
        }
        outcome.damage = damage;
    }
}

/// Reads a deferred input up to its first record, and closes it again: parked, when it
/// has one; otherwise its reader, which has nothing to merge but what it warned of.
fn park<'any>(path: &Path) -> Result<Result<Parked, AnyReader<'any>>, CaptureError> {
    let (reader, has_record) = on_first_record(path)?;
    if !has_record {
        return Ok(Err(reader));
    }
    Ok(Ok(Parked {
        path: path.to_path_buf(),
        first_ts: reader.current_ts().flatten(),
    }))
}

/// `path` opened as an owning stream and moved to its first record; false when it has none.
fn on_first_record<'any>(path: &Path) -> Result<(AnyReader<'any>, bool), CaptureError> {
    let mut reader = AnyReader::owning(path)?;
    let has_record = reader.advance()?;
    Ok((reader, has_record))
}

/// Records looked at in each file for a timestamp, past any pcapng Simple Packet Blocks,
/// which have none.
const FIRST_TIMESTAMP_SCAN: usize = 1024;

/// The time of the first record of the merged inputs (the earliest of each file's first
/// timestamped record), read ahead from the files themselves. `None` when an input is
/// standard input or a pipe, which can only be read once, or when no input has a
/// timestamped record near its start.
pub fn first_timestamp(paths: &[PathBuf]) -> Option<u64> {
    let mut earliest: Option<u64> = None;
    for path in paths {
        if path.as_os_str() == "-" || !std::fs::metadata(path).ok()?.is_file() {
            return None;
        }
        let Ok(mut source) = Source::open(path, true) else {
            continue;
        };
        let Ok(mut reader) = AnyReader::open(&mut source) else {
            continue;
        };
        for _ in 0..FIRST_TIMESTAMP_SCAN {
            match reader.advance() {
                Ok(true) => {}
                _ => break,
            }
            if let Some(Some(ts)) = reader.current_ts() {
                earliest = Some(earliest.map_or(ts, |e| e.min(ts)));
                break;
            }
        }
    }
    earliest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A classic pcap (nanosecond timestamps) of one-byte records at `times`.
    fn pcap(times: &[u64]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for word in [0xa1b2_3c4du32, 0x0004_0002, 0, 0, 65535, 1] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        for &ts in times {
            let (secs, nanos) = ((ts / 1_000_000_000) as u32, (ts % 1_000_000_000) as u32);
            for word in [secs, nanos, 1, 1] {
                bytes.extend_from_slice(&word.to_le_bytes());
            }
            bytes.push(0);
        }
        bytes
    }

    fn streams(files: &[Vec<u8>]) -> Vec<Option<Source>> {
        files
            .iter()
            .map(|f| {
                Some(Source::Stream(
                    Box::new(std::io::Cursor::new(f.clone())),
                    None,
                ))
            })
            .collect()
    }

    /// Every record as (input, frame, time), in merged order, and the queue entries looked at.
    fn merged(files: &[Vec<u8>], offsets: &[i64]) -> (Vec<(usize, u64, u64)>, u64) {
        let paths: Vec<PathBuf> = (0..files.len()).map(|i| format!("{i}").into()).collect();
        let mut sources = streams(files);
        let mut merger = Merger::open(&paths, &mut sources, Vec::new());
        merger.set_offsets(offsets);
        let mut order = Vec::new();
        while let Some((index, frame)) = merger.next_record() {
            let ts = merger.current(index).and_then(|r| r.ts_ns).unwrap_or(0);
            order.push((index, frame, ts));
            merger.advance(index);
        }
        (order, merger.looked_at)
    }

    #[test]
    fn merges_by_time_and_ties_keep_command_line_order() {
        let files = [pcap(&[5, 10, 10, 30]), pcap(&[10, 20]), pcap(&[1, 10])];
        let (order, _) = merged(&files, &[]);
        let expected = [
            (2, 1, 1),
            (0, 1, 5),
            (0, 2, 10),
            (0, 3, 10),
            (1, 1, 10),
            (2, 2, 10),
            (1, 2, 20),
            (0, 4, 30),
        ];
        assert_eq!(order, expected);
        // Input 1's clock runs 15 ns ahead: its records merge 15 ns earlier (the first at 0).
        let (order, _) = merged(&files, &[0, 15, 0]);
        let inputs: Vec<usize> = order.iter().map(|&(i, _, _)| i).collect();
        assert_eq!(inputs, [1, 2, 0, 1, 0, 0, 2, 0]);
    }

    /// Rotated captures, many of them, some compressed: each is opened when the merge
    /// reaches it and closed when done, and the merge is the one of all inputs opened at
    /// once.
    #[test]
    fn many_inputs_are_opened_in_turn_and_merge_as_if_all_were_open() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let inputs = DEFER_STREAMS_FROM + 6;
        let mut files = Vec::new();
        let mut paths = Vec::new();
        for i in 0..inputs as u64 {
            // Each file its own second, but for the last two, which overlap the first.
            let base = if i + 2 >= inputs as u64 { 1 } else { i * 1_000 };
            let bytes = pcap(&[base, base + 2, base + 5]);
            let path = dir.path().join(format!("part{i}.pcap"));
            if i % 3 == 0 {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), Default::default());
                gz.write_all(&bytes).unwrap();
                std::fs::write(&path, gz.finish().unwrap()).unwrap();
            } else {
                std::fs::write(&path, &bytes).unwrap();
            }
            files.push(bytes);
            paths.push(path);
        }
        let (expected, _) = merged(&files, &[]);

        let mut notices = Vec::new();
        let mut sources = open_sources(&paths, true, &mut notices);
        assert!(notices.is_empty(), "{notices:?}");
        assert!(
            sources
                .iter()
                .all(|s| matches!(s, Some(Source::Deferred(_))))
        );
        let mut merger = Merger::open(&paths, &mut sources, Vec::new());
        assert!(!merger.all_mapped());
        let open = |m: &Merger<'_>| m.readers.iter().flatten().count();
        assert_eq!(open(&merger), 0, "nothing is open before its turn");
        let mut order = Vec::new();
        let mut most_open = 0;
        while let Some((index, frame)) = merger.next_record() {
            most_open = most_open.max(open(&merger));
            let ts = merger.current(index).and_then(|r| r.ts_ns).unwrap_or(0);
            order.push((index, frame, ts));
            merger.advance(index);
        }
        assert_eq!(order, expected);
        // The three inputs of the first second overlap; the others come one at a time.
        assert_eq!(most_open, 3);
        let (report, notices) = merger.finish();
        assert!(notices.is_empty() && !report.failed, "{notices:?}");
        assert_eq!(report.records, 3 * inputs as u64);
    }

    /// A deferred input that cannot be read is a failed input, and the others go on.
    #[test]
    fn a_deferred_input_that_turns_out_damaged_fails_alone() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for i in 0..DEFER_STREAMS_FROM {
            let path = dir.path().join(format!("p{i}.pcap"));
            let bytes = if i == 5 {
                b"not a capture at all, but long enough".to_vec()
            } else {
                pcap(&[i as u64 * 10])
            };
            std::fs::write(&path, bytes).unwrap();
            paths.push(path);
        }
        let mut notices = Vec::new();
        let mut sources = open_sources(&paths, true, &mut notices);
        let mut merger = Merger::open(&paths, &mut sources, notices);
        let mut records = 0;
        while let Some((index, _)) = merger.next_record() {
            records += 1;
            merger.advance(index);
        }
        let (report, _) = merger.finish();
        assert_eq!(records, DEFER_STREAMS_FROM - 1);
        assert_eq!(report.inputs[5].status, InputStatus::Failed);
        assert!(
            report
                .inputs
                .iter()
                .filter(|i| i.status == InputStatus::Failed)
                .count()
                == 1
        );
    }

    /// The scan this replaces looked at every input for every record.
    #[test]
    fn a_record_costs_the_same_for_a_hundred_times_the_inputs() {
        let looked_at_per_record = |inputs: u64| {
            let records = 2000 / inputs;
            let files: Vec<Vec<u8>> = (0..inputs)
                .map(|i| pcap(&(0..records).map(|r| r * inputs + i).collect::<Vec<_>>()))
                .collect();
            let (order, looked_at) = merged(&files, &[]);
            assert_eq!(order.len() as u64, records * inputs);
            assert!(order.windows(2).all(|w| w[0].2 < w[1].2));
            looked_at as f64 / order.len() as f64
        };
        let few = looked_at_per_record(2);
        let many = looked_at_per_record(200);
        assert!(few <= 1.0 && many <= 1.0, "{few} and {many} per record");
    }
}
