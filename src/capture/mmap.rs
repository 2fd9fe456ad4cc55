//! The one place with `unsafe`: mapping a capture file into memory.
//!
//! Safety and its limit: a mapping stays valid only while nobody truncates the file. If
//! another process shrinks the file while rdmadump reads it (a capture rotated or truncated
//! in place), touching the vanished pages raises SIGBUS and the process dies; Rust cannot
//! turn that into an error. rdmadump therefore maps only regular files, and offers
//! `--no-mmap`, which reads through a bounded buffer instead, for files that may still be
//! written or truncated while they are read. Pipes, FIFOs and stdin are always streamed.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::ops::Deref;

pub struct Mapped(memmap2::Mmap);

impl Mapped {
    pub fn map(file: &File) -> io::Result<Mapped> {
        // SAFETY: the mapping is read-only and private to this process; see the module
        // comment for the truncation hazard and the `--no-mmap` escape hatch.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        // Records are read front to back once.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Mapped(map))
    }
}

impl Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}
