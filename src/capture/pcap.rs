//! Classic pcap: microsecond and nanosecond magic, either byte order.
//!
//! The headers are read by nom parsers over windows the [`Input`] hands out; the reader
//! around them decides what a short window means (cut short, or a header too small to be a
//! capture), because only it knows whether the input has ended.

use nom::bytes::complete::{tag, take};
use nom::combinator::map_opt;
use nom::number::Endianness;
use nom::{IResult, Parser};

use super::{CaptureError, Input, InterfaceInfo, Located, MAX_RECORD, TsResolution, WarningSink};

const GLOBAL_HEADER_LEN: usize = 24;
const RECORD_HEADER_LEN: usize = 16;

/// What the magic number says about the rest of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Magic {
    pub endian: Endianness,
    /// Nanoseconds per unit of the record header's fractional timestamp.
    pub frac_ns: u64,
}

/// The global-header fields the reader keeps: the link type for decoding, the snaplen to
/// describe the file (`info`) and copy it (`read -w`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileHeader {
    pub snaplen: u32,
    pub linktype: u32,
}

/// A record header's fields, still in the file's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecordHeader {
    pub ts_sec: u32,
    pub ts_frac: u32,
    pub caplen: u32,
    pub orig_len: u32,
}

/// The errors carry nothing: every caller turns a failure into its own message with the
/// file offset, and a unit error costs nothing to build on a damaged file's many failures.
type PResult<'a, T> = IResult<&'a [u8], T, ()>;

/// A 32-bit field in byte order `endian`, for pcap and pcapng alike. nom's own `u32`
/// assembles the value a byte at a time, which the optimiser did not always turn back into
/// one load: the pcapng walk ran more instructions a block with it than with this.
#[inline]
pub(crate) fn u32<'a>(endian: Endianness) -> impl Parser<&'a [u8], Output = u32, Error = ()> {
    map_opt(take(4usize), move |b: &[u8]| {
        let word = *b.first_chunk::<4>()?;
        Some(match endian {
            Endianness::Big => u32::from_be_bytes(word),
            Endianness::Little => u32::from_le_bytes(word),
            Endianness::Native => u32::from_ne_bytes(word),
        })
    })
}

/// The four magic numbers: microsecond or nanosecond fractions, written in either order.
pub(crate) fn magic(input: &[u8]) -> PResult<'_, Magic> {
    let m = |bytes: &'static [u8; 4], endian, frac_ns| {
        tag(&bytes[..]).map(move |_| Magic { endian, frac_ns })
    };
    nom::branch::alt((
        m(&[0xd4, 0xc3, 0xb2, 0xa1], Endianness::Little, 1000),
        m(&[0xa1, 0xb2, 0xc3, 0xd4], Endianness::Big, 1000),
        m(&[0x4d, 0x3c, 0xb2, 0xa1], Endianness::Little, 1),
        m(&[0xa1, 0xb2, 0x3c, 0x4d], Endianness::Big, 1),
    ))
    .parse(input)
}

/// The 24-byte global header, magic included.
pub(crate) fn file_header<'a>(
    endian: Endianness,
) -> impl Parser<&'a [u8], Output = FileHeader, Error = ()> {
    // Magic, version, thiszone and sigfigs change nothing in how records are read; snaplen
    // is only a promise the record headers already keep or break.
    (take(16usize), u32(endian), u32(endian)).map(|(_, snaplen, network)| FileHeader {
        snaplen,
        // The top bits carry FCS-length flags (pcap-linktype(7)), not the link type.
        linktype: network & 0x03ff_ffff,
    })
}

/// The 16-byte header in front of every record.
#[inline]
pub(crate) fn record_header<'a>(
    endian: Endianness,
) -> impl Parser<&'a [u8], Output = RecordHeader, Error = ()> {
    (u32(endian), u32(endian), u32(endian), u32(endian)).map(
        |(ts_sec, ts_frac, caplen, orig_len)| RecordHeader {
            ts_sec,
            ts_frac,
            caplen,
            orig_len,
        },
    )
}

pub(crate) struct PcapState {
    magic: Magic,
    linktype: u32,
    snaplen: u32,
}

impl PcapState {
    /// Recognises the four magic numbers; the header itself is read by `read_header`.
    pub fn detect(bytes: [u8; 4]) -> Option<PcapState> {
        let (_, magic) = magic(&bytes).ok()?;
        Some(PcapState {
            magic,
            linktype: 0,
            snaplen: 0,
        })
    }

    pub fn read_header<I: Input>(mut self, input: &mut I) -> Result<Self, CaptureError> {
        let window = input.peek(GLOBAL_HEADER_LEN)?;
        let Ok((_, header)) = file_header(self.magic.endian).parse(window) else {
            return Err(CaptureError::Damaged {
                offset: 0,
                message: format!(
                    "pcap global header needs {GLOBAL_HEADER_LEN} bytes, file has {}",
                    window.len()
                ),
            });
        };
        self.linktype = header.linktype;
        self.snaplen = header.snaplen;
        input.consume(GLOBAL_HEADER_LEN);
        Ok(self)
    }

    pub fn big_endian(&self) -> bool {
        self.magic.endian == Endianness::Big
    }

    /// The file's one interface, as the global header declares it.
    pub fn interface(&self) -> InterfaceInfo {
        InterfaceInfo {
            linktype: self.linktype,
            snaplen: self.snaplen,
            resolution: TsResolution::Decimal(if self.magic.frac_ns == 1 { 9 } else { 6 }),
        }
    }

    #[inline]
    pub fn locate<I: Input>(
        &mut self,
        input: &mut I,
        sink: &mut WarningSink<'_>,
    ) -> Result<Option<Located>, CaptureError> {
        let offset = input.position();
        let window = input.peek(RECORD_HEADER_LEN)?;
        if window.is_empty() {
            return Ok(None);
        }
        let Ok((_, header)) = record_header(self.magic.endian).parse(window) else {
            sink.cut_short(offset, "record header", RECORD_HEADER_LEN, window.len());
            return Ok(None);
        };
        let caplen = header.caplen as usize;
        if caplen > MAX_RECORD {
            return Err(CaptureError::Damaged {
                offset,
                message: format!(
                    "record header claims {caplen} captured bytes (limit {MAX_RECORD}); \
                     the pcap is damaged and has no markers to resynchronise on"
                ),
            });
        }
        let total_len = RECORD_HEADER_LEN + caplen;
        input.prefetch(total_len);
        let available = input.peek(total_len)?.len();
        if available < total_len {
            sink.cut_short(offset, "record", total_len, available);
            return Ok(None);
        }
        Ok(Some(Located {
            total_len,
            data_start: RECORD_HEADER_LEN,
            caplen,
            orig_len: header.orig_len,
            ts_ns: Some(
                u64::from(header.ts_sec) * 1_000_000_000
                    + u64::from(header.ts_frac) * self.magic.frac_ns,
            ),
            linktype: self.linktype,
            iface: 0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_give_byte_order_and_fraction_unit() {
        // pcap(5)/draft-ietf-opsawg-pcap §4: 0xA1B2C3D4 for µs, 0xA1B23C4D for ns, written
        // in the writer's byte order.
        let cases: [([u8; 4], Endianness, u64); 4] = [
            ([0xd4, 0xc3, 0xb2, 0xa1], Endianness::Little, 1000),
            ([0xa1, 0xb2, 0xc3, 0xd4], Endianness::Big, 1000),
            ([0x4d, 0x3c, 0xb2, 0xa1], Endianness::Little, 1),
            ([0xa1, 0xb2, 0x3c, 0x4d], Endianness::Big, 1),
        ];
        for (bytes, endian, frac_ns) in cases {
            assert_eq!(
                magic(&bytes),
                Ok((&[][..], Magic { endian, frac_ns })),
                "{bytes:02x?}"
            );
        }
        // The pcapng section-header type is not a pcap magic in either order.
        assert!(magic(&[0x0a, 0x0d, 0x0d, 0x0a]).is_err());
        assert!(magic(&[0xd4, 0xc3, 0xb2]).is_err());
    }

    #[test]
    fn big_endian_global_header() {
        // draft-ietf-opsawg-pcap §4: magic, major 2, minor 4, reserved ×2, snaplen 65535,
        // LinkType 1 (Ethernet) with the FCS-present flag (bit 28) and FCS length 2 set.
        let bytes = [
            0xa1, 0xb2, 0xc3, 0xd4, 0x00, 0x02, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00,
            0xff, 0xff, 0x50, 0x00, 0x00, 0x01,
        ];
        let (rest, header) = file_header(Endianness::Big).parse(&bytes).unwrap();
        assert!(rest.is_empty());
        assert_eq!(
            header,
            FileHeader {
                snaplen: 65535,
                linktype: 1
            }
        );
        assert!(file_header(Endianness::Big).parse(&bytes[..23]).is_err());
    }

    #[test]
    fn little_endian_record_header() {
        // draft-ietf-opsawg-pcap §5: ts 1700000000 s + 250 units, caplen 60, original 1514.
        let bytes = [
            0x00, 0xf1, 0x53, 0x65, 0xfa, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0xea, 0x05,
            0x00, 0x00, 0xee,
        ];
        let (rest, header) = record_header(Endianness::Little).parse(&bytes).unwrap();
        assert_eq!(rest, [0xee]);
        assert_eq!(
            header,
            RecordHeader {
                ts_sec: 1_700_000_000,
                ts_frac: 250,
                caplen: 60,
                orig_len: 1514,
            }
        );
        assert!(
            record_header(Endianness::Little)
                .parse(&bytes[..15])
                .is_err()
        );
    }

    #[test]
    fn big_endian_record_header() {
        // draft-ietf-opsawg-pcap §5, written big-endian: 1 s + 999999999 ns, caplen
        // 0x00010000 (a length that only reads right in this order), original 64.
        let bytes = [
            0x00, 0x00, 0x00, 0x01, 0x3b, 0x9a, 0xc9, 0xff, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x40,
        ];
        let (_, header) = record_header(Endianness::Big).parse(&bytes).unwrap();
        assert_eq!(
            header,
            RecordHeader {
                ts_sec: 1,
                ts_frac: 999_999_999,
                caplen: 65536,
                orig_len: 64,
            }
        );
    }
}
