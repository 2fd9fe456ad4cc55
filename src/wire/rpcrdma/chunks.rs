//! A whole RPC-over-RDMA version 1 message (RFC 8166, 4.2): the fixed header, then for
//! RDMA_MSG and RDMA_NOMSG the three chunk lists (read list, write list, reply chunk), then
//! the RPC message itself for RDMA_MSG; an RDMA_ERROR carries its code instead.
//!
//! The lists are XDR optional-data lists: a word 1 before each item, 0 at the end. They are
//! walked once, when the message is checked, within the bytes present; the iterators below
//! then walk the same bytes again without checks that can fail.

use super::super::{DecodeError, Field, Layer, get, header_view};
use super::header::{HEADER_LEN, Header, proc};
use super::word;

mod field {
    use super::Field;

    /// A segment (RFC 8166, 4.2.1): the memory handle (R_Key), its length, its address.
    pub const HANDLE: Field = 0..4;
    pub const LENGTH: Field = 4..8;
    pub const OFFSET: Field = 8..16;
    /// A read segment is a segment preceded by its position in the XDR stream.
    pub const POSITION: Field = 0..4;
    pub const READ_SEGMENT: Field = 4..20;
}

const SEGMENT_LEN: usize = field::OFFSET.end;
const READ_SEGMENT_LEN: usize = field::READ_SEGMENT.end;

header_view!(
    /// A plain segment, as in write and reply chunks.
    Segment, SEGMENT_LEN, Layer::RpcRdma
);
header_view!(
    /// A read segment: a segment and its XDR position (0 for a whole RPC message).
    ReadSegment, READ_SEGMENT_LEN, Layer::RpcRdma
);

impl Segment<'_> {
    /// The R_Key the peer's RDMA READ or WRITE carries.
    pub fn handle(&self) -> u32 {
        get!(u32_at, self.bytes, field::HANDLE)
    }
    pub fn length(&self) -> u32 {
        get!(u32_at, self.bytes, field::LENGTH)
    }
    /// The buffer's address (RFC 8166 calls it offset).
    pub fn offset(&self) -> u64 {
        get!(u64_at, self.bytes, field::OFFSET)
    }
}

impl<'a> ReadSegment<'a> {
    pub fn position(&self) -> u32 {
        get!(u32_at, self.bytes, field::POSITION)
    }
    pub fn segment(&self) -> Segment<'a> {
        Segment {
            bytes: get!(sub_at, self.bytes, field::READ_SEGMENT),
        }
    }
}

/// A write chunk (or the reply chunk): its segments, checked present.
#[derive(Debug, Clone, Copy)]
pub struct WriteChunk<'a> {
    segments: &'a [u8],
}

impl<'a> WriteChunk<'a> {
    pub fn count(&self) -> u32 {
        (self.segments.len() / SEGMENT_LEN) as u32
    }
    pub fn segments(self) -> impl Iterator<Item = Segment<'a>> + 'a {
        self.segments
            .chunks_exact(SEGMENT_LEN)
            .filter_map(|s| Segment::new_checked(s, 0).ok())
    }
    /// Bytes the chunk's segments name.
    pub fn length(&self) -> u64 {
        self.segments().map(|s| u64::from(s.length())).sum()
    }
}

/// One RPC-over-RDMA message, its lists checked present.
#[derive(Debug, Clone, Copy)]
pub struct RpcRdma<'a> {
    header: Header<'a>,
    /// The bytes after the fixed header.
    rest: &'a [u8],
    /// Where in `rest` the write list and the reply chunk begin, and where the lists end:
    /// for RDMA_MSG, where the RPC message begins.
    write_at: u16,
    reply_at: u16,
    end: u16,
}

/// Where a walk of the lists stopped, and why.
fn short(offset: usize, at: usize, need: usize, rest: &[u8]) -> DecodeError {
    DecodeError::short(
        Layer::RpcRdma,
        offset + HEADER_LEN + at,
        need,
        rest.len().saturating_sub(at),
    )
}

fn bad(offset: usize, at: usize, why: &'static str) -> DecodeError {
    DecodeError::invalid(Layer::RpcRdma, offset + HEADER_LEN + at, why)
}

/// The end of a list item's discriminator at `at`: `Some(at + 4)` if an item follows.
fn more(rest: &[u8], at: usize, offset: usize) -> Result<bool, DecodeError> {
    match word(rest, at) {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(_) => Err(bad(offset, at, "list discriminator is neither 0 nor 1")),
        None => Err(short(offset, at, 4, rest)),
    }
}

/// A write chunk's count and segments starting at `at`: the end of the chunk.
fn write_chunk_end(rest: &[u8], at: usize, offset: usize) -> Result<usize, DecodeError> {
    let count = word(rest, at).ok_or_else(|| short(offset, at, 4, rest))? as usize;
    let len = count
        .checked_mul(SEGMENT_LEN)
        .filter(|len| *len <= rest.len().saturating_sub(at + 4))
        .ok_or_else(|| short(offset, at + 4, count.saturating_mul(SEGMENT_LEN), rest))?;
    Ok(at + 4 + len)
}

impl<'a> RpcRdma<'a> {
    /// Checks the fixed header and, for the types that have them, the three lists; `offset`
    /// (where the message starts in the frame) only labels an error.
    pub fn new_checked(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError> {
        let header = Header::new_checked(buf, offset)?;
        let rest = &buf[HEADER_LEN..];
        let lists = match header.proc() {
            proc::RDMA_MSG | proc::RDMA_NOMSG => Some(0),
            // Alignment and threshold come first.
            proc::RDMA_MSGP => Some(8),
            _ => None,
        };
        let (write_at, reply_at, end) = match lists {
            None => (0, 0, 0),
            Some(start) => {
                if rest.len() < start {
                    return Err(short(offset, 0, start, rest));
                }
                let mut at = start;
                while more(rest, at, offset)? {
                    at += 4;
                    if rest.len() - at < READ_SEGMENT_LEN {
                        return Err(short(offset, at, READ_SEGMENT_LEN, rest));
                    }
                    at += READ_SEGMENT_LEN;
                }
                let write_at = at + 4;
                at = write_at;
                while more(rest, at, offset)? {
                    at = write_chunk_end(rest, at + 4, offset)?;
                }
                // The reply chunk is optional data: a discriminator, then the chunk when it
                // is 1. The message ends with the chunk, or after the discriminator 0.
                let reply_at = at + 4;
                let end = if more(rest, reply_at, offset)? {
                    write_chunk_end(rest, reply_at + 4, offset)?
                } else {
                    reply_at + 4
                };
                (write_at, reply_at, end)
            }
        };
        let narrow = |v: usize| u16::try_from(v).map_err(|_| bad(offset, v, "lists too long"));
        Ok(RpcRdma {
            header,
            rest,
            write_at: narrow(write_at)?,
            reply_at: narrow(reply_at)?,
            end: narrow(end)?,
        })
    }

    pub fn header(&self) -> Header<'a> {
        self.header
    }

    /// Whether the type carries chunk lists (RDMA_MSG, RDMA_NOMSG, RDMA_MSGP).
    pub fn has_lists(&self) -> bool {
        self.end != 0
    }

    /// The read list's segments, in order: what the responder pulls with RDMA READ.
    pub fn read_segments(&self) -> impl Iterator<Item = ReadSegment<'a>> + 'a {
        let start = if self.header.proc() == proc::RDMA_MSGP {
            8
        } else {
            0
        };
        let bytes = if self.has_lists() {
            &self.rest[start..self.write_at as usize - 4]
        } else {
            &[]
        };
        // Each item is a discriminator (1) and a read segment.
        bytes
            .chunks_exact(4 + READ_SEGMENT_LEN)
            .filter_map(|item| ReadSegment::new_checked(&item[4..], 0).ok())
    }

    /// The write list's chunks, in order: buffers the responder fills with RDMA WRITE.
    pub fn write_chunks(&self) -> impl Iterator<Item = WriteChunk<'a>> + 'a {
        let rest = self.rest;
        let end = if self.has_lists() {
            self.reply_at as usize - 4
        } else {
            0
        };
        let mut at = self.write_at as usize;
        std::iter::from_fn(move || {
            // The walk in `new_checked` proved every chunk before `end` whole.
            if at >= end {
                return None;
            }
            let count = word(rest, at + 4)? as usize;
            let segments = rest.get(at + 8..at + 8 + count * SEGMENT_LEN)?;
            at += 8 + segments.len();
            Some(WriteChunk { segments })
        })
    }

    /// The reply chunk: where a long reply goes, by RDMA WRITE.
    pub fn reply_chunk(&self) -> Option<WriteChunk<'a>> {
        if !self.has_lists() || word(self.rest, self.reply_at as usize)? != 1 {
            return None;
        }
        let at = self.reply_at as usize + 4;
        let count = word(self.rest, at)? as usize;
        let segments = self.rest.get(at + 4..at + 4 + count * SEGMENT_LEN)?;
        Some(WriteChunk { segments })
    }

    pub fn read_count(&self) -> u32 {
        self.read_segments().count() as u32
    }
    pub fn write_count(&self) -> u32 {
        self.write_chunks().count() as u32
    }
    /// The reply chunk's segment count, 0 when there is none.
    pub fn reply_count(&self) -> u32 {
        self.reply_chunk().map_or(0, |c| c.count())
    }

    /// The RPC message an RDMA_MSG carries inline, as captured.
    pub fn rpc(&self) -> Option<&'a [u8]> {
        matches!(self.header.proc(), proc::RDMA_MSG | proc::RDMA_MSGP)
            .then(|| self.rest.get(self.end as usize..))
            .flatten()
    }

    /// Where the RPC message starts in the RPC-over-RDMA message.
    pub fn rpc_offset(&self) -> usize {
        HEADER_LEN + self.end as usize
    }

    /// RDMA_ERROR: the error code, and for ERR_VERS the versions the peer supports.
    pub fn error_code(&self) -> Option<u32> {
        (self.header.proc() == proc::RDMA_ERROR)
            .then(|| word(self.rest, 0))
            .flatten()
    }
    pub fn vers_low(&self) -> Option<u32> {
        (self.error_code() == Some(1))
            .then(|| word(self.rest, 4))
            .flatten()
    }
    pub fn vers_high(&self) -> Option<u32> {
        (self.error_code() == Some(1))
            .then(|| word(self.rest, 8))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn lists_of_a_read_call() {
        // RFC 8166 4.2: an NFS READ call asking for its data in one write chunk of one
        // segment (handle 0xb001, 4096 bytes at 0x2_0000_2000); no read list, no reply chunk;
        // then the RPC call's XID.
        let mut b = words(&[0x99, 1, 32, 0]);
        b.extend(words(&[0])); // read list: empty
        b.extend(words(&[1, 1, 0xb001, 4096, 2, 0x2000, 0])); // one write chunk
        b.extend(words(&[0])); // reply chunk: none
        b.extend(words(&[0x99, 0]));
        let m = RpcRdma::new_checked(&b, 0).unwrap();
        assert_eq!(m.read_count(), 0);
        assert_eq!(m.write_count(), 1);
        let chunk = m.write_chunks().next().unwrap();
        let seg = chunk.segments().next().unwrap();
        assert_eq!(
            (seg.handle(), seg.length(), seg.offset()),
            (0xb001, 4096, 0x2_0000_2000)
        );
        assert_eq!(m.reply_count(), 0);
        assert_eq!(m.rpc(), Some(&words(&[0x99, 0])[..]));
        assert_eq!(m.rpc_offset(), 16 + 4 + 28 + 4);
    }

    #[test]
    fn a_read_list_and_a_reply_chunk() {
        let mut b = words(&[7, 1, 1, 1]); // RDMA_NOMSG
        b.extend(words(&[1, 0, 0xa1, 200, 0, 0x100])); // read segment at position 0
        b.extend(words(&[0, 0])); // end of the read list; no write list
        b.extend(words(&[1, 2, 0xc1, 10, 0, 0, 0xc2, 20, 0, 0])); // reply chunk, 2 segments
        let m = RpcRdma::new_checked(&b, 0).unwrap();
        let read = m.read_segments().next().unwrap();
        assert_eq!((read.position(), read.segment().length()), (0, 200));
        assert_eq!(m.reply_count(), 2);
        assert_eq!(m.reply_chunk().unwrap().length(), 30);
        assert_eq!(m.rpc(), None);
    }

    /// RFC 8166 4.2: the reply chunk is optional data, so an RDMA_MSG with one carries its
    /// RPC message right after the chunk, with no terminator between. Found by fuzzing,
    /// which ended the lists 4 bytes past the chunk, and past the buffer.
    #[test]
    fn an_inline_call_follows_its_reply_chunk_at_once() {
        let mut b = words(&[0x42, 1, 8, 0]); // RDMA_MSG
        b.extend(words(&[0, 0])); // no read list, no write list
        b.extend(words(&[1, 1, 0xd1, 512, 0, 0x800])); // reply chunk, 1 segment
        b.extend(words(&[0x42, 0])); // the call: XID, CALL
        let m = RpcRdma::new_checked(&b, 0).unwrap();
        assert_eq!(m.reply_count(), 1);
        assert_eq!(m.rpc(), Some(&words(&[0x42, 0])[..]));
        assert_eq!(m.rpc_offset(), 16 + 8 + 24);
        // The same message cut right after its reply chunk has no call, and no panic.
        let cut = &b[..b.len() - 8];
        let m = RpcRdma::new_checked(cut, 0).unwrap();
        assert_eq!(m.rpc(), Some(&[][..]));
    }

    #[test]
    fn a_count_past_the_bytes_is_short_not_allocated() {
        let mut b = words(&[7, 1, 1, 0, 0, 1]);
        b.extend(words(&[0xffff_ffff])); // a write chunk claiming 2^32 - 1 segments
        let err = RpcRdma::new_checked(&b, 100).unwrap_err();
        assert_eq!(err.layer, Layer::RpcRdma);
        assert_eq!(err.offset, 100 + 16 + 12);
        let b = words(&[7, 1, 1, 0, 5]);
        assert!(RpcRdma::new_checked(&b, 0).is_err());
    }
}
