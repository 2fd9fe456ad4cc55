//! A pipe's buffer, widened for the capture that streams through it.
//!
//! Linux gives a pipe 64 KiB, so a writer (`cat`, `tcpdump -w -`, `zstdcat`) and rdmadump
//! take turns every 64 KiB, each waking the other. With 1 MiB they take turns sixteen
//! times less often, and a capture streamed through a pipe is read measurably faster. The
//! kernel holds the 1 MiB, not rdmadump, and only while the pipe is full.
//!
//! The one `fcntl` call is why this file allows `unsafe`, the third place after `mmap.rs` and
//! `spool.rs`.
#![allow(unsafe_code)]

use std::fs::File;

/// The buffer asked for: `/proc/sys/fs/pipe-max-size`'s default, which an unprivileged
/// process may ask for.
pub const PIPE_BYTES: i32 = 1 << 20;

/// Asks for a [`PIPE_BYTES`] buffer on `file` if it is a pipe, and leaves it as it is when
/// the kernel refuses (an older kernel, a lower limit, not a pipe). Best effort.
pub fn widen(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: F_SETPIPE_SZ takes an int and touches no memory of this process; on a
        // descriptor that is not a pipe it fails with EBADF, which is ignored.
        let _ = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}
