//! Byte sources for the capture readers: a memory-mapped (or in-memory) slice, or a stream
//! read through a growing buffer. Both hand out borrowed slices, so records are never copied
//! out of the file mapping, and a stream never holds more than the largest record in memory.

use super::Mapped;
use super::spool::{Available, Spool};
use std::io::{self, Read};
use std::ops::Range;
use std::time::Duration;

/// A forward-only byte source that can show the next `n` bytes without consuming them.
pub trait Input {
    /// Up to `n` bytes from the current position; fewer only at end of input.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]>;
    /// Moves the position forward by `n` bytes, which must have been peeked.
    fn consume(&mut self, n: usize);
    /// Bytes consumed so far: the file offset of the next byte.
    fn position(&self) -> u64;
    /// Total input length, when known in advance (files, not pipes).
    fn len_hint(&self) -> Option<u64> {
        None
    }
    /// The run stopped reading this input (see [`Releaser::halt`]): whatever it lacks was
    /// never going to be read, and is no sign of a capture cut short.
    fn halted(&self) -> bool {
        false
    }
    /// How long `peek` may wait for bytes that have not arrived before it gives up with
    /// `WouldBlock`; `None` waits for as long as it takes. Only a spooled stream waits.
    fn set_wait_limit(&mut self, _limit: Option<Duration>) {}
    /// Hints that the bytes `ahead` bytes past the position (the next record's header)
    /// will be read soon, so that a memory-resident input can start fetching them into
    /// the cache while the current record is decoded.
    #[inline]
    fn prefetch(&mut self, _ahead: usize) {}
}

/// A whole capture already in memory, usually a file mapping.
pub struct SliceInput<'m> {
    data: &'m [u8],
    pos: usize,
    /// The spooled stream `data` comes from was halted: `data` grows no more.
    halted: bool,
    wait_limit: Option<Duration>,
    /// Bytes before this offset have been asked of the disk.
    read_ahead: usize,
    /// What `data` lives in (`None`: plain memory), and drops its pages behind the records
    /// used up. A mapped file is read from disk a window at a time ahead of reading; a
    /// spooled stream grows as it is read.
    releaser: Option<Releaser<'m>>,
    /// Cache lines before this offset have been asked for.
    prefetched: usize,
}

/// How much of a mapping is asked of the disk at once, ahead of the reading position: the
/// reader stays between one and two windows behind what was asked. Populating the whole
/// file up front (MAP_POPULATE) would read a capture larger than memory twice: once to
/// populate, evicting its start, and again to decode it. Only what the reader has touched
/// is resident, and RELEASE_CHUNK behind it bounds that.
const READ_AHEAD_WINDOW: usize = 16 << 20;

/// The mapped pages behind the reader are dropped this many bytes at a time: few enough
/// madvise calls to cost nothing (one per 8 MB), small enough to keep the resident size far
/// below the 64 MB that `analyze` is allowed. A multiple of every page size.
const RELEASE_CHUNK: usize = 8 << 20;

/// The range of a mapping to drop once nothing before `before` is needed any more, when
/// `released` bytes are dropped already: whole chunks only, so that each madvise call
/// starts on a page boundary and is worth its system call.
fn release_span(released: usize, before: usize, chunk: usize) -> Option<Range<usize>> {
    let end = before / chunk * chunk;
    (end > released).then_some(released..end)
}

/// Drops a mapping's pages behind the records used up, a chunk at a time. Whichever
/// thread learns first that records are used up holds one: the reader when it also
/// consumes, the consuming thread when a pipeline splits the two, so that the unmapping, a
/// noticeable share of the reading thread's time on small frames, leaves the reading chain.
#[derive(Clone)]
pub struct Releaser<'m> {
    backing: Backing<'m>,
    /// This process's pages before this offset have been dropped.
    released: usize,
}

/// What a [`SliceInput`]'s bytes live in.
#[derive(Clone, Copy)]
enum Backing<'m> {
    File(&'m Mapped),
    Spool(&'m Spool),
}

impl Backing<'_> {
    /// Pages are dropped this many bytes at a time.
    fn release_chunk(self) -> usize {
        match self {
            Backing::File(_) => RELEASE_CHUNK,
            Backing::Spool(_) => super::spool::RELEASE_CHUNK,
        }
    }

    fn release(self, span: Range<usize>) {
        match self {
            Backing::File(mapping) => mapping.release(span.start, span.len()),
            Backing::Spool(spool) => spool.release(span.start, span.len()),
        }
    }
}

impl Releaser<'_> {
    /// Stops a spooled stream from being read further (its bytes are not wanted: the run
    /// is over), so that a reader waiting on it sees the end; nothing for a file.
    pub fn halt(&self) {
        if let Backing::Spool(spool) = self.backing {
            spool.halt();
        }
    }

    /// Drops the pages before `offset`, which must not lie past any record still in use.
    #[inline]
    pub fn release_before(&mut self, offset: u64) {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        if let Some(span) = release_span(self.released, offset, self.backing.release_chunk()) {
            self.released = span.end;
            self.backing.release(span);
        }
    }
}

impl<'m> SliceInput<'m> {
    pub fn new(data: &'m [u8]) -> Self {
        SliceInput {
            data,
            pos: 0,
            halted: false,
            wait_limit: None,
            read_ahead: 0,
            releaser: None,
            prefetched: 0,
        }
    }

    /// Reads a memory-mapped file, asking the disk for it a window at a time ahead of reading.
    pub fn over_mapping(mapping: &'m Mapped) -> Self {
        SliceInput {
            releaser: Some(Releaser {
                backing: Backing::File(mapping),
                released: 0,
            }),
            ..SliceInput::new(mapping)
        }
    }

    /// Reads a stream that a [`Spool`] reads into memory, waiting for its bytes as needed.
    pub fn over_spool(spool: &'m Spool) -> Self {
        SliceInput {
            releaser: Some(Releaser {
                backing: Backing::Spool(spool),
                released: 0,
            }),
            ..SliceInput::new(&[])
        }
    }

    /// Waits until a spooled stream holds `end` bytes, or has ended or been halted.
    #[cold]
    fn wait_for(&mut self, end: usize) -> io::Result<()> {
        let Some(Backing::Spool(spool)) = self.backing() else {
            return Ok(());
        };
        if self.halted {
            return Ok(());
        }
        match spool.available(end, self.wait_limit)? {
            Available::Bytes(bytes) => self.data = bytes,
            Available::Halted => self.halted = true,
            Available::Later => return Err(io::ErrorKind::WouldBlock.into()),
        }
        Ok(())
    }

    #[inline]
    fn backing(&self) -> Option<Backing<'m>> {
        self.releaser.as_ref().map(|r| r.backing)
    }

    #[inline]
    fn keep_reading_ahead(&mut self) {
        if let Some(Backing::File(mapping)) = self.backing()
            && self.pos + READ_AHEAD_WINDOW >= self.read_ahead
            && self.read_ahead < self.data.len()
        {
            mapping.read_ahead(self.read_ahead, READ_AHEAD_WINDOW);
            self.read_ahead += READ_AHEAD_WINDOW;
        }
    }

    /// Tells the input that no byte before `offset` will be read again (every record there
    /// has been used up), so that the mapping's pages there can be dropped.
    #[inline]
    pub fn release_before(&mut self, offset: u64) {
        let offset = offset.min(self.pos as u64);
        if let Some(releaser) = &mut self.releaser {
            releaser.release_before(offset);
        }
    }

    /// A releaser for another thread, which then drops the pages instead of this input;
    /// `None` when the input is not a mapping.
    pub fn releaser(&self) -> Option<Releaser<'m>> {
        self.releaser.clone()
    }

    /// Up to `n` bytes from the current position, borrowed for as long as the data itself.
    pub fn window(&self, n: usize) -> &'m [u8] {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        &rest[..n.min(rest.len())]
    }
}

impl Input for SliceInput<'_> {
    #[inline]
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        let end = self.pos.saturating_add(n);
        if end > self.data.len() {
            self.wait_for(end)?;
        }
        self.keep_reading_ahead();
        let rest = self.data.get(self.pos..).unwrap_or_default();
        Ok(&rest[..n.min(rest.len())])
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n).min(self.data.len());
    }

    fn position(&self) -> u64 {
        self.pos as u64
    }

    fn halted(&self) -> bool {
        self.halted
    }

    fn set_wait_limit(&mut self, limit: Option<Duration>) {
        self.wait_limit = limit;
    }

    fn len_hint(&self) -> Option<u64> {
        match self.backing() {
            Some(Backing::Spool(spool)) => spool.len_hint(),
            _ => Some(self.data.len() as u64),
        }
    }

    /// Each record's first touch is a cache miss the hardware prefetcher does not see
    /// coming (records are a kilobyte or more apart, across pages), and one record's
    /// decoding is shorter than a trip to memory. So every cache line up to
    /// `PREFETCH_AHEAD` bytes past the next record is asked for, each line once: the
    /// headers of the next few records, whatever their lengths, and the payloads that
    /// the CRCs read.
    #[inline]
    fn prefetch(&mut self, ahead: usize) {
        let until = self
            .pos
            .saturating_add(ahead)
            .saturating_add(PREFETCH_AHEAD)
            .min(self.data.len());
        let mut line = self.prefetched.max(self.pos);
        while line < until {
            super::mmap::prefetch_line(&self.data[line..]);
            line += CACHE_LINE;
        }
        self.prefetched = line;
    }
}

/// How far ahead of the next record `SliceInput::prefetch` asks for memory: a few records
/// of a kilobyte, a few dozen small ones, and a page boundary early enough for its
/// page walk to be done when the reader arrives.
const PREFETCH_AHEAD: usize = 4096;

const CACHE_LINE: usize = 64;

/// A stream (stdin, a pipe, a file read without mmap) behind a buffer that grows only as data
/// actually arrives, so a length field claiming gigabytes costs nothing until the bytes exist.
pub struct ReadInput<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    consumed: u64,
    len_hint: Option<u64>,
}

const INITIAL_BUFFER: usize = 1 << 20;

impl<R: Read> ReadInput<R> {
    pub fn new(reader: R, len_hint: Option<u64>) -> Self {
        ReadInput {
            reader,
            buf: vec![0; INITIAL_BUFFER],
            start: 0,
            end: 0,
            eof: false,
            consumed: 0,
            len_hint,
        }
    }

    fn fill(&mut self, n: usize) -> io::Result<()> {
        while self.end - self.start < n && !self.eof {
            if self.end == self.buf.len() {
                // Slide the live bytes to the front when that frees at least half the buffer;
                // otherwise double it. Either way memory stays within twice the live data.
                if self.start >= self.buf.len() / 2 {
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                } else {
                    let bigger = self.buf.len() * 2;
                    self.buf.resize(bigger, 0);
                }
            }
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(read) => self.end += read,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl<R: Read> Input for ReadInput<R> {
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        self.fill(n)?;
        let available = (self.end - self.start).min(n);
        Ok(&self.buf[self.start..self.start + available])
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        self.start += n;
        self.consumed += n as u64;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    fn position(&self) -> u64 {
        self.consumed
    }

    fn len_hint(&self) -> Option<u64> {
        self.len_hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out one byte per read call, the worst case for the refill loop.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            match (self.0.split_first(), out.first_mut()) {
                (Some((&b, rest)), Some(slot)) => {
                    *slot = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn releases_whole_chunks_behind_the_reader_only() {
        // Nothing until a whole chunk lies behind.
        assert_eq!(release_span(0, 0, 8), None);
        assert_eq!(release_span(0, 7, 8), None);
        assert_eq!(release_span(0, 8, 8), Some(0..8));
        // From where the last release ended, up to the last whole chunk before `before`.
        assert_eq!(release_span(8, 15, 8), None);
        assert_eq!(release_span(8, 31, 8), Some(8..24));
        // A position behind what is already released (an input lagging in a merge, a
        // batch consumed late) releases nothing again.
        assert_eq!(release_span(24, 9, 8), None);
    }

    #[test]
    fn released_pages_read_back_the_same_bytes_and_the_reader_position_bounds_them() {
        use std::io::Write;
        let data: Vec<u8> = (0..3 * RELEASE_CHUNK).map(|i| (i % 251) as u8).collect();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&data).unwrap();
        let mapping = Mapped::map(&file).unwrap();
        let mut slice = SliceInput::over_mapping(&mapping);
        assert_eq!(slice.peek(16).unwrap(), &data[..16]);
        slice.consume(RELEASE_CHUNK + RELEASE_CHUNK / 2);
        // A caller asking for more than was read gets no more than the reading position.
        slice.release_before(3 * RELEASE_CHUNK as u64);
        assert_eq!(released(&slice), Some(RELEASE_CHUNK));
        // A dropped page is read again from the file: a release never changes a byte.
        assert_eq!(&mapping[..], &data[..]);
        slice.consume(RELEASE_CHUNK);
        slice.release_before(slice.position());
        assert_eq!(released(&slice), Some(2 * RELEASE_CHUNK));
        // Handed to another thread, the releaser goes on from there, and the reader's own
        // position no longer bounds it: that thread knows which records are used up.
        let mut elsewhere = slice.releaser().unwrap();
        elsewhere.release_before(3 * RELEASE_CHUNK as u64);
        assert_eq!(elsewhere.released, 3 * RELEASE_CHUNK);
        assert_eq!(&mapping[..], &data[..]);
        // Without a mapping (an in-memory capture) there is nothing to drop.
        let mut plain = SliceInput::new(&data);
        plain.consume(data.len());
        plain.release_before(data.len() as u64);
        assert_eq!(released(&plain), None);
    }

    fn released(slice: &SliceInput<'_>) -> Option<usize> {
        slice.releaser.as_ref().map(|r| r.released)
    }

    #[test]
    fn stream_and_slice_agree() {
        let data: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        let mut slice = SliceInput::new(&data);
        let mut stream = ReadInput::new(Trickle(&data), None);
        for step in [7usize, 100, 3000, 4000] {
            assert_eq!(slice.peek(step).unwrap(), stream.peek(step).unwrap());
            slice.consume(step / 2);
            stream.consume(step / 2);
            assert_eq!(slice.position(), stream.position());
        }
    }

    #[test]
    fn a_huge_peek_on_a_short_stream_allocates_only_what_arrived() {
        let data = [1u8; 10];
        let mut stream = ReadInput::new(&data[..], None);
        assert_eq!(stream.peek(4 << 30).unwrap().len(), 10);
        assert_eq!(stream.buf.len(), INITIAL_BUFFER);
    }
}
