//! pcapng: sections of either byte order, several interfaces with their own link types and
//! timestamp resolutions, Enhanced, Simple and (obsolete) Packet Blocks. A block with a
//! broken length is skipped by scanning for the next block whose leading and trailing
//! lengths agree.

pub(super) mod block;

use nom::Parser;
use nom::number::Endianness;

use super::{CaptureError, Input, InterfaceInfo, Located, TsResolution, WarningSink};
use block::{
    Block, MIN_BLOCK_LEN, OPT_IF_TSOFFSET, OPT_IF_TSRESOL, PACKET_FIELDS_LEN, PacketFields,
    Resolution, SHB, SPB_FIELDS_LEN,
};

/// A damaged file stops when no valid block turns up within this many bytes.
const MAX_RESYNC_SCAN: u64 = 64 << 20;
/// More interfaces than this in one section is a damaged or hostile file.
const MAX_INTERFACES: usize = 1 << 16;

pub(crate) fn is_pcapng(magic: [u8; 4]) -> bool {
    u32::from_be_bytes(magic) == SHB
}

#[derive(Clone, Copy)]
struct Interface {
    linktype: u32,
    snaplen: u32,
    resolution: Resolution,
    offset_s: i64,
}

impl Interface {
    fn ts_ns(&self, units: u64) -> u64 {
        let units = u128::from(units);
        let ns = match self.resolution {
            Resolution::Decimal(n) if n <= 9 => units * 10u128.pow(u32::from(9 - n)),
            Resolution::Decimal(n) => match 10u128.checked_pow(u32::from(n - 9)) {
                Some(div) => units / div,
                None => 0,
            },
            Resolution::Binary(n) if n < 100 => (units * 1_000_000_000) >> n,
            Resolution::Binary(_) => 0,
        };
        let offset = i128::from(self.offset_s) * 1_000_000_000;
        u64::try_from((ns as i128).saturating_add(offset).max(0)).unwrap_or(u64::MAX)
    }
}

pub(crate) struct PcapNgState {
    /// Byte order of the current section, from its header's byte-order magic.
    endian: Endianness,
    interfaces: Vec<Interface>,
    /// Where scanning for a valid block started, while recovering from damage.
    resync_from: Option<u64>,
    /// Section headers read so far: interface ids restart with each section.
    sections: u32,
}

impl Default for PcapNgState {
    fn default() -> Self {
        PcapNgState {
            // Only a section header's own magic sets the order, and the file starts with one.
            endian: Endianness::Little,
            interfaces: Vec::new(),
            resync_from: None,
            sections: 0,
        }
    }
}

enum Verdict {
    Packet(Located),
    Skip(usize),
}

impl PcapNgState {
    pub fn locate<I: Input>(
        &mut self,
        input: &mut I,
        sink: &mut WarningSink<'_>,
    ) -> Result<Option<Located>, CaptureError> {
        loop {
            let offset = input.position();
            if let Some(from) = self.resync_from
                && offset - from > MAX_RESYNC_SCAN
            {
                return Err(CaptureError::Damaged {
                    offset: from,
                    message: format!(
                        "no valid pcapng block in the {MAX_RESYNC_SCAN} bytes after the damage"
                    ),
                });
            }
            let head = input.peek(MIN_BLOCK_LEN)?;
            if let Some(from) = self.resync_from
                && head.len() < MIN_BLOCK_LEN
            {
                return Err(gave_up(from, offset + head.len() as u64));
            }
            if head.is_empty() {
                return Ok(None);
            }
            let Ok((_, mut header)) = block::header(self.endian).parse(head) else {
                sink.cut_short(offset, "block header", MIN_BLOCK_LEN, head.len());
                return Ok(None);
            };
            if header.block_type == SHB {
                // The section's byte order is only known from its own byte-order magic.
                match block::section_header(head) {
                    Ok((_, (endian, section))) => {
                        self.endian = endian;
                        header = section;
                    }
                    Err(_) => {
                        self.damaged(
                            input,
                            sink,
                            offset,
                            "section header with a bad byte-order magic".into(),
                        );
                        continue;
                    }
                }
            }
            if self.resync_from.is_some() && !header.is_known() {
                input.consume(4);
                continue;
            }
            let Some(total_len) = header.plausible_len() else {
                self.damaged(
                    input,
                    sink,
                    offset,
                    format!("block length {} is impossible", header.total_len),
                );
                continue;
            };
            // As for pcap records: the blocks ahead are asked for while this one is decoded.
            input.prefetch(total_len);
            let window = input.peek(total_len)?;
            let Ok((_, frame)) = block::frame(self.endian, total_len).parse(window) else {
                if self.resync_from.is_some() {
                    // A false candidate, whose length runs past the end: the scan goes on.
                    input.consume(4);
                    continue;
                }
                sink.cut_short(offset, "block", total_len, window.len());
                return Ok(None);
            };
            let trailer = frame.trailing_len as usize;
            if trailer != total_len {
                self.damaged(
                    input,
                    sink,
                    offset,
                    format!("block length {total_len} disagrees with its trailing copy {trailer}"),
                );
                continue;
            }
            if let Some(from) = self.resync_from.take() {
                sink.skipped_bytes(offset - from);
                sink.warn(
                    offset,
                    format!(
                        "resynchronised after skipping {} damaged bytes",
                        offset - from
                    ),
                );
            }
            let verdict = self.read_block(header.block_type, frame.body, total_len, offset, sink);
            match verdict {
                Ok(Verdict::Packet(located)) => return Ok(Some(located)),
                Ok(Verdict::Skip(len)) => input.consume(len),
                Err(message) => {
                    sink.skipped_block();
                    sink.warn(offset, message);
                    input.consume(total_len);
                }
            }
        }
    }

    fn damaged<I: Input>(
        &mut self,
        input: &mut I,
        sink: &mut WarningSink<'_>,
        offset: u64,
        why: String,
    ) {
        if self.resync_from.is_none() {
            sink.warn(
                offset,
                format!("damaged pcapng block: {why}; scanning for the next valid block"),
            );
            self.resync_from = Some(offset);
        }
        input.consume(4);
    }

    /// Interprets the body of one block whose lengths are consistent. An `Err` is a problem
    /// confined to this block: it is reported and the block skipped.
    fn read_block(
        &mut self,
        block_type: u32,
        body: &[u8],
        total_len: usize,
        offset: u64,
        sink: &mut WarningSink<'_>,
    ) -> Result<Verdict, String> {
        // Offset of the body within the block, to place the packet data for `Located`.
        const BODY_START: usize = 8;
        match block::block(self.endian, block_type, body)? {
            Block::Shb => {
                self.interfaces.clear();
                self.sections += 1;
                Ok(Verdict::Skip(total_len))
            }
            Block::Idb {
                linktype,
                snaplen,
                options,
            } => {
                if self.interfaces.len() >= MAX_INTERFACES {
                    return Err(format!(
                        "more than {MAX_INTERFACES} interfaces in one section"
                    ));
                }
                let mut interface = Interface {
                    linktype: u32::from(linktype),
                    snaplen,
                    resolution: Resolution::Decimal(6),
                    offset_s: 0,
                };
                self.read_idb_options(options, &mut interface, offset, sink);
                self.interfaces.push(interface);
                Ok(Verdict::Skip(total_len))
            }
            Block::Epb(packet) | Block::Pb(packet) => {
                let PacketFields {
                    iface,
                    ts_units,
                    caplen,
                    orig_len,
                    data,
                } = packet;
                let caplen = caplen as usize;
                if caplen > data.len() {
                    return Err(format!(
                        "packet block claims {caplen} captured bytes but holds {}",
                        data.len()
                    ));
                }
                let interface = self.interface(iface)?;
                Ok(Verdict::Packet(Located {
                    total_len,
                    data_start: BODY_START + PACKET_FIELDS_LEN,
                    caplen,
                    orig_len,
                    ts_ns: Some(interface.ts_ns(ts_units)),
                    linktype: interface.linktype,
                    iface,
                }))
            }
            Block::Spb { orig_len, data } => {
                let interface = self.interface(0)?;
                let mut caplen = (orig_len as usize).min(data.len());
                if interface.snaplen != 0 {
                    caplen = caplen.min(interface.snaplen as usize);
                }
                Ok(Verdict::Packet(Located {
                    total_len,
                    data_start: BODY_START + SPB_FIELDS_LEN,
                    caplen,
                    orig_len,
                    ts_ns: None,
                    linktype: interface.linktype,
                    iface: 0,
                }))
            }
            Block::Other => Ok(Verdict::Skip(total_len)),
        }
    }

    pub fn big_endian(&self) -> bool {
        self.endian == Endianness::Big
    }

    /// Sections begun so far (1 in the first); interface ids count within one section.
    pub fn section(&self) -> u32 {
        self.sections
    }

    /// Interface `id` of the current section, as its description block declared it.
    pub fn interface_info(&self, id: u32) -> Option<InterfaceInfo> {
        let interface = self.interfaces.get(id as usize)?;
        Some(InterfaceInfo {
            linktype: interface.linktype,
            snaplen: interface.snaplen,
            resolution: match interface.resolution {
                Resolution::Decimal(n) => TsResolution::Decimal(n),
                Resolution::Binary(n) => TsResolution::Binary(n),
            },
        })
    }

    fn interface(&self, id: u32) -> Result<Interface, String> {
        self.interfaces.get(id as usize).copied().ok_or_else(|| {
            format!("packet names interface {id}, which no interface block declared")
        })
    }

    fn read_idb_options(
        &self,
        options: block::Options<'_>,
        interface: &mut Interface,
        offset: u64,
        sink: &mut WarningSink<'_>,
    ) {
        for option in options {
            let option = match option {
                Ok(option) => option,
                Err(code) => {
                    sink.warn(
                        offset,
                        format!("interface option {code} runs past its block"),
                    );
                    break;
                }
            };
            // A value of the wrong size is ignored, as the interface's defaults still hold.
            match option.code {
                OPT_IF_TSRESOL => {
                    if let Some(resolution) = block::if_tsresol(option.value) {
                        interface.resolution = resolution;
                    }
                }
                OPT_IF_TSOFFSET => {
                    if let Some(offset_s) = block::if_tsoffset(self.endian, option.value) {
                        interface.offset_s = offset_s;
                    }
                }
                _ => {}
            }
        }
    }
}

/// The scan that began at the damage at `from` reached the end of the file at `end`
/// without a valid block: nothing after the damage could be read, and that is an error, not
/// a capture read past its damage.
fn gave_up(from: u64, end: u64) -> CaptureError {
    CaptureError::Damaged {
        offset: from,
        message: format!(
            "no valid pcapng block after the damage: the {} bytes to the end of the file \
             were skipped",
            end - from
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §4.3: an EPB on interface 0 at 1000000 µs, four bytes captured of four.
    const DEADBEEF_EPB: [u8; 36] = [
        6, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x42, 0x0f, 0, 4, 0, 0, 0, 4, 0, 0,
        0, 0xde, 0xad, 0xbe, 0xef, 36, 0, 0, 0,
    ];

    /// pcapng draft §4.1: a little-endian section header, version 1.0, section length
    /// unknown; §4.2: an interface of link type 1, snaplen 0, no options (microseconds).
    fn section_and_interface() -> Vec<u8> {
        let mut file = vec![
            0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
        ];
        file.extend_from_slice(&[1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0]);
        file
    }

    /// Before: the candidate at 56 ran past the end, and the read ended there without a
    /// word: no record, no error.
    #[test]
    fn a_false_candidate_running_past_the_end_does_not_end_the_scan() {
        use crate::capture::{CaptureReader, SliceInput};
        let mut file = section_and_interface();
        // Damage at 48, then what looks like an EPB of 4096 bytes at 56.
        file.extend_from_slice(&[6, 0, 0, 0, 13, 0, 0, 0]);
        file.extend_from_slice(&[6, 0, 0, 0, 0, 0x10, 0, 0]);
        file.extend_from_slice(&DEADBEEF_EPB);
        let mut reader = CaptureReader::new(SliceInput::new(&file)).unwrap();
        assert!(reader.advance().unwrap());
        let record = reader.current().unwrap();
        assert_eq!(
            (record.offset, record.data),
            (64, &[0xde, 0xad, 0xbe, 0xef][..])
        );
        assert!(!reader.advance().unwrap());
    }

    /// Before: the scan reached the end and the read ended as if the file had, exit 0, and
    /// `info` said the capture was read past the damage.
    #[test]
    fn a_scan_that_reaches_the_end_is_an_error_at_the_damage() {
        use crate::capture::{CaptureReader, SliceInput};
        let mut file = section_and_interface();
        file.extend_from_slice(&[6, 0, 0, 0, 13, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let mut reader = CaptureReader::new(SliceInput::new(&file)).unwrap();
        match reader.advance() {
            Err(CaptureError::Damaged { offset, message }) => {
                assert_eq!(offset, 48);
                assert!(message.contains("the 18 bytes"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    fn iface(resolution: Resolution) -> Interface {
        Interface {
            linktype: 1,
            snaplen: 0,
            resolution,
            offset_s: 0,
        }
    }

    #[test]
    fn timestamp_resolutions() {
        assert_eq!(
            iface(Resolution::Decimal(6)).ts_ns(1_500_000),
            1_500_000_000
        );
        assert_eq!(iface(Resolution::Decimal(9)).ts_ns(7), 7);
        assert_eq!(iface(Resolution::Decimal(12)).ts_ns(7_000), 7);
        // 2^-3 s units: 12 units are 1.5 s.
        assert_eq!(iface(Resolution::Binary(3)).ts_ns(12), 1_500_000_000);
        assert_eq!(iface(Resolution::Decimal(200)).ts_ns(u64::MAX), 0);
    }

    #[test]
    fn a_bad_block_length_is_skipped_by_resynchronising() {
        use crate::capture::{CaptureReader, SliceInput, Warning};
        let mut file = section_and_interface();
        // §3.1: an EPB header claiming 13 bytes, not a multiple of 4: damage at offset 48.
        file.extend_from_slice(&[6, 0, 0, 0, 13, 0, 0, 0]);
        file.extend_from_slice(&DEADBEEF_EPB);
        let mut reader = CaptureReader::new(SliceInput::new(&file)).unwrap();
        assert!(reader.advance().unwrap());
        let record = reader.current().unwrap();
        assert_eq!(record.data, [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!((record.offset, record.ts_ns), (56, Some(1_000_000_000)));
        assert_eq!(
            reader.take_warnings().collect::<Vec<_>>(),
            [
                Warning {
                    offset: 48,
                    message: "damaged pcapng block: block length 13 is impossible; \
                              scanning for the next valid block"
                        .into()
                },
                Warning {
                    offset: 56,
                    message: "resynchronised after skipping 8 damaged bytes".into()
                },
            ]
        );
        assert!(!reader.advance().unwrap());
        assert!(!reader.was_cut_short());
    }
}
