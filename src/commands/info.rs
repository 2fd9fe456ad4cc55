//! `rdmadump info`: what each capture holds, read from its record headers.

use std::io::Write;

use anyhow::Context;

use crate::capture::Record;
use crate::capture::info::{EachRecord, Summary, summarize};
use crate::capture::merge::display_path;
use crate::cli::InfoArgs;
use crate::dissect::{CrcMode, DecodeOptions, Decoder, Kind, Packet};
use crate::output::info::{FileInfo, render_text, write_json};

use super::same_file::InputFiles;
use super::{paths_or_stdin, write_out};

/// Frames per kind name, in the order of `Kind::ALL`.
type KindCounts = Vec<(&'static str, u64)>;

/// Describes every file; `Ok(false)` when one could not be read at all or stopped on
/// damage (the others are still described).
pub fn run(args: &InfoArgs) -> anyhow::Result<bool> {
    let paths = paths_or_stdin(&args.files, &args.read_files)?;
    InputFiles::of(&paths).refuse_stdout()?;
    let mut described: Vec<(String, Summary, Option<KindCounts>)> = Vec::new();
    let mut all_read = true;
    for path in &paths {
        let name = display_path(path);
        let mut counts = [0u64; Kind::ALL.len()];
        let mut decoder = args.kinds.then(|| {
            Decoder::new(DecodeOptions {
                extra_roce_ports: args.roce_ports.clone(),
                // Kinds do not depend on CRCs: they are located, never computed.
                crc: CrcMode::Deferred,
                ..DecodeOptions::default()
            })
        });
        let mut count_kind = |record: &Record<'_>, frame| {
            if let Some(decoder) = &mut decoder {
                let mut pkt = Packet::default();
                decoder.decode_into(&mut pkt, record, frame);
                if let Some(slot) = Kind::ALL.iter().position(|&k| k == pkt.kind) {
                    counts[slot] += 1;
                }
            }
        };
        let each: Option<EachRecord<'_>> = args.kinds.then_some(&mut count_kind);
        let walked = summarize(path, args.no_mmap, each);
        match walked {
            Ok(summary) => {
                all_read &= summary.error.is_none();
                let kinds = args.kinds.then(|| {
                    Kind::ALL
                        .iter()
                        .zip(counts)
                        .map(|(kind, n)| (kind.name(), n))
                        .collect()
                });
                described.push((name, summary, kinds));
            }
            Err(err) => {
                eprintln!("rdmadump: {name}: {err}");
                all_read = false;
            }
        }
    }
    let files: Vec<FileInfo<'_>> = described
        .iter()
        .map(|(name, summary, kinds)| FileInfo {
            name,
            summary,
            kinds: kinds.as_deref(),
        })
        .collect();
    if files.is_empty() {
        // Every input failed, and said so on stderr: an empty list would pass for a result.
        return Ok(false);
    }
    let mut out = super::stdout()?;
    if args.json {
        write_json(&mut out, &files).context("writing output")?;
    } else {
        write_out(&mut out, render_text(&files).as_bytes())?;
    }
    out.flush()?;
    Ok(all_read)
}
