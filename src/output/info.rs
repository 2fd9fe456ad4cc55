//! `rdmadump info`: a capture's summary as capinfos-style text, or as one JSON document.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::capture::info::Summary;
use crate::capture::{TsResolution, linktype};

/// One input described: its name as given, its summary, and the frames of each kind when
/// they were counted (`--kinds`), in the order the JSON `kind` lists kinds.
pub struct FileInfo<'a> {
    pub name: &'a str,
    pub summary: &'a Summary,
    pub kinds: Option<&'a [(&'static str, u64)]>,
}

/// A resolution as capinfos words it: `microseconds`, `nanoseconds`, else the unit.
fn resolution_name(resolution: TsResolution) -> String {
    match resolution {
        TsResolution::Decimal(0) => "seconds".into(),
        TsResolution::Decimal(3) => "milliseconds".into(),
        TsResolution::Decimal(6) => "microseconds".into(),
        TsResolution::Decimal(9) => "nanoseconds".into(),
        TsResolution::Decimal(n) => format!("10^-{n} s"),
        TsResolution::Binary(n) => format!("2^-{n} s"),
    }
}

/// The one resolution every interface shares, or `per-interface`.
fn file_resolution(summary: &Summary) -> Option<String> {
    let mut all = summary.interfaces.iter().map(|i| i.info.resolution);
    let first = all.next()?;
    Some(if all.all(|r| r == first) {
        resolution_name(first)
    } else {
        "per-interface".into()
    })
}

fn byte_order(summary: &Summary) -> &'static str {
    if summary.container.big_endian {
        "big-endian"
    } else {
        "little-endian"
    }
}

fn seconds(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// `2023-11-14 22:15:00.000000000 UTC`: the proleptic Gregorian date of an epoch time
/// (H. Hinnant's `civil_from_days`, public domain).
pub fn utc_date(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let days = (secs / 86_400) as i64;
    let day_secs = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:09} UTC",
        day_secs / 3600,
        day_secs / 60 % 60,
        day_secs % 60,
        ns % 1_000_000_000
    )
}

/// The time between the earliest and the latest packet, when there are two times.
fn duration_ns(summary: &Summary) -> Option<u64> {
    Some(summary.latest_ns? - summary.earliest_ns?)
}

/// Packets per second and bits per second over the duration, when it is not zero.
fn rates(summary: &Summary) -> Option<(f64, f64)> {
    let secs = duration_ns(summary).filter(|&d| d > 0)? as f64 / 1e9;
    Some((
        summary.packets as f64 / secs,
        summary.wire_bytes as f64 * 8.0 / secs,
    ))
}

fn how_it_ends(summary: &Summary) -> String {
    if let Some(error) = &summary.error {
        return format!("no: reading stopped: {error}");
    }
    if let Some(last) = summary.warnings.last() {
        let what = if summary.cut_short {
            "cut short in the middle of a record"
        } else {
            "damaged, read past the damage"
        };
        let mut told = format!("no: {what} ({last})");
        let damage = summary.damage;
        if damage.skipped_blocks > 0 || damage.skipped_bytes > 0 {
            let _ = write!(
                told,
                "; skipped {} damaged blocks and {} bytes in all",
                damage.skipped_blocks, damage.skipped_bytes
            );
        }
        if summary.warnings_not_listed > 0 {
            let _ = write!(
                told,
                "; {} more warnings not listed",
                summary.warnings_not_listed
            );
        }
        return told;
    }
    if summary.cut_short {
        return "no: cut short in the middle of a record".into();
    }
    "yes".into()
}

/// capinfos-style text: one block per file, a blank line between blocks.
pub fn render_text(files: &[FileInfo<'_>]) -> String {
    let mut out = String::new();
    for (n, file) in files.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let s = file.summary;
        let mut line = |label: &str, value: &str| {
            let _ = writeln!(out, "{:<21}{value}", format!("{label}:"));
        };
        line("File", file.name);
        let mut container = format!("{}, {}", s.container.kind.name(), byte_order(s));
        if let Some(resolution) = file_resolution(s) {
            let _ = write!(container, ", {resolution}");
        }
        if let Some(compression) = s.compression {
            let _ = write!(container, ", {compression}-compressed");
        }
        line("Container", &container);
        if let Some(size) = s.file_size {
            line("File size", &format!("{size} bytes"));
        }
        line("Interfaces", &s.interfaces.len().to_string());
        for i in &s.interfaces {
            let name = linktype::name(i.info.linktype).unwrap_or("unknown");
            let snaplen = match i.info.snaplen {
                0 => "no snaplen".to_string(),
                n => format!("snaplen {n}"),
            };
            let section = if s.container.section > 1 {
                format!(" (section {})", i.section)
            } else {
                String::new()
            };
            line(
                &format!("  #{}{section}", i.id),
                &format!(
                    "link type {} ({name}), {snaplen}, {}, {} packets",
                    i.info.linktype,
                    resolution_name(i.info.resolution),
                    i.packets
                ),
            );
        }
        line("Packets", &s.packets.to_string());
        line("Captured bytes", &s.captured_bytes.to_string());
        line("Bytes on the wire", &s.wire_bytes.to_string());
        line("Cut by snaplen", &s.cut_by_snaplen.to_string());
        if s.without_timestamp > 0 {
            line("Without timestamp", &s.without_timestamp.to_string());
        }
        if let (Some(first), Some(last)) = (s.earliest_ns, s.latest_ns) {
            line("First packet", &utc_date(first));
            line("Last packet", &utc_date(last));
            line("Duration", &format!("{} s", seconds(last - first)));
            if let Some((pps, bps)) = rates(s) {
                line("Packet rate", &format!("{pps:.2} packets/s"));
                line(
                    "Data rate",
                    &format!("{bps:.0} bit/s ({:.0} bytes/s)", bps / 8.0),
                );
            }
            let order = if s.in_time_order { "yes" } else { "no" };
            line("In time order", order);
        }
        if let Some(kinds) = file.kinds {
            let seen: Vec<String> = kinds
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            line("Kinds", &seen.join(", "));
        }
        line("Ends cleanly", &how_it_ends(s));
    }
    out
}

#[derive(Serialize)]
struct Document<'a> {
    files: Vec<FileDoc<'a>>,
}

#[derive(Serialize)]
struct FileDoc<'a> {
    file: &'a str,
    container: &'static str,
    byte_order: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts_resolution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compression: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_size: Option<u64>,
    sections: u32,
    interfaces: Vec<InterfaceDoc>,
    packets: u64,
    captured_bytes: u64,
    wire_bytes: u64,
    cut_by_snaplen: u64,
    without_timestamp: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_ts: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_ts_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_ts: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_ts_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    packet_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_rate_bps: Option<f64>,
    in_time_order: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    kinds: Option<serde_json::Map<String, serde_json::Value>>,
    ends_cleanly: bool,
    cut_short: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    warnings: &'a [String],
    /// Warnings counted but not in `warnings`: the list is capped.
    warnings_not_listed: u64,
    skipped_blocks: u64,
    skipped_bytes: u64,
}

#[derive(Serialize)]
struct InterfaceDoc {
    section: u32,
    id: u32,
    linktype: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    linktype_name: Option<&'static str>,
    snaplen: u32,
    ts_resolution: String,
    packets: u64,
}

fn raw_seconds(ns: u64) -> Option<Box<RawValue>> {
    RawValue::from_string(seconds(ns)).ok()
}

/// One JSON document for every file (keys: docs/json-schema.md, `rdmadump info --json`).
pub fn write_json(out: &mut impl std::io::Write, files: &[FileInfo<'_>]) -> serde_json::Result<()> {
    let files = files
        .iter()
        .map(|file| {
            let s = file.summary;
            let rates = rates(s);
            FileDoc {
                file: file.name,
                container: s.container.kind.name(),
                byte_order: if s.container.big_endian {
                    "big"
                } else {
                    "little"
                },
                ts_resolution: file_resolution(s),
                compression: s.compression,
                file_size: s.file_size,
                sections: s.container.section,
                interfaces: s
                    .interfaces
                    .iter()
                    .map(|i| InterfaceDoc {
                        section: i.section,
                        id: i.id,
                        linktype: i.info.linktype,
                        linktype_name: linktype::name(i.info.linktype),
                        snaplen: i.info.snaplen,
                        ts_resolution: resolution_name(i.info.resolution),
                        packets: i.packets,
                    })
                    .collect(),
                packets: s.packets,
                captured_bytes: s.captured_bytes,
                wire_bytes: s.wire_bytes,
                cut_by_snaplen: s.cut_by_snaplen,
                without_timestamp: s.without_timestamp,
                first_ts: s.earliest_ns.and_then(raw_seconds),
                first_ts_ns: s.earliest_ns,
                first_time: s.earliest_ns.map(utc_date),
                last_ts: s.latest_ns.and_then(raw_seconds),
                last_ts_ns: s.latest_ns,
                last_time: s.latest_ns.map(utc_date),
                duration_ns: duration_ns(s),
                packet_rate: rates.map(|r| r.0),
                data_rate_bps: rates.map(|r| r.1),
                in_time_order: s.in_time_order,
                kinds: file.kinds.map(|kinds| {
                    kinds
                        .iter()
                        .filter(|(_, n)| *n > 0)
                        .map(|(kind, n)| (kind.to_string(), serde_json::Value::from(*n)))
                        .collect()
                }),
                ends_cleanly: s.ends_cleanly(),
                cut_short: s.cut_short,
                error: s.error.as_deref(),
                warnings: &s.warnings,
                warnings_not_listed: s.warnings_not_listed,
                skipped_blocks: s.damage.skipped_blocks,
                skipped_bytes: s.damage.skipped_bytes,
            }
        })
        .collect();
    serde_json::to_writer(&mut *out, &Document { files })?;
    let _ = out.write_all(b"\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        // `date -u -d @1700000100` = Tue Nov 14 22:15:00 UTC 2023.
        assert_eq!(
            utc_date(1_700_000_100_000_000_007),
            "2023-11-14 22:15:00.000000007 UTC"
        );
        // 2024-02-29 00:00:00 UTC = 1709164800; 2000-03-01 = 951868800.
        assert_eq!(
            utc_date(1_709_164_800_000_000_000),
            "2024-02-29 00:00:00.000000000 UTC"
        );
        assert_eq!(
            utc_date(951_868_800_000_000_000),
            "2000-03-01 00:00:00.000000000 UTC"
        );
        assert_eq!(utc_date(0), "1970-01-01 00:00:00.000000000 UTC");
    }
}
