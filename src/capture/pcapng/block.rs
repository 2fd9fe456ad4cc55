//! nom parsers for pcapng blocks and their options. They only turn bytes into typed values;
//! what a failure means (the input ended, or the block is damaged and needs a resync) is
//! decided by the reader in `pcapng.rs`, which knows where the window came from.

use nom::branch::alt;
use nom::bytes::complete::{tag, take};
use nom::combinator::{all_consuming, peek, rest, value};
use nom::number::Endianness;
use nom::number::complete::{i64, u8, u16};
use nom::{IResult, Parser};

use super::super::MAX_RECORD;
use super::super::pcap::u32;

pub(in crate::capture) const SHB: u32 = 0x0a0d_0d0a;
pub(in crate::capture) const IDB: u32 = 0x0000_0001;
pub(super) const PB: u32 = 0x0000_0002;
pub(in crate::capture) const SPB: u32 = 0x0000_0003;
pub(super) const NRB: u32 = 0x0000_0004;
pub(super) const ISB: u32 = 0x0000_0005;
pub(in crate::capture) const EPB: u32 = 0x0000_0006;
pub(super) const DSB: u32 = 0x0000_000a;

pub(in crate::capture) const OPT_END: u16 = 0;
pub(in crate::capture) const OPT_IF_TSRESOL: u16 = 9;
pub(super) const OPT_IF_TSOFFSET: u16 = 14;

/// Type, length and trailing length: the smallest block there can be.
pub(super) const MIN_BLOCK_LEN: usize = 12;

/// The errors carry nothing: the reader words every failure itself, with the file offset,
/// and a damaged file can fail a parse at every one of its bytes while resynchronising.
type PResult<'a, T> = IResult<&'a [u8], T, ()>;

/// The type and length every block starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BlockHeader {
    pub block_type: u32,
    pub total_len: u32,
}

impl BlockHeader {
    /// Block types this reader knows; while resynchronising, anything else is taken for
    /// the damaged bytes it is far more likely to be than for a new kind of block.
    pub fn is_known(&self) -> bool {
        matches!(
            self.block_type,
            SHB | IDB | PB | SPB | NRB | ISB | EPB | DSB
        )
    }

    /// The length, if a block could have it. The upper bound keeps a hostile length from
    /// being requested from the input at all.
    pub fn plausible_len(&self) -> Option<usize> {
        let len = self.total_len as usize;
        (len >= MIN_BLOCK_LEN && len.is_multiple_of(4) && len <= MAX_RECORD + 64).then_some(len)
    }
}

/// Type and length in byte order `endian`. It insists on `MIN_BLOCK_LEN` bytes, so that a
/// failure means the input cannot hold even the smallest block.
#[inline]
pub(super) fn header<'a>(
    endian: Endianness,
) -> impl Parser<&'a [u8], Output = BlockHeader, Error = ()> {
    (u32(endian), u32(endian), peek(take(4usize))).map(|(block_type, total_len, _)| BlockHeader {
        block_type,
        total_len,
    })
}

/// The byte-order magic of a section header, as a number in the section's own order.
pub(in crate::capture) const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;

/// The byte-order magic of a section header.
fn byte_order(input: &[u8]) -> PResult<'_, Endianness> {
    alt((
        value(Endianness::Big, tag(&BYTE_ORDER_MAGIC.to_be_bytes()[..])),
        value(Endianness::Little, tag(&BYTE_ORDER_MAGIC.to_le_bytes()[..])),
    ))
    .parse(input)
}

/// A section header's type, length and byte-order magic. A section sets its own byte order,
/// so its length can only be read once the magic after it has been; its type reads the same
/// either way round.
pub(super) fn section_header(input: &[u8]) -> PResult<'_, (Endianness, BlockHeader)> {
    let (rest, (_, raw_len, endian)) =
        (tag(&SHB.to_be_bytes()[..]), take(4usize), byte_order).parse(input)?;
    let (_, total_len) = u32(endian).parse(raw_len)?;
    let header = BlockHeader {
        block_type: SHB,
        total_len,
    };
    Ok((rest, (endian, header)))
}

/// A whole block split at its fixed positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Frame<'a> {
    /// Everything between the leading length and the trailing one.
    pub body: &'a [u8],
    pub trailing_len: u32,
}

/// Splits a block of `total_len` bytes (at least `MIN_BLOCK_LEN`); fails only when the
/// input holds fewer bytes than that.
#[inline]
pub(super) fn frame<'a>(
    endian: Endianness,
    total_len: usize,
) -> impl Parser<&'a [u8], Output = Frame<'a>, Error = ()> {
    (
        take(8usize),
        take(total_len.saturating_sub(MIN_BLOCK_LEN)),
        u32(endian),
    )
        .map(|(_, body, trailing_len)| Frame { body, trailing_len })
}

/// The fields of an Enhanced or (obsolete) Packet Block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PacketFields<'a> {
    pub iface: u32,
    /// Timestamp in the interface's units, high and low words joined.
    pub ts_units: u64,
    pub caplen: u32,
    pub orig_len: u32,
    /// The packet data with its padding and any options after it; `caplen` says how much of
    /// it is the packet.
    pub data: &'a [u8],
}

/// A block body, typed. Blocks the reader has no use for are `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Block<'a> {
    Shb,
    Idb {
        linktype: u16,
        snaplen: u32,
        options: Options<'a>,
    },
    Epb(PacketFields<'a>),
    Pb(PacketFields<'a>),
    Spb {
        orig_len: u32,
        /// The packet data and its padding.
        data: &'a [u8],
    },
    Other,
}

/// Offset of an Enhanced or Packet Block's data within its body.
pub(super) const PACKET_FIELDS_LEN: usize = 20;
/// Offset of a Simple Packet Block's data within its body.
pub(super) const SPB_FIELDS_LEN: usize = 4;

/// Parses the body (`Frame::body`) of a block of type `block_type`. The error is the message
/// for a body too short for its fixed fields.
#[inline]
pub(super) fn block(
    endian: Endianness,
    block_type: u32,
    body: &[u8],
) -> Result<Block<'_>, &'static str> {
    let e = endian;
    match block_type {
        SHB => Ok(Block::Shb),
        IDB => (u16(e), take(2usize), u32(e))
            .map(|(linktype, _reserved, snaplen)| (linktype, snaplen))
            .parse(body)
            .map(|(options, (linktype, snaplen))| Block::Idb {
                linktype,
                snaplen,
                options: Options {
                    rest: options,
                    endian,
                },
            })
            .map_err(|_: nom::Err<()>| "interface description block too short"),
        EPB => packet_fields(u32(e), e)
            .parse(body)
            .map(|(_, p)| Block::Epb(p))
            .map_err(|_: nom::Err<()>| "packet block too short"),
        // The interface id is 16 bits here, followed by a drop count nobody reads.
        PB => packet_fields(
            (u16(e), take(2usize)).map(|(iface, _drops)| u32::from(iface)),
            e,
        )
        .parse(body)
        .map(|(_, p)| Block::Pb(p))
        .map_err(|_: nom::Err<()>| "packet block too short"),
        SPB => u32(e)
            .parse(body)
            .map(|(data, orig_len)| Block::Spb { orig_len, data })
            .map_err(|_: nom::Err<()>| "simple packet block too short"),
        _ => Ok(Block::Other),
    }
}

/// Interface, timestamp and lengths, the shared head of Enhanced and Packet Blocks, which
/// differ only in how the interface is written.
#[inline]
fn packet_fields<'a>(
    iface: impl Parser<&'a [u8], Output = u32, Error = ()>,
    e: Endianness,
) -> impl Parser<&'a [u8], Output = PacketFields<'a>, Error = ()> {
    (iface, u32(e), u32(e), u32(e), u32(e), rest).map(
        |(iface, ts_hi, ts_lo, caplen, orig_len, data)| PacketFields {
            iface,
            ts_units: (u64::from(ts_hi) << 32) | u64::from(ts_lo),
            caplen,
            orig_len,
            data,
        },
    )
}

/// One option: code and value, padding dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RawOption<'a> {
    pub code: u16,
    pub value: &'a [u8],
}

/// The options of a block, in order, up to `opt_endofopt` or the end of the block. A
/// truncated option yields `Err` with its code and ends the iteration, since nothing after
/// it can be trusted to be aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Options<'a> {
    rest: &'a [u8],
    endian: Endianness,
}

impl<'a> Iterator for Options<'a> {
    type Item = Result<RawOption<'a>, u16>;

    fn next(&mut self) -> Option<Self::Item> {
        let e = self.endian;
        // Fewer than four bytes cannot be an option; writers pad the last one that way.
        let (after, (code, len)) = (u16::<_, ()>(e), u16(e)).parse(self.rest).ok()?;
        if code == OPT_END {
            self.rest = &[];
            return None;
        }
        let len = usize::from(len);
        match take::<_, _, ()>(len).parse(after) {
            Ok((_, value)) => {
                self.rest = after.get(len.div_ceil(4) * 4..).unwrap_or_default();
                Some(Ok(RawOption { code, value }))
            }
            Err(_) => {
                self.rest = &[];
                Some(Err(code))
            }
        }
    }
}

/// Units of an interface's timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolution {
    /// Units of 10^-n seconds.
    Decimal(u8),
    /// Units of 2^-n seconds.
    Binary(u8),
}

/// The value of `if_tsresol`: one byte, top bit choosing base 2 over base 10.
pub(super) fn if_tsresol(value: &[u8]) -> Option<Resolution> {
    all_consuming(u8::<_, ()>)
        .map(|r| {
            if r & 0x80 == 0 {
                Resolution::Decimal(r)
            } else {
                Resolution::Binary(r & 0x7f)
            }
        })
        .parse(value)
        .ok()
        .map(|(_, r)| r)
}

/// The value of `if_tsoffset`: signed seconds added to every timestamp.
pub(super) fn if_tsoffset(endian: Endianness, value: &[u8]) -> Option<i64> {
    all_consuming(i64::<_, ()>(endian))
        .parse(value)
        .ok()
        .map(|(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_endian_section_header() {
        // pcapng draft §4.1: type 0x0A0D0D0A, length 28, byte-order magic 0x1A2B3C4D written
        // big-endian, version 1.0, section length -1 (unknown), length again.
        let bytes = [
            0x0a, 0x0d, 0x0d, 0x0a, 0x00, 0x00, 0x00, 0x1c, 0x1a, 0x2b, 0x3c, 0x4d, 0x00, 0x01,
            0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x1c,
        ];
        let (_, (endian, header)) = section_header(&bytes).unwrap();
        assert_eq!(endian, Endianness::Big);
        assert_eq!(
            header,
            BlockHeader {
                block_type: SHB,
                total_len: 28
            }
        );
        // Read in the wrong order first, the type still says "section header".
        let (_, guess) = self::header(Endianness::Little).parse(&bytes).unwrap();
        assert_eq!(guess.block_type, SHB);
        let (_, f) = frame(endian, 28).parse(&bytes).unwrap();
        assert_eq!(f.trailing_len, 28);
        assert_eq!(f.body.len(), 16);
        assert_eq!(block(endian, SHB, f.body), Ok(Block::Shb));
    }

    #[test]
    fn little_endian_section_header_and_a_bad_byte_order_magic() {
        // pcapng draft §4.1: the same header as a little-endian writer puts it.
        let good = [
            0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0x00, 0x00, 0x00, 0x4d, 0x3c, 0x2b, 0x1a,
        ];
        let (_, (endian, header)) = section_header(&good).unwrap();
        assert_eq!((endian, header.total_len), (Endianness::Little, 28));
        // The magic with two bytes swapped is neither order.
        let mut bad = good;
        bad.swap(8, 9);
        assert!(section_header(&bad).is_err());
    }

    #[test]
    fn bad_block_lengths() {
        // pcapng draft §3.1: Block Total Length is a multiple of 4 and at least 12.
        for (len, plausible) in [
            (12u32, true),
            (13, false),
            (8, false),
            (0, false),
            (u32::MAX - 3, false),
        ] {
            let mut bytes = EPB.to_le_bytes().to_vec();
            bytes.extend_from_slice(&len.to_le_bytes());
            bytes.extend_from_slice(&[0; 4]);
            let (_, h) = header(Endianness::Little).parse(&bytes).unwrap();
            assert_eq!(h.total_len, len);
            assert_eq!(h.plausible_len().is_some(), plausible, "length {len}");
        }
        // Eleven bytes cannot hold even an empty block.
        assert!(header(Endianness::Little).parse(&[0u8; 11]).is_err());
        // pcapng draft §3.1: an NRB (type 4) of length 16 whose trailing copy says 20.
        let bytes = [4, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0];
        let (_, f) = frame(Endianness::Little, 16).parse(&bytes).unwrap();
        assert_eq!(f.trailing_len, 20);
        // A window shorter than the block is not a frame.
        assert!(frame(Endianness::Little, 16).parse(&bytes[..15]).is_err());
    }

    /// An IDB as pcapng draft §4.2 lays it out: link type 1, snaplen 0 (unlimited), then the
    /// given options (already padded) and `opt_endofopt`.
    fn idb_body(options: &[u8]) -> Vec<u8> {
        let mut body = vec![1, 0, 0, 0, 0, 0, 0, 0];
        body.extend_from_slice(options);
        body.extend_from_slice(&[0, 0, 0, 0]);
        body
    }

    fn resolution_of(options: &[u8]) -> Option<Resolution> {
        let body = idb_body(options);
        let Ok(Block::Idb { options, .. }) = block(Endianness::Little, IDB, &body) else {
            panic!("not an IDB");
        };
        let mut found = None;
        for option in options {
            let option = option.unwrap();
            if option.code == OPT_IF_TSRESOL {
                found = if_tsresol(option.value);
            }
        }
        found
    }

    #[test]
    fn if_tsresol_nanoseconds() {
        // pcapng draft §4.2: if_tsresol (code 9), length 1, value 9 = 10^-9 s, three bytes
        // of padding.
        assert_eq!(
            resolution_of(&[9, 0, 1, 0, 9, 0, 0, 0]),
            Some(Resolution::Decimal(9))
        );
    }

    #[test]
    fn if_tsresol_binary() {
        // pcapng draft §4.2: if_tsresol value with the top bit set, 0x80 | 20 = 2^-20 s.
        assert_eq!(
            resolution_of(&[9, 0, 1, 0, 0x94, 0, 0, 0]),
            Some(Resolution::Binary(20))
        );
    }

    #[test]
    fn idb_fields_and_options_in_order() {
        // pcapng draft §4.2, big-endian: link type 147 (USER0), snaplen 262144, if_name
        // (code 2) "eth0", if_tsoffset (code 14) of 3600 s, opt_endofopt, then junk that
        // must not be read as an option.
        let body = [
            0x00, 0x93, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x04, b'e', b't',
            b'h', b'0', 0x00, 0x0e, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0x0e, 0x10, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x09, 0x00, 0x01,
        ];
        let Ok(Block::Idb {
            linktype,
            snaplen,
            options,
        }) = block(Endianness::Big, IDB, &body)
        else {
            panic!("not an IDB");
        };
        assert_eq!((linktype, snaplen), (147, 262_144));
        let options: Vec<_> = options.collect();
        assert_eq!(
            options,
            [
                Ok(RawOption {
                    code: 2,
                    value: b"eth0"
                }),
                Ok(RawOption {
                    code: OPT_IF_TSOFFSET,
                    value: &[0, 0, 0, 0, 0, 0, 0x0e, 0x10]
                }),
            ]
        );
        let Ok(offset) = options[1] else { panic!() };
        assert_eq!(if_tsoffset(Endianness::Big, offset.value), Some(3600));
        assert_eq!(if_tsoffset(Endianness::Big, &offset.value[..7]), None);
    }

    #[test]
    fn an_option_running_past_its_block() {
        // pcapng draft §3.5: if_description (code 3) claiming 12 bytes with 4 left.
        let body = idb_body(&[3, 0, 12, 0, b'a', b'b', b'c', b'd']);
        // idb_body appends an opt_endofopt, which here is inside the overlong value.
        let body = &body[..body.len() - 4];
        let Ok(Block::Idb { options, .. }) = block(Endianness::Little, IDB, body) else {
            panic!("not an IDB");
        };
        assert_eq!(options.collect::<Vec<_>>(), [Err(3)]);
    }

    #[test]
    fn enhanced_and_simple_packet_blocks() {
        // pcapng draft §4.3, little-endian: interface 1, timestamp 0x00000001_00000002,
        // caplen 3, original 5, three data bytes and one of padding.
        let body = [
            1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0,
        ];
        assert_eq!(
            block(Endianness::Little, EPB, &body),
            Ok(Block::Epb(PacketFields {
                iface: 1,
                ts_units: (1 << 32) | 2,
                caplen: 3,
                orig_len: 5,
                data: &[0xaa, 0xbb, 0xcc, 0],
            }))
        );
        // pcapng draft §4.5 (obsolete Packet Block): a 16-bit interface 1 and drop count 7.
        let mut pb = body;
        pb[2] = 7;
        let Ok(Block::Pb(fields)) = block(Endianness::Little, PB, &pb) else {
            panic!("not a PB");
        };
        assert_eq!(fields.iface, 1);
        assert_eq!(
            block(Endianness::Little, EPB, &body[..19]),
            Err("packet block too short")
        );
        // pcapng draft §4.4: original length 60, then its data.
        assert_eq!(
            block(Endianness::Big, SPB, &[0, 0, 0, 60, 0xde, 0xad]),
            Ok(Block::Spb {
                orig_len: 60,
                data: &[0xde, 0xad]
            })
        );
        assert_eq!(
            block(Endianness::Big, SPB, &[0, 0, 0]),
            Err("simple packet block too short")
        );
        assert_eq!(block(Endianness::Big, ISB, &[]), Ok(Block::Other));
    }
}
