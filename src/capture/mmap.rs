//! One of the three places with `unsafe` (the others are `spool.rs` and `pipe.rs`): mapping
//! a capture file into memory.
//!
//! Safety and its limit: a mapping stays valid only while nobody truncates the file. If
//! another process shrinks the file while rdmadump reads it (a capture rotated or truncated
//! in place), touching the vanished pages raises SIGBUS and the process dies; Rust cannot
//! turn that into an error. rdmadump therefore maps only regular files, and offers
//! `--no-mmap`, which reads through a bounded buffer instead, for files that may still be
//! written or truncated while they are read. Pipes and FIFOs are always streamed; stdin is
//! mapped only when it is a regular file read from its start (`rdmadump read - < file`).
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::ops::Deref;

pub struct Mapped(memmap2::Mmap);

impl Mapped {
    /// Maps `file` without reading it: `read_ahead` asks the disk for each part before it is read.
    pub fn map(file: &File) -> io::Result<Mapped> {
        // SAFETY: the mapping is read-only and private to this process; see the module
        // comment for the truncation hazard and the `--no-mmap` escape hatch.
        let map = unsafe { memmap2::MmapOptions::new().map(file)? };
        // Records are read front to back once.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Mapped(map))
    }

    /// Asks the kernel to start reading `offset..offset + len` from disk (MADV_WILLNEED),
    /// so that disk reads overlap decoding. The pages are mapped by the reader's own page
    /// faults, sixteen at a time (the kernel's fault-around). Populating each window
    /// instead (MADV_POPULATE_READ) cost more than those faults, on the reading thread,
    /// and kept the window resident, raising the peak RSS, for no gain on a cold
    /// cache. Best effort: the bytes are read either way.
    pub fn read_ahead(&self, offset: usize, len: usize) {
        let len = len.min(self.0.len().saturating_sub(offset));
        #[cfg(unix)]
        if len > 0 {
            let _ = self.0.advise_range(memmap2::Advice::WillNeed, offset, len);
        }
    }

    /// Drops this process's pages of `offset..offset + len` (MADV_DONTNEED), so that the
    /// part of a capture already read stops counting in its resident size. The file's
    /// bytes stay in the page cache; touching the range again reads them back, so a
    /// release that comes too early costs a page fault, never a wrong byte. Best effort.
    pub fn release(&self, offset: usize, len: usize) {
        let len = len.min(self.0.len().saturating_sub(offset));
        if len == 0 {
            return;
        }
        // SAFETY: the mapping is private, read-only and never written, so its pages hold
        // exactly the file's bytes: dropping them only makes the next access fault them in
        // again from the file, which any borrowed slice then reads unchanged.
        #[cfg(unix)]
        let _ = unsafe {
            self.0
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len)
        };
    }
}

impl Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// Asks the processor to fetch the cache line at the start of `bytes` into its caches,
/// with no wait and no fault: a hint for bytes that are read soon. Nothing on other
/// targets.
#[inline]
pub fn prefetch_line(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch reads nothing the
        // program sees: it cannot fault, even on an address past the end.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}
