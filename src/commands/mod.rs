//! The subcommands, and the input loop they share.

pub mod analyze;
pub mod read;

use std::io::{self, IsTerminal};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::capture::{AnyReader, Source};
use crate::cli::InputArgs;
use crate::dissect::{DecodeOptions, Packet, dissect};
use crate::filter::PacketFilter;

/// The files to read: those named, or stdin when none are named and stdin is not a terminal.
pub fn input_paths(args: &InputArgs) -> anyhow::Result<Vec<PathBuf>> {
    if !args.files.is_empty() {
        return Ok(args.files.clone());
    }
    if io::stdin().is_terminal() {
        bail!("no capture file given (name one, or pipe a capture into standard input)");
    }
    Ok(vec![PathBuf::from("-")])
}

pub fn decode_options(args: &InputArgs) -> DecodeOptions {
    DecodeOptions {
        extra_roce_ports: args.roce_ports.clone(),
        ..DecodeOptions::default()
    }
}

/// What reading the inputs found, beyond the packets themselves.
#[derive(Debug, Default, Clone)]
pub struct InputReport {
    pub files: Vec<String>,
    /// Records read, before filtering.
    pub records: u64,
    /// Some input ended in the middle of a record.
    pub truncated: bool,
    /// Some input could not be opened or was damaged beyond recovery.
    pub failed: bool,
}

pub fn display_path(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

fn warn_all(reader: &mut AnyReader<'_>, name: &str) {
    for warning in reader.take_warnings() {
        eprintln!("rdmadump: warning: {name}: {warning}");
    }
}

/// Streams every matching packet of every input to `visit`, merged by timestamp when there
/// are several inputs (ties keep command-line order). Each packet knows its file index and
/// its frame number within that file. `visit` may stop the whole run.
pub fn for_each_packet(
    paths: &[PathBuf],
    args: &InputArgs,
    filter: &PacketFilter,
    mut visit: impl FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<InputReport> {
    let opts = decode_options(args);
    let mut report = InputReport {
        files: paths.iter().map(|p| display_path(p)).collect(),
        ..InputReport::default()
    };
    let mut sources = Vec::with_capacity(paths.len());
    for path in paths {
        match Source::open(path, args.no_mmap) {
            Ok(source) => sources.push(Some(source)),
            Err(err) => {
                eprintln!("rdmadump: {}: {err}", display_path(path));
                report.failed = true;
                sources.push(None);
            }
        }
    }
    let mut readers: Vec<Option<(AnyReader<'_>, u64)>> = Vec::with_capacity(paths.len());
    for (source, path) in sources.iter_mut().zip(paths) {
        let opened = source.as_mut().map(AnyReader::open);
        readers.push(match opened {
            Some(Ok(mut reader)) => match reader.advance() {
                Ok(_) => Some((reader, 0)),
                Err(err) => {
                    eprintln!("rdmadump: {}: {err}", display_path(path));
                    report.failed = true;
                    None
                }
            },
            Some(Err(err)) => {
                eprintln!("rdmadump: {}: {err}", display_path(path));
                report.failed = true;
                None
            }
            None => None,
        });
    }
    let total: u64 = readers
        .iter()
        .flatten()
        .filter_map(|(reader, _)| reader.len_hint())
        .sum();
    let progress = Progress::new(total);
    loop {
        if report.records.is_multiple_of(PROGRESS_EVERY) {
            let done: u64 = readers.iter().flatten().map(|(r, _)| r.position()).sum();
            progress.update(done, report.records);
        }
        // The input whose current record is earliest; a record without a timestamp (pcapng
        // SPB) goes first so it stays next to its neighbours.
        let mut next: Option<(usize, u64)> = None;
        for (index, slot) in readers.iter().enumerate() {
            if let Some((reader, _)) = slot
                && let Some(ts) = reader.current_ts()
            {
                let ts = ts.unwrap_or(0);
                if next.is_none_or(|(_, best)| ts < best) {
                    next = Some((index, ts));
                }
            }
        }
        let Some((index, _)) = next else { break };
        let name = &report.files[index];
        let Some((reader, frames)) = readers[index].as_mut() else {
            break;
        };
        *frames += 1;
        report.records += 1;
        let flow = match reader.current() {
            Some(record) => {
                let pkt = dissect(&record, *frames, &opts);
                if filter.matches(&pkt) {
                    visit(index, &pkt)?
                } else {
                    ControlFlow::Continue(())
                }
            }
            None => ControlFlow::Continue(()),
        };
        if flow.is_break() {
            break;
        }
        let advanced = reader.advance();
        if reader.has_warnings() {
            warn_all(reader, name);
        }
        match advanced {
            Ok(true) => {}
            Ok(false) => {
                report.truncated |= reader.was_cut_short();
                readers[index] = None;
            }
            Err(err) => {
                eprintln!("rdmadump: {name}: {err}");
                report.failed = true;
                readers[index] = None;
            }
        }
    }
    progress.finish();
    for (slot, name) in readers.iter_mut().zip(&report.files) {
        if let Some((reader, _)) = slot {
            warn_all(reader, name);
        }
    }
    Ok(report)
}

/// Records between progress updates: rare enough to cost nothing per packet.
const PROGRESS_EVERY: u64 = 1 << 16;
/// Inputs smaller than this finish too fast for a progress bar to help.
const PROGRESS_MIN_BYTES: u64 = 64 << 20;

/// A progress bar on stderr for big inputs, shown only when stderr is a terminal.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(total: u64) -> Self {
        if total < PROGRESS_MIN_BYTES || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        let style = indicatif::ProgressStyle::with_template(
            "{bar:30} {bytes}/{total_bytes} {bytes_per_sec} {msg} ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Progress(Some(bar))
    }

    fn update(&self, bytes: u64, packets: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(bytes);
            let secs = bar.elapsed().as_secs_f64();
            if secs > 0.0 {
                bar.set_message(format!("{:.2} Mpkt/s", packets as f64 / secs / 1e6));
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Turns an I/O error into the chain `main` expects; a broken pipe is recognised there.
pub fn write_out(out: &mut impl io::Write, bytes: &[u8]) -> anyhow::Result<()> {
    out.write_all(bytes).context("writing output")
}
