//! Capture containers: classic pcap and pcapng, read from a file mapping or a stream.

mod compressed;
mod describe;
pub mod info;
pub mod input;
mod memory;
pub mod merge;
mod mmap;
mod pcap;
mod pcapng;
mod pipe;
pub mod readahead;
mod spool;
#[cfg(test)]
mod testing;
pub mod write;

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};

pub use describe::{Container, ContainerKind, InterfaceInfo, TsResolution};
pub use input::{Input, ReadInput, Releaser, SliceInput};
pub use memory::InMemory;
pub use mmap::{Mapped, prefetch_line};
pub use spool::Spool;

/// Link types rdmadump decodes (the LINKTYPE_ values of the pcap registry).
pub mod linktype {
    pub const ETHERNET: u32 = 1;
    /// Raw IP: IPv4 or IPv6, told by the version nibble.
    pub const RAW: u32 = 101;
    pub const LINUX_SLL: u32 = 113;
    pub const ERF: u32 = 197;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    /// IP over InfiniBand as a Linux IPoIB interface shows it.
    pub const IPOIB: u32 = 242;
    pub const INFINIBAND: u32 = 247;
    pub const LINUX_SLL2: u32 = 276;

    /// The registry's name for the link types rdmadump decodes (LINKTYPE_ETHERNET is
    /// `ethernet`); `None` for the others.
    pub fn name(linktype: u32) -> Option<&'static str> {
        Some(match linktype {
            ETHERNET => "ethernet",
            RAW => "raw",
            LINUX_SLL => "linux_sll",
            ERF => "erf",
            IPV4 => "ipv4",
            IPV6 => "ipv6",
            IPOIB => "ipoib",
            INFINIBAND => "infiniband",
            LINUX_SLL2 => "linux_sll2",
            _ => return None,
        })
    }
}

/// No real link layer produces records larger than this; a larger claimed length means the
/// container is damaged, and it is rejected before any byte of it is requested.
pub const MAX_RECORD: usize = 16 << 20;

/// One captured packet, borrowed from the input.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub data: &'a [u8],
    /// Length on the wire; more than `data.len()` when the snaplen cut the packet.
    pub orig_len: u32,
    /// Nanoseconds since the Unix epoch; `None` for pcapng Simple Packet Blocks.
    pub ts_ns: Option<u64>,
    pub linktype: u32,
    pub iface: u32,
    /// File offset of the record header, for messages about the container.
    pub offset: u64,
}

/// Something wrong with the container that did not stop reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub offset: u64,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: {}", self.offset, self.message)
    }
}

/// Why reading stopped early.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("not a pcap or pcapng capture (starts with {0:02x?})")]
    NotACapture(Vec<u8>),
    #[error("empty file, not a capture")]
    Empty,
    #[error("offset {offset}: {message}")]
    Damaged { offset: u64, message: String },
    #[error(transparent)]
    Io(#[from] io::Error),
}

enum State {
    Pcap(pcap::PcapState),
    PcapNg(pcapng::PcapNgState),
}

/// Reads records one at a time from any [`Input`].
pub struct CaptureReader<I> {
    input: I,
    state: State,
    /// Bytes of the record handed out last; consumed on the next call, so that the record
    /// could borrow them until then.
    pending: usize,
    located: Option<Located>,
    warnings: Vec<Warning>,
    /// The input ended inside a record or block.
    cut_short: bool,
    damage: Damage,
}

/// What a reader read past, in all: counted whatever became of the warnings that named it,
/// so that a summary can say how much a damaged capture lost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    /// Blocks or records skipped whole because they were damaged.
    pub skipped_blocks: u64,
    /// Bytes skipped while scanning for the next valid block after damage.
    pub skipped_bytes: u64,
    /// Warnings past the cap on warnings kept between two records: they were counted, not
    /// kept.
    pub warnings_dropped: u64,
}

impl Damage {
    pub fn is_none(&self) -> bool {
        *self == Damage::default()
    }
}

/// Warnings kept for the caller between two `next` calls; a damaged container cannot flood
/// memory with them.
const MAX_PENDING_WARNINGS: usize = 64;

impl<I: Input> CaptureReader<I> {
    pub fn new(mut input: I) -> Result<Self, CaptureError> {
        let head = input.peek(4)?;
        if head.is_empty() {
            return Err(CaptureError::Empty);
        }
        let magic: [u8; 4] = match head.try_into() {
            Ok(m) => m,
            Err(_) => return Err(CaptureError::NotACapture(head.to_vec())),
        };
        let state = if let Some(state) = pcap::PcapState::detect(magic) {
            let state = state.read_header(&mut input)?;
            State::Pcap(state)
        } else if pcapng::is_pcapng(magic) {
            State::PcapNg(pcapng::PcapNgState::default())
        } else {
            return Err(CaptureError::NotACapture(magic.to_vec()));
        };
        Ok(CaptureReader {
            input,
            state,
            pending: 0,
            located: None,
            warnings: Vec::new(),
            cut_short: false,
            damage: Damage::default(),
        })
    }

    /// Moves to the next record; `Ok(false)` at the end. A container damaged beyond
    /// recovery is an error, returned after every record before the damage.
    ///
    /// A spooled stream given a wait limit fails with `WouldBlock` when its next record has
    /// not arrived in time; `advance` may then be called again, and goes on from there.
    pub fn advance(&mut self) -> Result<bool, CaptureError> {
        self.input.consume(std::mem::take(&mut self.pending));
        self.located = None;
        let mut sink = WarningSink {
            warnings: &mut self.warnings,
            cut_short: &mut self.cut_short,
            damage: &mut self.damage,
        };
        let found = match &mut self.state {
            State::Pcap(state) => state.locate(&mut self.input, &mut sink)?,
            State::PcapNg(state) => state.locate(&mut self.input, &mut sink)?,
        };
        if self.input.halted() {
            // The run stopped reading here; what is missing was never going to be read.
            self.warnings.clear();
            self.cut_short = false;
            return Ok(false);
        }
        if let Some(located) = &found {
            self.pending = located.total_len;
        }
        self.located = found;
        Ok(self.located.is_some())
    }

    /// The record `advance` moved to; it stays available until the next `advance`, so that
    /// several readers can be merged by timestamp.
    pub fn current(&mut self) -> Option<Record<'_>> {
        let located = self.located.as_ref()?;
        let offset = self.input.position();
        let bytes = self.input.peek(located.total_len).ok()?;
        Some(located.record(bytes, offset))
    }

    /// What the reader has read past so far.
    pub fn damage(&self) -> Damage {
        self.damage
    }

    /// Timestamp of the current record, without borrowing its bytes.
    pub fn current_ts(&self) -> Option<Option<u64>> {
        self.located.as_ref().map(|l| l.ts_ns)
    }

    /// See [`Input::set_wait_limit`].
    pub fn set_wait_limit(&mut self, limit: Option<std::time::Duration>) {
        self.input.set_wait_limit(limit);
    }

    /// Warnings gathered since the last call.
    pub fn take_warnings(&mut self) -> std::vec::Drain<'_, Warning> {
        self.warnings.drain(..)
    }

    /// True once the input has ended in the middle of a record.
    pub fn was_cut_short(&self) -> bool {
        self.cut_short
    }

    pub fn position(&self) -> u64 {
        self.input.position()
    }

    pub fn len_hint(&self) -> Option<u64> {
        self.input.len_hint()
    }

    /// The container as read so far (pcapng: the current section).
    pub fn container(&self) -> Container {
        match &self.state {
            State::Pcap(state) => Container {
                kind: ContainerKind::Pcap,
                big_endian: state.big_endian(),
                section: 1,
            },
            State::PcapNg(state) => Container {
                kind: ContainerKind::PcapNg,
                big_endian: state.big_endian(),
                section: state.section(),
            },
        }
    }

    /// Interface `id` (a record's `iface`) as the container declared it; for pcapng, in
    /// the current section.
    pub fn interface(&self, id: u32) -> Option<InterfaceInfo> {
        match &self.state {
            State::Pcap(state) => (id == 0).then(|| state.interface()),
            State::PcapNg(state) => state.interface_info(id),
        }
    }
}

/// Where the next record sits, relative to the current input position.
pub(crate) struct Located {
    pub total_len: usize,
    pub data_start: usize,
    pub caplen: usize,
    pub orig_len: u32,
    pub ts_ns: Option<u64>,
    pub linktype: u32,
    pub iface: u32,
}

impl Located {
    /// The record within `bytes`, which start at the record header at file `offset`.
    fn record<'a>(&self, bytes: &'a [u8], offset: u64) -> Record<'a> {
        Record {
            data: bytes
                .get(self.data_start..self.data_start + self.caplen)
                .unwrap_or_default(),
            orig_len: self.orig_len,
            ts_ns: self.ts_ns,
            linktype: self.linktype,
            iface: self.iface,
            offset,
        }
    }
}

pub(crate) struct WarningSink<'w> {
    warnings: &'w mut Vec<Warning>,
    cut_short: &'w mut bool,
    damage: &'w mut Damage,
}

impl WarningSink<'_> {
    pub fn warn(&mut self, offset: u64, message: String) {
        if self.warnings.len() < MAX_PENDING_WARNINGS {
            self.warnings.push(Warning { offset, message });
        } else {
            self.damage.warnings_dropped += 1;
        }
    }

    /// A damaged block or record was skipped whole; `warn` says which.
    pub fn skipped_block(&mut self) {
        self.damage.skipped_blocks += 1;
    }

    /// `bytes` were scanned past to find the next valid block.
    pub fn skipped_bytes(&mut self, bytes: u64) {
        self.damage.skipped_bytes += bytes;
    }

    pub fn cut_short(&mut self, offset: u64, what: &str, needed: usize, available: usize) {
        *self.cut_short = true;
        self.warn(
            offset,
            format!(
                "capture cut short: {what} needs {needed} bytes, only {available} remain; \
                 every complete record before it was read"
            ),
        );
    }
}

/// An opened capture file or stream, ready to hand out a reader.
pub enum Source {
    Mapped(Mapped),
    Stream(Box<dyn io::Read + Send>, Option<u64>),
    /// A stream read into memory on a thread of its own, whose records outlive the
    /// reader's next step as a mapped file's do.
    Spooled(Spool),
    /// A regular file not opened yet: it is read as a stream when its turn comes, and
    /// dropped whole when done (see [`merge::Merger`]), so that thousands of inputs hold
    /// neither a decompressor, a buffer nor a mapping each before and after their turn.
    Deferred(PathBuf),
    /// A capture handed over in memory ([`Source::in_memory`]), read in place.
    Memory(InMemory),
}

impl Source {
    /// Opens a path, memory-mapping regular files unless `no_mmap` is set; `-` is stdin.
    /// A gzip or zstd file (or stdin) is streamed through its decompressor.
    pub fn open(path: &Path, no_mmap: bool) -> io::Result<Source> {
        if path.as_os_str() == "-" {
            return Self::stdin(no_mmap);
        }
        Self::file(File::open(path)?, no_mmap)
    }

    /// Standard input, opened as a named file is: a regular file behind it (`rdmadump read -
    /// < capture.pcap`) is mapped, a pipe widened. Only a regular file that something has
    /// read in part already is streamed on from where it stands.
    fn stdin(no_mmap: bool) -> io::Result<Source> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let mut file = File::from(io::stdin().as_fd().try_clone_to_owned()?);
            // A pipe has no position: it is asked for only of a regular file.
            let read_in_part = file.metadata()?.is_file() && file.stream_position()? != 0;
            if !read_in_part {
                return Self::file(file, no_mmap);
            }
        }
        Ok(Source::Stream(
            compressed::decompressing(Box::new(io::stdin()))?,
            None,
        ))
    }

    fn file(mut file: File, no_mmap: bool) -> io::Result<Source> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            pipe::widen(&file);
            // A pipe cannot be rewound: its first bytes are put back in front instead.
            let reader = Box::new(io::BufReader::with_capacity(1 << 16, file));
            return Ok(Source::Stream(compressed::decompressing(reader)?, None));
        }
        let mut start = [0u8; compressed::SNIFF_LEN];
        let got = file.read(&mut start)?;
        file.seek(io::SeekFrom::Start(0))?;
        let reader = Box::new(io::BufReader::with_capacity(1 << 16, file));
        if compressed::detect(&start[..got]).is_some() {
            // No size hint: the progress position counts decompressed bytes.
            return Ok(Source::Stream(compressed::decompressing(reader)?, None));
        }
        if !no_mmap && meta.len() > 0 {
            return Ok(Source::Mapped(Mapped::map(reader.get_ref())?));
        }
        Ok(Source::Stream(reader, Some(meta.len())))
    }
}

impl<'m> CaptureReader<SliceInput<'m>> {
    /// The current record, borrowed from the mapping itself rather than from the reader, so
    /// that a batch of records can be held while the reader moves on.
    pub fn current_mapped(&self) -> Option<Record<'m>> {
        let located = self.located.as_ref()?;
        let bytes = self.input.window(located.total_len);
        Some(located.record(bytes, self.input.position()))
    }

    /// Lets the mapping's pages before file `offset` go: every record there is used up.
    pub fn release_before(&mut self, offset: u64) {
        self.input.release_before(offset);
    }

    /// What lets another thread drop the mapping's pages instead of this reader.
    pub fn releaser(&self) -> Option<Releaser<'m>> {
        self.input.releaser()
    }
}

type StreamReader = ReadInput<Box<dyn io::Read + Send>>;

/// A reader over any kind of [`Source`], without dynamic dispatch per record.
pub enum AnyReader<'m> {
    /// A mapped file, or a spooled stream: its records live as long as the source.
    Mapped(CaptureReader<SliceInput<'m>>),
    /// A stream read through a buffer: a record lives until the reader moves on.
    Stream(CaptureReader<StreamReader>),
}

macro_rules! delegate {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            AnyReader::Mapped($r) => $e,
            AnyReader::Stream($r) => $e,
        }
    };
}

impl<'m> AnyReader<'m> {
    pub fn open(source: &'m mut Source) -> Result<Self, CaptureError> {
        Ok(match source {
            Source::Mapped(map) => {
                AnyReader::Mapped(CaptureReader::new(SliceInput::over_mapping(map))?)
            }
            Source::Stream(stream, hint) => {
                let stream = std::mem::replace(stream, Box::new(io::empty()));
                AnyReader::Stream(CaptureReader::new(ReadInput::new(stream, *hint))?)
            }
            Source::Spooled(spool) => {
                AnyReader::Mapped(CaptureReader::new(SliceInput::over_spool(spool))?)
            }
            Source::Deferred(path) => Self::owning(path)?,
            Source::Memory(bytes) => {
                let bytes: &'m InMemory = bytes;
                AnyReader::Mapped(CaptureReader::new(SliceInput::new(bytes.as_ref()))?)
            }
        })
    }

    /// A reader that owns what it reads: `path` opened as a stream, never mapped, so that
    /// it holds nothing of the run's once dropped.
    pub fn owning(path: &Path) -> Result<Self, CaptureError> {
        match Source::open(path, true)? {
            Source::Stream(stream, hint) => Ok(AnyReader::Stream(CaptureReader::new(
                ReadInput::new(stream, hint),
            )?)),
            _ => Err(CaptureError::Io(io::Error::other(
                "a deferred input opened as something other than a stream",
            ))),
        }
    }

    pub fn advance(&mut self) -> Result<bool, CaptureError> {
        delegate!(self, r => r.advance())
    }

    pub fn current(&mut self) -> Option<Record<'_>> {
        delegate!(self, r => r.current())
    }

    pub fn current_ts(&self) -> Option<Option<u64>> {
        delegate!(self, r => r.current_ts())
    }

    pub fn set_wait_limit(&mut self, limit: Option<std::time::Duration>) {
        delegate!(self, r => r.set_wait_limit(limit))
    }

    /// What drops a mapped input's pages from another thread; `None` for streams.
    pub fn releaser(&self) -> Option<Releaser<'m>> {
        match self {
            AnyReader::Mapped(r) => r.releaser(),
            AnyReader::Stream(_) => None,
        }
    }

    /// The current record with the mapping's lifetime; `None` for streams.
    pub fn current_mapped(&self) -> Option<Record<'m>> {
        match self {
            AnyReader::Mapped(r) => r.current_mapped(),
            AnyReader::Stream(_) => None,
        }
    }

    /// For a memory-mapped input, drops the pages before file `offset`, whose records are
    /// all used up; a stream holds no more than its buffer and has nothing to drop.
    pub fn release_before(&mut self, offset: u64) {
        if let AnyReader::Mapped(r) = self {
            r.release_before(offset);
        }
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self, AnyReader::Mapped(_))
    }

    pub fn take_warnings(&mut self) -> Vec<Warning> {
        delegate!(self, r => r.take_warnings().collect())
    }

    pub fn has_warnings(&self) -> bool {
        delegate!(self, r => !r.warnings.is_empty())
    }

    pub fn damage(&self) -> Damage {
        delegate!(self, r => r.damage())
    }

    pub fn was_cut_short(&self) -> bool {
        delegate!(self, r => r.was_cut_short())
    }

    pub fn position(&self) -> u64 {
        delegate!(self, r => r.position())
    }

    pub fn len_hint(&self) -> Option<u64> {
        delegate!(self, r => r.len_hint())
    }

    pub fn container(&self) -> Container {
        delegate!(self, r => r.container())
    }

    pub fn interface(&self, id: u32) -> Option<InterfaceInfo> {
        delegate!(self, r => r.interface(id))
    }
}
