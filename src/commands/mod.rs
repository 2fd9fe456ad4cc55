//! The subcommands, and the input loop they share.

pub mod analyze;
#[cfg(feature = "export")]
pub mod api;
#[cfg(feature = "export")]
pub mod export;
pub mod fields;
pub mod info;
mod points;
pub mod progress;
pub mod read;
mod same_file;
pub mod write;

use std::io::{self, IsTerminal};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::analyze::AnalyzeConfig;
use crate::capture::InMemory;
use crate::capture::merge::InputReport;
use crate::cli::{AnalysisArgs, Cli, Command, InputArgs};
use crate::dissect::{DecodeOptions, Packet};
use crate::filter::PacketFilter;
use crate::filter::time::TimeWindow;
use crate::pipeline::{self, Batch, PipelineOptions};
use progress::StderrObserver;

/// Exit status for usage and I/O errors, and for inputs that could not be read.
pub const EXIT_ERROR: u8 = 2;

/// Runs one command line; `main` only maps the result to an exit status.
pub fn run(mut cli: Cli) -> anyhow::Result<ExitCode> {
    check_arguments(&mut cli.command)?;
    match cli.command {
        Command::Read(args) => Ok(if read::run(&args)? {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_ERROR)
        }),
        Command::Analyze(args) => analyze::run(&args),
        Command::Info(args) => Ok(if info::run(&args)? {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_ERROR)
        }),
        Command::Completions { shell } => {
            crate::cli::render_completions(shell, &mut io::stdout())
                .context("writing the completion script")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Fields(args) => {
            fields::run(&args)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "export")]
        Command::Export(args) => export::run(&args),
        Command::Man => {
            crate::cli::render_man(&mut io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Threads that take every path of the pipeline (a reader, a consumer, a helper): allowed
/// even on fewer cores, so that those paths can be tried on any machine.
const EVERY_PATH_THREADS: usize = 3;

/// What the command line asks that no run could do, refused before any input is read;
/// and `--threads` brought down to the cores there are, with a note on stderr.
fn check_arguments(command: &mut Command) -> anyhow::Result<()> {
    let input = match command {
        Command::Read(args) => &mut args.input,
        Command::Analyze(args) => &mut args.input,
        #[cfg(feature = "export")]
        Command::Export(args) => &mut args.input,
        _ => return Ok(()),
    };
    if let (Some(since), Some(until)) = (input.since, input.until) {
        use crate::filter::time::TimeBound::{Absolute, Relative};
        let after = match (since, until) {
            (Absolute(since), Absolute(until)) | (Relative(since), Relative(until)) => {
                since > until
            }
            // One is counted from the first packet: they compare once it is read.
            _ => false,
        };
        if after {
            bail!("--since {since} is after --until {until}: no packet can be in between");
        }
    }
    if let Some(asked) = input.threads {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = cores.max(EVERY_PATH_THREADS);
        if asked > most {
            eprintln!(
                "rdmadump: warning: --threads {asked} is more than the {cores} cores; using {most}"
            );
            input.threads = Some(most);
        }
    }
    Ok(())
}

/// True when the error chain bottoms out in a closed pipe (`rdmadump read | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let kind = match cause.downcast_ref::<io::Error>() {
            Some(e) => Some(e.kind()),
            // serde_json hides the io::Error it failed on from the chain.
            None => cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind()),
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}

/// A pass that prepares an analysis (matching capture points, pairing a `--qp`'s
/// connections): no progress bar, no repeated warnings, no CRCs.
pub(crate) const PREPARE: RunOptions<'static> = RunOptions {
    offsets: &[],
    quiet: true,
    skip_crcs: true,
    in_memory: &[],
};

/// The files to read: those named, or stdin when none are named and stdin is not a terminal.
pub fn input_paths(args: &InputArgs) -> anyhow::Result<Vec<PathBuf>> {
    paths_or_stdin(&args.files, &args.read_files)
}

/// The FILE arguments, then the `-r FILE`s; standard input when there are none.
pub fn paths_or_stdin(files: &[PathBuf], read_files: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    if !files.is_empty() || !read_files.is_empty() {
        let paths: Vec<PathBuf> = files.iter().chain(read_files).cloned().collect();
        if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
            bail!("standard input (-) is given more than once; it is one stream, read once");
        }
        return Ok(paths);
    }
    if io::stdin().is_terminal() {
        bail!("no capture file given (name one, or pipe a capture into standard input)");
    }
    Ok(vec![PathBuf::from("-")])
}

/// What `--pmtu`, `--link-speed` and the table limits ask of an analysis.
pub fn analysis_config(args: &AnalysisArgs) -> AnalyzeConfig {
    AnalyzeConfig {
        pmtu: args.pmtu,
        link_speed_bps: args.link_speed,
        storm_threshold_ns: u64::try_from(args.storm_threshold.as_nanos()).unwrap_or(u64::MAX),
        max_flows: args.max_flows,
        memory: args.memory,
        max_pfc_senders: args.max_pfc_senders,
        stall_ns: args
            .stall
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
        dscp_map: crate::analyze::priorities::DscpMap::with(&args.dscp_map),
        ..AnalyzeConfig::default()
    }
}

/// The packet selection of `-Y`, `--qp` and `--kind`, compiled before any file is read.
pub fn packet_filter(args: &InputArgs) -> anyhow::Result<PacketFilter> {
    // QPNs are 24 bits; a larger number can match nothing, and says so by matching nothing.
    let qp = args.qp.map(|q| u32::try_from(q).unwrap_or(u32::MAX));
    Ok(crate::filter::FilterText::compile(
        args.filter_text(),
        qp,
        args.kind.map(|k| k.0),
    )?)
}

/// The `--since`/`--until` window. Bounds relative to the first packet are anchored here,
/// ahead of reading, when every input is a file that can be read twice; otherwise the
/// inputs are streamed one record at a time, in order, and the first packet anchors them.
pub fn time_window(args: &InputArgs, paths: &[PathBuf]) -> TimeWindow {
    let window = TimeWindow::new(args.since, args.until);
    if window.is_relative() {
        window.anchor(crate::capture::merge::first_timestamp(paths));
    }
    window
}

pub fn decode_options(args: &InputArgs) -> DecodeOptions {
    DecodeOptions {
        extra_roce_ports: args.roce_ports.clone(),
        decode_as: args.decode.clone(),
        ..DecodeOptions::default()
    }
}

/// Threads a run uses: `--threads`, or one per core.
pub fn threads(args: &InputArgs) -> usize {
    args.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How a command reads its inputs beyond what the command line says.
#[derive(Debug, Default, Clone, Copy)]
pub struct RunOptions<'o> {
    /// Each input's clock minus the reference's, to merge capture points on one clock.
    pub offsets: &'o [i64],
    /// No progress bar and no notices: a pass that only prepares the real one.
    pub quiet: bool,
    /// Leave ICRC and VCRC unverified.
    pub skip_crcs: bool,
    /// Captures already in memory, by the index of the input that names them.
    pub in_memory: &'o [Option<InMemory>],
}

/// What `args` and `run` ask of the pipeline.
pub fn pipeline_options(args: &InputArgs, run: RunOptions<'_>) -> PipelineOptions {
    PipelineOptions {
        threads: threads(args),
        mmap: !args.no_mmap,
        decode: decode_options(args),
        offsets: run.offsets.to_vec(),
        verify_crcs: !run.skip_crcs,
        in_memory: run.in_memory.to_vec(),
    }
}

/// [`pipeline::for_each_batch`] as the command line and `run` ask it, with the progress
/// bar and the notices on stderr.
pub fn for_each_batch_with<W, C>(
    paths: &[PathBuf],
    args: &InputArgs,
    run: RunOptions<'_>,
    work: W,
    consume: C,
) -> anyhow::Result<InputReport>
where
    W: for<'m> Fn(&mut Batch<'m>) + Sync,
    C: for<'m> FnMut(&mut Batch<'m>) -> anyhow::Result<ControlFlow<()>>,
{
    let options = pipeline_options(args, run);
    let observer = &mut StderrObserver::new(run.quiet);
    pipeline::for_each_batch(paths, &options, observer, work, consume)
}

/// [`pipeline::for_each_packet`] as the command line and `run` ask it.
pub fn for_each_packet_with(
    paths: &[PathBuf],
    args: &InputArgs,
    run: RunOptions<'_>,
    filter: &PacketFilter,
    visit: impl FnMut(usize, &Packet<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<InputReport> {
    let options = pipeline_options(args, run);
    let observer = &mut StderrObserver::new(run.quiet);
    pipeline::for_each_packet(paths, &options, observer, filter, visit)
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
