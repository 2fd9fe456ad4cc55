//! The subcommands, and the input loop they share.

pub mod analyze;
pub mod merge;
pub mod read;

pub use merge::{for_each_batch, for_each_packet};

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::cli::InputArgs;
use crate::dissect::DecodeOptions;

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

/// Records between progress updates: rare enough to cost nothing per packet.
pub(crate) const PROGRESS_EVERY: u64 = 1 << 16;
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

/// Standard output without the line buffering of `io::stdout()`, which scans every byte
/// written for newlines: rdmadump writes large blocks of whole lines itself.
#[cfg(unix)]
pub fn stdout() -> anyhow::Result<impl io::Write> {
    use std::os::fd::AsFd;
    let fd = io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .context("duplicating stdout")?;
    Ok(std::fs::File::from(fd))
}

#[cfg(not(unix))]
pub fn stdout() -> anyhow::Result<impl io::Write> {
    Ok(io::stdout().lock())
}

/// Turns an I/O error into the chain `main` expects; a broken pipe is recognised there.
pub fn write_out(out: &mut impl io::Write, bytes: &[u8]) -> anyhow::Result<()> {
    out.write_all(bytes).context("writing output")
}
