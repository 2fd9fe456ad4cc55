//! pcapng: sections of either byte order, several interfaces with their own link types and
//! timestamp resolutions, Enhanced, Simple and (obsolete) Packet Blocks. A block with a
//! broken length is skipped by scanning for the next block whose leading and trailing
//! lengths agree.

use super::{CaptureError, Input, Located, MAX_RECORD, WarningSink};

const SHB: u32 = 0x0a0d_0d0a;
const IDB: u32 = 0x0000_0001;
const PB: u32 = 0x0000_0002;
const SPB: u32 = 0x0000_0003;
const NRB: u32 = 0x0000_0004;
const ISB: u32 = 0x0000_0005;
const EPB: u32 = 0x0000_0006;
const DSB: u32 = 0x0000_000a;

const OPT_END: u16 = 0;
const OPT_IF_TSRESOL: u16 = 9;
const OPT_IF_TSOFFSET: u16 = 14;

/// A damaged file stops when no valid block turns up within this many bytes.
const MAX_RESYNC_SCAN: u64 = 64 << 20;
/// More interfaces than this in one section is a damaged or hostile file.
const MAX_INTERFACES: usize = 1 << 16;

pub(crate) fn is_pcapng(magic: [u8; 4]) -> bool {
    u32::from_be_bytes(magic) == SHB
}

#[derive(Clone, Copy)]
enum Resolution {
    /// Units of 10^-n seconds.
    Decimal(u8),
    /// Units of 2^-n seconds.
    Binary(u8),
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

#[derive(Default)]
pub(crate) struct PcapNgState {
    big_endian: bool,
    interfaces: Vec<Interface>,
    /// Where scanning for a valid block started, while recovering from damage.
    resync_from: Option<u64>,
}

enum Verdict {
    Packet(Located),
    Skip(usize),
}

impl PcapNgState {
    fn u16(&self, b: &[u8], at: usize) -> u16 {
        let b = [b[at], b[at + 1]];
        if self.big_endian {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    fn u32(&self, b: &[u8], at: usize) -> u32 {
        let b = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }

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
            let head = input.peek(12)?;
            if head.is_empty() {
                return Ok(None);
            }
            if head.len() < 12 {
                if self.resync_from.is_none() {
                    sink.cut_short(offset, "block header", 12, head.len());
                }
                return Ok(None);
            }
            if u32::from_be_bytes([head[0], head[1], head[2], head[3]]) == SHB {
                // The section's byte order is only known from its own byte-order magic.
                match [head[8], head[9], head[10], head[11]] {
                    [0x1a, 0x2b, 0x3c, 0x4d] => self.big_endian = true,
                    [0x4d, 0x3c, 0x2b, 0x1a] => self.big_endian = false,
                    _ => {
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
            let block_type = self.u32(head, 0);
            let total_len = self.u32(head, 4) as usize;
            let known = matches!(block_type, SHB | IDB | PB | SPB | NRB | ISB | EPB | DSB);
            if self.resync_from.is_some() && !known {
                input.consume(4);
                continue;
            }
            if total_len < 12 || !total_len.is_multiple_of(4) || total_len > MAX_RECORD + 64 {
                self.damaged(
                    input,
                    sink,
                    offset,
                    format!("block length {total_len} is impossible"),
                );
                continue;
            }
            let block = input.peek(total_len)?;
            if block.len() < total_len {
                if self.resync_from.is_none() {
                    sink.cut_short(offset, "block", total_len, block.len());
                }
                return Ok(None);
            }
            let trailer = self.u32(block, total_len - 4) as usize;
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
                sink.warn(
                    offset,
                    format!(
                        "resynchronised after skipping {} damaged bytes",
                        offset - from
                    ),
                );
            }
            let verdict = self.read_block(block_type, block, offset, sink);
            match verdict {
                Ok(Verdict::Packet(located)) => return Ok(Some(located)),
                Ok(Verdict::Skip(len)) => input.consume(len),
                Err(message) => {
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

    /// Interprets one block whose lengths are consistent. An `Err` is a problem confined
    /// to this block: it is reported and the block skipped.
    fn read_block(
        &mut self,
        block_type: u32,
        block: &[u8],
        offset: u64,
        sink: &mut WarningSink<'_>,
    ) -> Result<Verdict, String> {
        let total_len = block.len();
        let body_end = total_len - 4;
        match block_type {
            SHB => {
                self.interfaces.clear();
                Ok(Verdict::Skip(total_len))
            }
            IDB => {
                if body_end < 16 {
                    return Err("interface description block too short".into());
                }
                if self.interfaces.len() >= MAX_INTERFACES {
                    return Err(format!(
                        "more than {MAX_INTERFACES} interfaces in one section"
                    ));
                }
                let mut interface = Interface {
                    linktype: u32::from(self.u16(block, 8)),
                    snaplen: self.u32(block, 12),
                    resolution: Resolution::Decimal(6),
                    offset_s: 0,
                };
                self.read_idb_options(&block[16..body_end], &mut interface, offset, sink);
                self.interfaces.push(interface);
                Ok(Verdict::Skip(total_len))
            }
            EPB | PB => {
                if body_end < 28 {
                    return Err("packet block too short".into());
                }
                let iface = if block_type == EPB {
                    self.u32(block, 8)
                } else {
                    u32::from(self.u16(block, 8))
                };
                let units = (u64::from(self.u32(block, 12)) << 32) | u64::from(self.u32(block, 16));
                let caplen = self.u32(block, 20) as usize;
                let orig_len = self.u32(block, 24);
                if caplen > body_end - 28 {
                    return Err(format!(
                        "packet block claims {caplen} captured bytes but holds {}",
                        body_end - 28
                    ));
                }
                let interface = self.interface(iface)?;
                Ok(Verdict::Packet(Located {
                    total_len,
                    data_start: 28,
                    caplen,
                    orig_len,
                    ts_ns: Some(interface.ts_ns(units)),
                    linktype: interface.linktype,
                    iface,
                }))
            }
            SPB => {
                if body_end < 12 {
                    return Err("simple packet block too short".into());
                }
                let interface = self.interface(0)?;
                let orig_len = self.u32(block, 8);
                let mut caplen = (orig_len as usize).min(body_end - 12);
                if interface.snaplen != 0 {
                    caplen = caplen.min(interface.snaplen as usize);
                }
                Ok(Verdict::Packet(Located {
                    total_len,
                    data_start: 12,
                    caplen,
                    orig_len,
                    ts_ns: None,
                    linktype: interface.linktype,
                    iface: 0,
                }))
            }
            _ => Ok(Verdict::Skip(total_len)),
        }
    }

    fn interface(&self, id: u32) -> Result<Interface, String> {
        self.interfaces.get(id as usize).copied().ok_or_else(|| {
            format!("packet names interface {id}, which no interface block declared")
        })
    }

    fn read_idb_options(
        &self,
        mut options: &[u8],
        interface: &mut Interface,
        offset: u64,
        sink: &mut WarningSink<'_>,
    ) {
        while options.len() >= 4 {
            let code = self.u16(options, 0);
            let len = usize::from(self.u16(options, 2));
            if code == OPT_END {
                break;
            }
            let padded = len.div_ceil(4) * 4;
            let Some(value) = options.get(4..4 + len) else {
                sink.warn(
                    offset,
                    format!("interface option {code} runs past its block"),
                );
                break;
            };
            match (code, value) {
                (OPT_IF_TSRESOL, [r]) => {
                    interface.resolution = if r & 0x80 == 0 {
                        Resolution::Decimal(*r)
                    } else {
                        Resolution::Binary(r & 0x7f)
                    }
                }
                (OPT_IF_TSOFFSET, v) if v.len() == 8 => {
                    let raw = [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]];
                    interface.offset_s = if self.big_endian {
                        i64::from_be_bytes(raw)
                    } else {
                        i64::from_le_bytes(raw)
                    };
                }
                _ => {}
            }
            options = options.get(4 + padded..).unwrap_or_default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
