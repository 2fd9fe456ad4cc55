//! The subcommands, and the input loop they share.

pub mod analyze;
pub mod fields;
pub mod pipeline;
pub mod progress;
pub mod read;

pub use pipeline::{for_each_batch, for_each_packet};

use std::io::{self, IsTerminal};
use std::path::PathBuf;

use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::cli::{Cli, Command, InputArgs};
use crate::dissect::DecodeOptions;
use crate::filter::PacketFilter;

/// Exit status for usage and I/O errors, and for inputs that could not be read.
pub const EXIT_ERROR: u8 = 2;

/// Runs one command line; `main` only maps the result to an exit status.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Read(args) => Ok(if read::run(&args)? {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_ERROR)
        }),
        Command::Analyze(args) => analyze::run(&args),
        Command::Completions { shell } => {
            crate::cli::render_completions(shell, &mut io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Fields(args) => {
            fields::run(&args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            crate::cli::render_man(&mut io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// True when the error chain bottoms out in a closed pipe (`rdmadump read | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

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

/// The packet selection of `-Y`, `--qp` and `--kind`, compiled before any file is read.
pub fn packet_filter(args: &InputArgs) -> anyhow::Result<PacketFilter> {
    // QPNs are 24 bits; a larger number can match nothing, and says so by matching nothing.
    let qp = args.qp.map(|q| u32::try_from(q).unwrap_or(u32::MAX));
    Ok(PacketFilter::new(
        args.filter.as_deref(),
        qp,
        args.kind.map(|k| k.0),
    )?)
}

pub fn decode_options(args: &InputArgs) -> DecodeOptions {
    DecodeOptions {
        extra_roce_ports: args.roce_ports.clone(),
        ..DecodeOptions::default()
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
