//! What a run tells its caller while it reads: how far it is, and what it found wrong with
//! an input. The library prints nothing; the command line shows a progress bar and writes
//! the notices to stderr.

use crate::capture::merge::Notice;

/// Records between two [`Observer::progress`] calls: rare enough to cost nothing per
/// packet.
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// Told, on the reading thread, how reading goes; none of it is called per packet.
pub trait Observer: Send {
    /// The inputs are open; `total_bytes` is their size when known (0 when not).
    fn started(&mut self, total_bytes: u64) {
        let _ = total_bytes;
    }

    /// Every [`PROGRESS_EVERY`] records: the bytes and records read so far.
    fn progress(&mut self, bytes: u64, records: u64) {
        let _ = (bytes, records);
    }

    /// Something about input `notice.file`, named `files[notice.file]`: a warning, or why
    /// it could not be read on.
    fn notice(&mut self, files: &[String], notice: &Notice) {
        let _ = (files, notice);
    }

    /// Reading is over. Notices about the inputs' ends may still follow.
    fn finished(&mut self) {}
}

/// An observer that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Observer for Silent {}
