//! A capture described from its record headers alone, as capinfos describes one: the
//! container, the interfaces, counts, times, and whether the file ends cleanly. Nothing is
//! dissected, so the walk runs at about the speed the file can be read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::compressed::{self, Compression};
use super::{AnyReader, CaptureError, Container, Damage, InterfaceInfo, Record, Source};

/// Container problems kept per file; a damaged file cannot flood the report with them.
const MAX_WARNINGS: usize = 16;

/// One interface and the records seen on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceSummary {
    /// The pcapng section it was declared in (1 for the first, and for pcap).
    pub section: u32,
    /// Its id within the section, as records name it.
    pub id: u32,
    pub info: InterfaceInfo,
    pub packets: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The container as it was at the end of the walk (pcapng: `section` counts sections).
    pub container: Container,
    pub compression: Option<&'static str>,
    /// Size of the file itself (compressed, if it is); unknown for standard input.
    pub file_size: Option<u64>,
    /// In the order their first record appeared.
    pub interfaces: Vec<InterfaceSummary>,
    pub packets: u64,
    /// Bytes the records hold (the captured lengths).
    pub captured_bytes: u64,
    /// Bytes on the wire (the records' original lengths).
    pub wire_bytes: u64,
    /// Records whose captured length is less than the original length.
    pub cut_by_snaplen: u64,
    /// pcapng Simple Packet Blocks, which carry no time.
    pub without_timestamp: u64,
    pub earliest_ns: Option<u64>,
    pub latest_ns: Option<u64>,
    /// Every record's time at or after the one before.
    pub in_time_order: bool,
    /// The input ended in the middle of a record or block.
    pub cut_short: bool,
    /// What stopped reading before the end, for a container damaged beyond recovery.
    pub error: Option<String>,
    /// Problems the readers reported and read past (at most `MAX_WARNINGS`).
    pub warnings: Vec<String>,
    /// Warnings past `MAX_WARNINGS`, and past the reader's own cap: counted, not listed.
    pub warnings_not_listed: u64,
    /// What the reader skipped over in all, listed or not.
    pub damage: Damage,
}

impl Summary {
    /// The file was read to its end, with no record cut short and no damage.
    pub fn ends_cleanly(&self) -> bool {
        !self.cut_short
            && self.error.is_none()
            && self.warnings.is_empty()
            && self.warnings_not_listed == 0
            && self.damage.is_none()
    }
}

/// The compression a regular file starts with; `None` for standard input and pipes, whose
/// first bytes cannot be looked at twice.
fn sniff_compression(path: &Path) -> Option<Compression> {
    let mut file = File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut start = [0u8; compressed::SNIFF_LEN];
    let mut got = 0;
    while got < start.len() {
        match file.read(&mut start[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    compressed::detect(&start[..got])
}

/// What wants to see every record besides the summary, with its 1-based frame number.
pub type EachRecord<'f> = &'f mut dyn FnMut(&Record<'_>, u64);

/// Walks every record header of the capture at `path` (`-` is standard input), calling
/// `each`, if given, with every record and its 1-based frame number. An error means the
/// file could not be opened or is not a capture; damage after the start is reported in the
/// summary.
pub fn summarize(
    path: &Path,
    no_mmap: bool,
    mut each: Option<EachRecord<'_>>,
) -> Result<Summary, CaptureError> {
    let stdin = path.as_os_str() == "-";
    let file_size = if stdin {
        None
    } else {
        std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len())
    };
    let compression = if stdin { None } else { sniff_compression(path) };
    let mut source = Source::open(path, no_mmap)?;
    let mut reader = AnyReader::open(&mut source)?;
    let mut summary = Summary {
        container: reader.container(),
        compression: compression.map(|c| match c {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }),
        file_size,
        interfaces: Vec::new(),
        packets: 0,
        captured_bytes: 0,
        wire_bytes: 0,
        cut_by_snaplen: 0,
        without_timestamp: 0,
        earliest_ns: None,
        latest_ns: None,
        in_time_order: true,
        cut_short: false,
        error: None,
        warnings: Vec::new(),
        warnings_not_listed: 0,
        damage: Damage::default(),
    };
    let mut previous_ts = 0u64;
    // The interface of the record before, as (section, id) and its index in `interfaces`:
    // records come in long runs on one interface, so the lookup is rarely needed.
    let mut current: Option<((u32, u32), usize)> = None;
    loop {
        let advanced = reader.advance();
        // Asked first: taking none still builds an empty list, which cost a third of the
        // walk's time on small records.
        if reader.has_warnings() {
            for warning in reader.take_warnings() {
                if summary.warnings.len() < MAX_WARNINGS {
                    summary.warnings.push(warning.to_string());
                } else {
                    summary.warnings_not_listed += 1;
                }
            }
        }
        match advanced {
            Ok(true) => {}
            Ok(false) => break,
            Err(CaptureError::Io(err)) if compressed::is_cut_short(&err) => {
                summary.cut_short = true;
                if summary.warnings.len() < MAX_WARNINGS {
                    summary
                        .warnings
                        .push(format!("offset {}: {err}", reader.position()));
                } else {
                    summary.warnings_not_listed += 1;
                }
                break;
            }
            Err(err) => {
                summary.error = Some(err.to_string());
                break;
            }
        }
        let section = reader.container().section;
        let Some(record) = reader.current() else {
            continue;
        };
        let (iface, ts, caplen, orig_len) = (
            record.iface,
            record.ts_ns,
            record.data.len() as u64,
            u64::from(record.orig_len),
        );
        let key = (section, iface);
        let slot = match current {
            Some((k, slot)) if k == key => slot,
            _ => {
                let found = summary
                    .interfaces
                    .iter()
                    .position(|i| (i.section, i.id) == key);
                let slot = match found {
                    Some(slot) => slot,
                    None => {
                        let info = reader.interface(iface).unwrap_or(InterfaceInfo {
                            linktype: record_linktype(&mut reader),
                            snaplen: 0,
                            resolution: super::TsResolution::MICRO,
                        });
                        summary.interfaces.push(InterfaceSummary {
                            section,
                            id: iface,
                            info,
                            packets: 0,
                        });
                        summary.interfaces.len() - 1
                    }
                };
                current = Some((key, slot));
                slot
            }
        };
        if let Some(interface) = summary.interfaces.get_mut(slot) {
            interface.packets += 1;
        }
        summary.packets += 1;
        summary.captured_bytes += caplen;
        summary.wire_bytes += orig_len;
        if caplen < orig_len {
            summary.cut_by_snaplen += 1;
        }
        match ts {
            None => summary.without_timestamp += 1,
            Some(ts) => {
                if summary.earliest_ns.is_some() && ts < previous_ts {
                    summary.in_time_order = false;
                }
                previous_ts = ts;
                summary.earliest_ns = Some(summary.earliest_ns.map_or(ts, |e| e.min(ts)));
                summary.latest_ns = Some(summary.latest_ns.map_or(ts, |l| l.max(ts)));
            }
        }
        if let Some(each) = each.as_mut()
            && let Some(record) = reader.current()
        {
            each(&record, summary.packets);
        }
    }
    summary.cut_short |= reader.was_cut_short();
    summary.damage = reader.damage();
    summary.warnings_not_listed += summary.damage.warnings_dropped;
    summary.container = Container {
        section: summary.container.section.max(reader.container().section),
        ..reader.container()
    };
    Ok(summary)
}

fn record_linktype(reader: &mut AnyReader<'_>) -> u32 {
    reader.current().map_or(0, |r| r.linktype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pcap_written_by_hand() {
        let dir = std::env::temp_dir().join(format!("rdmadump-info-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two.pcap");
        // pcap(5), little-endian µs: snaplen 4, Ethernet; a record at 10 s cut from 6
        // bytes to 4, one at 9.5 s of 2 bytes (out of order), and 3 bytes of a third
        // record header: cut short.
        let mut bytes = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        bytes.extend_from_slice(&[4, 0, 0, 0, 1, 0, 0, 0]);
        bytes.extend_from_slice(&[10, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 6, 0, 0, 0, 1, 2, 3, 4]);
        bytes.extend_from_slice(&[9, 0, 0, 0, 0x20, 0xa1, 7, 0, 2, 0, 0, 0, 2, 0, 0, 0, 5, 6]);
        bytes.extend_from_slice(&[0, 0, 0]);
        std::fs::write(&path, &bytes).unwrap();
        let mut frames = Vec::new();
        let mut each = |r: &Record<'_>, frame| frames.push((frame, r.data.len()));
        let s = summarize(&path, false, Some(&mut each)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(frames, [(1, 4), (2, 2)]);
        assert_eq!((s.packets, s.captured_bytes, s.wire_bytes), (2, 6, 8));
        assert_eq!(s.cut_by_snaplen, 1);
        assert_eq!(s.earliest_ns, Some(9_500_000_000));
        assert_eq!(s.latest_ns, Some(10_000_000_000));
        assert!(!s.in_time_order);
        assert!(s.cut_short && !s.ends_cleanly());
        assert_eq!(s.file_size, Some(bytes.len() as u64));
        assert_eq!(s.interfaces.len(), 1);
        assert_eq!(s.interfaces[0].info.snaplen, 4);
        assert_eq!(s.interfaces[0].packets, 2);
    }
}
