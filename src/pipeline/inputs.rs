//! The inputs of a run, merged by timestamp, with the observer told how reading them goes;
//! and the threads that read streams ahead of the decoding.

use crate::capture::merge::{InputReport, Merger};
use crate::capture::readahead::ReadAhead;
use crate::capture::{Source, Spool};

use super::observer::{Observer, PROGRESS_EVERY};

/// Threads from which streams are spooled (see `read_streams_ahead`).
const SPOOL_THREADS: usize = 3;

/// The merged inputs, and the observer of reading them.
pub(super) struct Inputs<'m, 'o> {
    pub(super) merger: Merger<'m>,
    pub(super) observer: &'o mut dyn Observer,
}

impl Inputs<'_, '_> {
    pub(super) fn next(&mut self) -> Option<(usize, u64)> {
        let records = self.merger.records();
        if records.is_multiple_of(PROGRESS_EVERY) {
            self.observer.progress(self.merger.position(), records);
        }
        self.merger.next_record()
    }

    pub(super) fn advance(&mut self, index: usize) {
        self.merger.advance(index);
        let (files, notices) = self.merger.files_and_notices();
        for notice in notices {
            self.observer.notice(files, &notice);
        }
    }

    pub(super) fn finish(self) -> InputReport {
        self.observer.finished();
        let (report, notices) = self.merger.finish();
        for notice in &notices {
            self.observer.notice(&report.files, notice);
        }
        report
    }
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
pub(super) fn read_streams_ahead(sources: &mut [Option<Source>], threads: usize) {
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
