//! A stream (stdin, a pipe, a compressed capture) read into one growing, contiguous region
//! of memory on a thread of its own, so that its records can be held in batches and decoded
//! on several threads exactly as a mapped file's are.
//!
//! The region is a large reservation of address space (nothing is allocated until it is
//! written). The filling thread writes only past `filled`, and readers borrow only before
//! it, so no byte is ever written while it is borrowed. Behind the records used up, pages
//! are given back a chunk at a time, and the filling thread keeps at most `AHEAD` bytes
//! beyond them, so memory stays bounded however long the stream.
#![allow(unsafe_code)]

use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Address space asked for, largest first: a stream longer than the reservation ends with
/// an error at that point. Reserving costs no memory, only page tables for what is touched.
const RESERVATIONS: [usize; 3] = [1 << 45, 1 << 40, 1 << 36];

/// Bytes read and not yet released that the filling thread stops at, unless the reader is
/// waiting for more (a record longer than this, or batches holding many records). Behind
/// the reader lie the batches in flight (3 MB of 1 KiB frames) and a partly used release
/// chunk; this leaves the reader a few megabytes of lead over a pipe.
const AHEAD: usize = 8 << 20;

/// Pages are given back this many bytes at a time: one huge page, so that each is freed
/// whole.
pub const RELEASE_CHUNK: usize = 2 << 20;

/// The most one read asks for: a live capture (`tcpdump -U -w - | rdmadump read -`) is
/// decoded as its packets arrive, since a read returns whatever is there.
const CHUNK: usize = 1 << 18;

/// A stream being read into memory; [`Spool::available`] hands out its bytes so far.
pub struct Spool {
    shared: Arc<Shared>,
    len_hint: Option<u64>,
}

struct Shared {
    region: memmap2::MmapMut,
    base: *mut u8,
    capacity: usize,
    /// Bytes written so far; a copy of `State::filled` read without the lock.
    filled: AtomicUsize,
    state: Mutex<State>,
    changed: Condvar,
}

// SAFETY: `base` points into `region`, which lives as long as `Shared`. The filling thread
// writes only bytes at or past `filled`, and publishes them (Release) before any reader
// forms a slice over them (Acquire); readers never write.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

#[derive(Default)]
struct State {
    filled: usize,
    /// Pages before this offset are given back.
    released: usize,
    /// How far the reader waits to read: filled past `AHEAD` when it asks for it.
    wanted: usize,
    /// The stream ended (`Ok`) or failed; its error is kept as kind and text, to be
    /// handed to every later caller.
    end: Option<Result<(), (io::ErrorKind, String)>>,
    /// Nobody reads any more: the filling thread stops, and waiting readers see the end.
    halted: bool,
}

/// What [`Spool::available`] found.
pub enum Available<'s> {
    /// Every byte up to at least the end asked for, or the whole stream if shorter.
    Bytes(&'s [u8]),
    /// Reading was halted: nothing more will come.
    Halted,
    /// The bytes did not come within the time allowed.
    Later,
}

impl Spool {
    /// Starts reading `reader` on a new thread; when no address space can be reserved or
    /// no thread started, `reader` comes back, to be read another way.
    pub fn spawn(
        reader: Box<dyn Read + Send>,
        len_hint: Option<u64>,
    ) -> Result<Spool, Box<dyn Read + Send>> {
        let Some(mut region) = RESERVATIONS.iter().find_map(|&len| {
            memmap2::MmapOptions::new()
                .len(len)
                .no_reserve_swap()
                .map_anon()
                .ok()
        }) else {
            return Err(reader);
        };
        // Huge pages where the system allows them: a stream of gigabytes would otherwise
        // fault and zero a page every 4 KiB on the filling thread.
        #[cfg(target_os = "linux")]
        let _ = region.advise(memmap2::Advice::HugePage);
        let shared = Arc::new(Shared {
            base: region.as_mut_ptr(),
            capacity: region.len(),
            region,
            filled: AtomicUsize::new(0),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let (give, take) = std::sync::mpsc::sync_channel::<Box<dyn Read + Send>>(1);
        let filling = Arc::clone(&shared);
        let _started = std::thread::Builder::new()
            .name("rdmadump-spool".into())
            .spawn(move || {
                if let Ok(reader) = take.recv() {
                    fill(&filling, reader);
                }
            });
        // The reader goes over only once the thread exists; when it could not start, the
        // send fails and hands the reader back.
        if let Err(std::sync::mpsc::SendError(reader)) = give.send(reader) {
            return Err(reader);
        }
        Ok(Spool { shared, len_hint })
    }

    /// The stream's bytes from its start, once at least `end` of them are there or the
    /// stream has ended; waits for them, for at most `limit` when there is one.
    pub fn available(&self, end: usize, limit: Option<Duration>) -> io::Result<Available<'_>> {
        let shared = &*self.shared;
        let filled = shared.filled.load(Ordering::Acquire);
        if filled >= end {
            return Ok(Available::Bytes(shared.bytes(filled)));
        }
        let deadline = limit.map(|limit| Instant::now() + limit);
        let mut state = shared.lock();
        state.wanted = state.wanted.max(end);
        shared.changed.notify_all();
        loop {
            if state.halted {
                return Ok(Available::Halted);
            }
            if state.filled >= end {
                break;
            }
            match &state.end {
                Some(Ok(())) => break,
                Some(Err((kind, text))) => return Err(io::Error::new(*kind, text.clone())),
                None => match deadline {
                    None => state = shared.wait(state),
                    Some(deadline) => {
                        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                            return Ok(Available::Later);
                        };
                        state = shared.wait_for(state, left);
                    }
                },
            }
        }
        Ok(Available::Bytes(shared.bytes(state.filled)))
    }

    /// Gives back the pages of `offset..offset + len`, whose bytes nobody reads again.
    pub fn release(&self, offset: usize, len: usize) {
        let shared = &*self.shared;
        let len = len.min(shared.capacity.saturating_sub(offset));
        if len == 0 {
            return;
        }
        // SAFETY: the caller guarantees that no byte of the range is read again; anonymous
        // pages dropped here would read back as zeros, and the filling thread never writes
        // before `filled`, which lies past them.
        let _ = unsafe {
            shared
                .region
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len)
        };
        let mut state = shared.lock();
        state.released = state.released.max(offset + len);
        shared.changed.notify_all();
    }

    /// Stops reading: the filling thread ends at its next step, and a reader waiting for
    /// bytes sees the stream halted.
    pub fn halt(&self) {
        let mut state = self.shared.lock();
        state.halted = true;
        self.shared.changed.notify_all();
    }

    pub fn len_hint(&self) -> Option<u64> {
        self.len_hint
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        self.halt();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves nothing half-updated that matters here.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'g>(&self, guard: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        self.changed.wait(guard).unwrap_or_else(|e| e.into_inner())
    }

    fn wait_for<'g>(&self, guard: MutexGuard<'g, State>, left: Duration) -> MutexGuard<'g, State> {
        match self.changed.wait_timeout(guard, left) {
            Ok((guard, _)) => guard,
            Err(e) => e.into_inner().0,
        }
    }

    /// The first `filled` bytes, which the filling thread has published and never writes
    /// again.
    fn bytes(&self, filled: usize) -> &[u8] {
        // SAFETY: `filled` bytes from `base` lie inside the region and were written before
        // `filled` was published; nothing writes them again while `self` lives.
        unsafe { std::slice::from_raw_parts(self.base, filled) }
    }
}

/// The filling thread: reads until the end, an error, or a halt.
fn fill(shared: &Shared, mut reader: Box<dyn Read + Send>) {
    let mut filled = 0;
    let end = loop {
        {
            let mut state = shared.lock();
            while !state.halted
                && state.filled >= state.wanted
                && state.filled - state.released.min(state.filled) >= AHEAD
            {
                state = shared.wait(state);
            }
            if state.halted {
                return;
            }
        }
        let room = CHUNK.min(shared.capacity - filled);
        if room == 0 {
            break Err((
                io::ErrorKind::OutOfMemory,
                format!(
                    "stream longer than the {} GiB reserved for it",
                    shared.capacity >> 30
                ),
            ));
        }
        // SAFETY: `filled..filled + room` lies inside the region, past every byte handed
        // to a reader; only this thread writes there, and nothing reads it until `filled`
        // is published below.
        let into = unsafe { std::slice::from_raw_parts_mut(shared.base.add(filled), room) };
        match reader.read(into) {
            Ok(0) => break Ok(()),
            Ok(n) => {
                filled += n;
                shared.filled.store(filled, Ordering::Release);
                let mut state = shared.lock();
                state.filled = filled;
                shared.changed.notify_all();
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err((e.kind(), e.to_string())),
        }
    };
    let mut state = shared.lock();
    state.end = Some(end);
    shared.changed.notify_all();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::testing::Dribble;

    fn bytes(spool: &Spool, end: usize) -> Vec<u8> {
        match spool.available(end, None).unwrap() {
            Available::Bytes(bytes) => bytes.to_vec(),
            _ => panic!("halted"),
        }
    }

    #[test]
    fn hands_out_the_stream_as_it_arrives_and_all_of_it_at_the_end() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
        let spool = Spool::spawn(
            Box::new(Dribble {
                data: data.clone(),
                at: 0,
                fail_at_end: false,
            }),
            Some(100_000),
        )
        .unwrap_or_else(|_| panic!("no spool"));
        let first = bytes(&spool, 10);
        assert!(first.len() >= 10);
        assert_eq!(first, data[..first.len()]);
        // Asking past the end waits for the end and gives the whole stream.
        assert_eq!(bytes(&spool, 1 << 30), data);
        assert_eq!(spool.len_hint(), Some(100_000));
    }

    #[test]
    fn a_failed_read_reaches_the_reader_once_the_bytes_before_it_are_used() {
        let data = vec![7u8; 5000];
        let spool = Spool::spawn(
            Box::new(Dribble {
                data: data.clone(),
                at: 0,
                fail_at_end: true,
            }),
            None,
        )
        .unwrap_or_else(|_| panic!("no spool"));
        assert_eq!(bytes(&spool, 5000), data);
        let err = match spool.available(5001, None) {
            Err(err) => err,
            Ok(_) => panic!("no error"),
        };
        assert_eq!(err.to_string(), "device went away");
    }

    #[test]
    fn the_filling_thread_waits_for_releases_and_a_halt_frees_the_reader() {
        // An endless stream of zeros: only the bound stops the filling thread.
        let spool =
            Spool::spawn(Box::new(io::repeat(0)), None).unwrap_or_else(|_| panic!("no spool"));
        let _ = bytes(&spool, 1);
        // Waits until the thread has filled at least `least`, then a while more, and says
        // where it stands: a busy machine may pause the thread for any time before it gets
        // there, so reaching the bound is waited for rather than guessed by a pause.
        let settled = |spool: &Spool, least: usize| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while spool.shared.filled.load(Ordering::Acquire) < least {
                assert!(std::time::Instant::now() < deadline, "never filled {least}");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            spool.shared.filled.load(Ordering::Acquire)
        };
        let stopped_at = settled(&spool, AHEAD);
        assert!((AHEAD..AHEAD + CHUNK).contains(&stopped_at), "{stopped_at}");
        // A reader asking past the bound gets what it asks for.
        assert!(bytes(&spool, AHEAD + 3 * CHUNK).len() >= AHEAD + 3 * CHUNK);
        // Releasing lets it go on by as much.
        spool.release(0, 8 << 20);
        let later = settled(&spool, (8 << 20) + AHEAD);
        assert!(later < (8 << 20) + AHEAD + CHUNK, "{later}");
        spool.halt();
        assert!(matches!(
            spool.available(1 << 40, None),
            Ok(Available::Halted)
        ));
    }
}
