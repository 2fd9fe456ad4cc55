//! The commands' work without their output, for the Python package (python/): the packets
//! table that `export` writes, as record batches handed over one at a time, and its other
//! tables, for Spark to write; the report and the tables of `analyze`; what `info --json`
//! says of a file. Arguments are the command line's own, parsed by clap, so that every
//! option means here what it means there. A capture may also be handed over in memory (what
//! Spark reads of a file in an object store): the file argument then only names it.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};
use clap::Parser;

use crate::analyze::Analyzer;
use crate::capture::InMemory;
use crate::capture::merge::{InputReport, InputStatus, display_path};
use crate::cli::{AnalyzeArgs, Cli, Command, ExportArgs, InputArgs, PartitionArg};
use crate::dissect::Packet;
use crate::filter::FilterError;
use crate::output::info::{FileInfo, write_json};
use crate::output::parquet::Table;
use crate::output::parquet::columns::schema_of;
use crate::output::parquet::connections::{connection_batches, connection_schema};
use crate::output::parquet::packets::{self, PacketColumns};
use crate::pipeline::Silent;
use crate::pipeline::{self, Batch};
use crate::report::Report;

use super::RunOptions;
use super::analyze::Analysis;
use super::export::{Described, DescribedSink, build_rows, describe_capture};

/// Why a call failed, sorted the way a caller tells its users.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// An option the command line would refuse, with clap's words.
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Filter(FilterError),
    /// An input that could not be read, or read only up to damage at `offset`.
    #[error("{path}: {message}")]
    Capture {
        path: String,
        message: String,
        offset: Option<u64>,
    },
    #[error("{0:#}")]
    Other(anyhow::Error),
}

impl From<anyhow::Error> for ApiError {
    /// A filter that does not compile keeps its column; anything else is told as it is.
    fn from(err: anyhow::Error) -> Self {
        match err.downcast::<FilterError>() {
            Ok(filter) => ApiError::Filter(filter),
            Err(err) => ApiError::Other(err),
        }
    }
}

impl From<ArrowError> for ApiError {
    fn from(err: ArrowError) -> Self {
        ApiError::Other(err.into())
    }
}

/// `rdmadump COMMAND ARGS...` as the command line parses and checks it.
fn parse(command: &str, args: &[String]) -> Result<Command, ApiError> {
    let argv = ["rdmadump", command]
        .into_iter()
        .map(str::to_string)
        .chain(args.iter().cloned());
    let mut cli = Cli::try_parse_from(argv).map_err(|e| ApiError::Usage(e.to_string()))?;
    super::check_arguments(&mut cli.command).map_err(|e| ApiError::Usage(format!("{e:#}")))?;
    Ok(cli.command)
}

/// The first input that failed, as an error; truncated inputs were read to their end.
fn first_failure(input: &InputReport, paths: &[PathBuf]) -> Option<ApiError> {
    let (index, outcome) = input
        .inputs
        .iter()
        .enumerate()
        .find(|(_, outcome)| outcome.status == InputStatus::Failed)?;
    let path = input
        .files
        .get(index)
        .cloned()
        .or_else(|| paths.get(index).map(|p| display_path(p)))
        .unwrap_or_default();
    Some(ApiError::Capture {
        path,
        message: outcome
            .error
            .clone()
            .unwrap_or_else(|| "could not be read".to_string()),
        offset: outcome.broke_at,
    })
}

/// Rows of a record batch handed over: as many as `export` writes at once.
const BATCH_ROWS: usize = 8192;

/// Record batches decoded ahead of the caller: enough to keep the reader busy while the
/// caller works on one, few enough that memory stays a few tens of MB.
const QUEUED_BATCHES: usize = 4;

/// What the reading thread hands over: rows, or why it stopped early.
type Sent = Result<RecordBatch, ApiError>;

/// The `packets` table of `export`, streamed: a thread reads the captures one after the
/// other (each its own `capture`, with its own frame numbers, as in the dataset) and hands
/// over record batches through a short queue, so that memory does not grow with the
/// capture. Dropping the stream stops the thread at its next batch.
pub struct PacketStream {
    schema: SchemaRef,
    batches: Receiver<Sent>,
}

/// What [`PacketStream::next`] found.
pub enum Next {
    Batch(RecordBatch),
    /// Every capture was read.
    End,
    /// Nothing came within the wait: ask again.
    Waiting,
}

impl PacketStream {
    /// `read`'s input options (`-Y`, `--since`, `--until`, `--threads`... and the files),
    /// and the columns to keep (all when `columns` is empty). Options are checked, the
    /// filter compiled and the columns looked up before any input is read. `in_memory`
    /// holds the one capture, which the file argument then only names.
    pub fn open(
        args: &[String],
        columns: &[String],
        in_memory: Option<InMemory>,
    ) -> Result<PacketStream, ApiError> {
        let Command::Read(read) = parse("read", args)? else {
            return Err(ApiError::Usage("not the read command".into()));
        };
        Self::start(read.input, columns, in_memory)
    }

    fn start(
        input: InputArgs,
        columns: &[String],
        in_memory: Option<InMemory>,
    ) -> Result<PacketStream, ApiError> {
        let filter = super::packet_filter(&input)?;
        let paths: Vec<PathBuf> = input
            .files
            .iter()
            .chain(&input.read_files)
            .cloned()
            .collect();
        if paths.is_empty() {
            return Err(ApiError::Usage("no capture file given".into()));
        }
        if paths.len() > 1 && in_memory.is_some() {
            return Err(ApiError::Usage(
                "a capture in memory is one capture: give one file name".into(),
            ));
        }
        // Only the columns asked for are built; none asked for is all of them.
        let selection = if columns.is_empty() {
            None
        } else {
            Some(packets::select(columns).map_err(|name| {
                ApiError::Usage(format!(
                    "no column {name} in the packets table (docs/export-schema.md)"
                ))
            })?)
        };
        let schema = schema_of(&selection.as_ref().unwrap_or(packets::all()).specs());
        let (send, batches) = sync_channel(QUEUED_BATCHES);
        std::thread::Builder::new()
            .name("rdmadump-packets".into())
            .spawn(move || {
                let columns = selection.as_ref().unwrap_or(packets::all());
                for path in &paths {
                    let capture = Capture {
                        path,
                        name: super::export::capture_name(None, path),
                        in_memory: in_memory.clone(),
                    };
                    match read_capture(&input, &filter, columns, &capture, &send) {
                        Ok(ControlFlow::Continue(())) => {}
                        Ok(ControlFlow::Break(())) => return,
                        Err(err) => {
                            let _ = send.send(Err(err));
                            return;
                        }
                    }
                }
            })
            .map_err(|e| ApiError::Other(e.into()))?;
        Ok(PacketStream { schema, batches })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The next record batch, waiting at most `wait` for it: a caller that must answer
    /// something else meanwhile (an interrupt) asks again.
    pub fn next(&mut self, wait: Duration) -> Result<Next, ApiError> {
        match self.batches.recv_timeout(wait) {
            Ok(Ok(batch)) => Ok(Next::Batch(batch)),
            Ok(Err(err)) => Err(err),
            Err(RecvTimeoutError::Timeout) => Ok(Next::Waiting),
            Err(RecvTimeoutError::Disconnected) => Ok(Next::End),
        }
    }
}

/// One capture of a [`PacketStream`].
struct Capture<'p> {
    path: &'p Path,
    /// Its `capture` column.
    name: String,
    /// The capture itself, when `path` only names it.
    in_memory: Option<InMemory>,
}

/// One capture's rows, of `columns`, into `send`, as `export` builds them: CRCs verified,
/// the time window anchored on the capture's own first packet. `Break` when the stream was
/// dropped.
fn read_capture(
    args: &InputArgs,
    filter: &crate::filter::PacketFilter,
    columns: &PacketColumns,
    capture: &Capture<'_>,
    send: &SyncSender<Sent>,
) -> Result<ControlFlow<()>, ApiError> {
    let paths = [capture.path.to_path_buf()];
    let name = &capture.name;
    let window = super::time_window(args, &paths);
    let selected = |pkt: &Packet<'_>| window.contains(pkt.ts_ns) && filter.matches(pkt);
    let work = |batch: &mut Batch<'_>| build_rows(batch, &window, &selected, name, Some(columns));
    let mut gathered = Table::new(&columns.specs());
    // `false` once the stream is dropped: nobody wants the rest.
    let hand_over = |rows: RecordBatch| rows.num_rows() == 0 || send.send(Ok(rows)).is_ok();
    let in_memory = [capture.in_memory.clone()];
    let run = RunOptions {
        in_memory: &in_memory,
        ..RunOptions::default()
    };
    let options = super::pipeline_options(args, run);
    let input = pipeline::for_each_batch(
        &paths,
        &options,
        &mut Silent,
        work,
        |batch: &mut Batch<'_>| -> Result<ControlFlow<()>, ApiError> {
            let Some(made) = batch.made.take() else {
                for (_, pkt) in &batch.packets {
                    if selected(pkt) {
                        columns.push(&mut gathered, name, pkt);
                    }
                }
                if gathered.rows() >= BATCH_ROWS && !hand_over(gathered.finish()?) {
                    return Ok(ControlFlow::Break(()));
                }
                return Ok(ControlFlow::Continue(()));
            };
            let Ok(rows) = made.downcast::<Result<RecordBatch, ArrowError>>() else {
                return Err(ApiError::Other(anyhow::anyhow!(
                    "a worker made something other than packet rows"
                )));
            };
            // Rows gathered before this batch's go first.
            if gathered.rows() > 0 && !hand_over(gathered.finish()?) {
                return Ok(ControlFlow::Break(()));
            }
            Ok(if hand_over((*rows)?) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            })
        },
    )?;
    if !hand_over(gathered.finish()?) {
        return Ok(ControlFlow::Break(()));
    }
    match first_failure(&input, &paths) {
        Some(err) => Err(err),
        None => Ok(ControlFlow::Continue(())),
    }
}

impl From<pipeline::PipelineError> for ApiError {
    fn from(err: pipeline::PipelineError) -> Self {
        ApiError::Other(err.into())
    }
}

/// `analyze`'s arguments as its command line parses them, and its inputs, each once.
fn analyze_args(argv: &[String]) -> Result<(AnalyzeArgs, Vec<PathBuf>), ApiError> {
    let Command::Analyze(args) = parse("analyze", argv)? else {
        return Err(ApiError::Usage("not the analyze command".into()));
    };
    let paths = super::points::distinct_inputs(
        args.input
            .files
            .iter()
            .chain(&args.input.read_files)
            .cloned()
            .collect(),
    );
    if paths.is_empty() {
        return Err(ApiError::Usage("no capture file given".into()));
    }
    Ok((args, paths))
}

/// What `analyze` found in its inputs, kept to be told as the report, the tables and the
/// HTML page.
pub struct Analyzed {
    analyzer: Analyzer,
    input: InputReport,
    /// The arguments, for the pass that records the HTML report's charts.
    args: Vec<String>,
    /// The charts were recorded in this pass.
    graphs: bool,
    html_top: usize,
    threads: usize,
}

impl Analyzed {
    /// `analyze`'s options and files, as on its command line. An input that could not be
    /// read, or only up to damage, is an error: the report would leave out what the damage
    /// hid. The HTML report's charts are not recorded (they cost a third more time): a page
    /// asked for later is made by a pass of its own.
    pub fn run(args: &[String]) -> Result<Analyzed, ApiError> {
        Self::analyze(args, false)
    }

    fn analyze(argv: &[String], graphs: bool) -> Result<Analyzed, ApiError> {
        let (args, paths) = analyze_args(argv)?;
        let filter = super::packet_filter(&args.input)?;
        let Analysis { analyzer, input } =
            super::analyze::analyze(&args, paths.clone(), filter, graphs, true)?;
        if let Some(err) = first_failure(&input, &paths) {
            return Err(err);
        }
        Ok(Analyzed {
            analyzer,
            input,
            args: argv.to_vec(),
            graphs,
            html_top: args.html_top,
            threads: super::threads(&args.input),
        })
    }

    /// The report model `analyze --json` writes, lent to `tell`: for a caller that makes
    /// its own objects of it, as the Python package makes the report's dict.
    pub fn with_report<T>(&self, tell: impl FnOnce(&Report<'_>) -> T) -> T {
        tell(&Report::new(&self.analyzer, &self.input))
    }

    /// The page `analyze --html` writes, from a second pass that records its charts.
    pub fn html(&self) -> Result<String, ApiError> {
        if !self.graphs {
            return Self::analyze(&self.args, true)?.html();
        }
        let report = Report::new(&self.analyzer, &self.input);
        Ok(crate::output::html::render(
            &report,
            &self.analyzer,
            self.html_top,
            self.threads,
        ))
    }

    /// The `capture` column: the file's name, or the names of several joined by commas.
    fn capture(&self) -> String {
        let names: Vec<String> = self
            .input
            .files
            .iter()
            .map(|f| super::export::capture_name(None, Path::new(f)))
            .collect();
        names.join(",")
    }

    /// The `connections` table of `export`: both directions of each connection, then the
    /// datagram flows.
    pub fn connections(&self) -> Result<(SchemaRef, Vec<RecordBatch>), ApiError> {
        let report = Report::new(&self.analyzer, &self.input);
        let name = self.capture();
        let mut batches = Vec::new();
        connection_batches(&report, &name, BATCH_ROWS, |batch| {
            batches.push(batch);
            Ok::<_, ApiError>(())
        })?;
        Ok((schema_of(&connection_schema().specs()), batches))
    }

    /// The `events` table of `export` for each capture analysed: see [`analysis_events`].
    pub fn events(&self) -> Result<Rows, ApiError> {
        analysis_events(&self.args)
    }

    /// The arguments it was run with, as on `analyze`'s command line.
    pub fn args(&self) -> &[String] {
        &self.args
    }
}

/// The rows of one dataset.
pub type Rows = (SchemaRef, Vec<RecordBatch>);

/// The `events` rows `rdmadump export` writes for each capture that `analyze ARGV` reads,
/// one capture after the other: every anomaly, the runs of PSNs the capture missed, the row
/// of a capture cut short. They come from a pass of export's own, not from the analysis:
/// the analysis keeps only the first `--max-anomalies` for its report, and analyses only
/// the frames its filter, window and `--qp` select, where export analyses every frame.
/// Export's analysis options are analyze's; the rows are held as export writes them, a
/// batch at a time, and nothing else of the pass is kept.
pub fn analysis_events(argv: &[String]) -> Result<Rows, ApiError> {
    let (args, paths) = analyze_args(argv)?;
    if paths.iter().any(|p| p.as_os_str() == "-") {
        return Err(ApiError::Usage(
            "the events of standard input cannot be read again: give a file".into(),
        ));
    }
    let AnalyzeArgs {
        input, analysis, ..
    } = args;
    // Only what describes the capture is read of these: no packets dataset is written.
    let export = ExportArgs {
        input,
        output: PathBuf::new(),
        max_file_size: u64::MAX,
        partition: PartitionArg::None,
        replace: false,
        name: None,
        schema: false,
        analysis,
    };
    let mut events = EventRows(Vec::new());
    for path in &paths {
        let name = super::export::capture_name(None, path);
        // Quiet: the analysis already told of the inputs.
        let run = RunOptions {
            quiet: true,
            ..RunOptions::default()
        };
        // No packet rows are built, so the filter selects nothing here.
        let filter = crate::filter::PacketFilter::default();
        describe_capture(&export, path, run, &name, &filter, None, &mut events)?;
    }
    Ok((schema_of(&Described::Events.columns()), events.0))
}

/// The `events` rows of a pass of export's; its other datasets are let go.
struct EventRows(Vec<RecordBatch>);

impl DescribedSink for EventRows {
    fn write(
        &mut self,
        dataset: Described,
        rows: RecordBatch,
        _first_ts: Option<u64>,
    ) -> anyhow::Result<()> {
        if dataset == Described::Events && rows.num_rows() > 0 {
            self.0.push(rows);
        }
        Ok(())
    }
}

/// The tables of `rdmadump export ARGS` other than `packets`, for its one capture, by
/// dataset name: what describes the whole capture (connections, events, priorities,
/// commands) and its `captures` row, which says how reading it ended. A capture that could
/// not be read is that row, not an error. `in_memory` holds the capture when the file
/// argument only names it.
pub fn describe(
    args: &[String],
    in_memory: Option<InMemory>,
) -> Result<Vec<(&'static str, Rows)>, ApiError> {
    let Command::Export(export) = parse("export", args)? else {
        return Err(ApiError::Usage("not the export command".into()));
    };
    let filter = super::packet_filter(&export.input)?;
    let path = one_capture(&export)?;
    let name = super::export::capture_name(export.name.as_deref(), &path);
    let mut kept = KeptRows(Described::ALL.map(|d| (d, schema_of(&d.columns()), Vec::new())));
    let in_memory = [in_memory];
    // Quiet: what went wrong is in the captures row, and no terminal watches.
    let run = RunOptions {
        in_memory: &in_memory,
        quiet: true,
        ..RunOptions::default()
    };
    describe_capture(&export, &path, run, &name, &filter, None, &mut kept)?;
    Ok(kept
        .0
        .into_iter()
        .map(|(dataset, schema, batches)| (dataset.name(), (schema, batches)))
        .collect())
}

/// `rdmadump export ARGS` of one capture, written as the command writes it under its `-o`
/// (the Spark job's tasks write into a directory of their own, then publish the files):
/// one pass, the command's own writer. Whether the capture was read whole is for its
/// captures row to say; an error here means nothing was written.
pub fn export_files(args: &[String], in_memory: Option<InMemory>) -> Result<(), ApiError> {
    let Command::Export(export) = parse("export", args)? else {
        return Err(ApiError::Usage("not the export command".into()));
    };
    let filter = super::packet_filter(&export.input)?;
    let path = one_capture(&export)?;
    let name = super::export::capture_name(export.name.as_deref(), &path);
    let options = super::export::dataset_options(&export);
    let in_memory = [in_memory];
    let run = RunOptions {
        in_memory: &in_memory,
        quiet: true,
        ..RunOptions::default()
    };
    super::export::export_capture(&export, &path, &name, &filter, &options, run)?;
    Ok(())
}

/// The one capture an export of the package's is given.
fn one_capture(export: &ExportArgs) -> Result<PathBuf, ApiError> {
    match export.input.files.as_slice() {
        [path] if export.input.read_files.is_empty() => Ok(path.clone()),
        _ => Err(ApiError::Usage("give one capture file".into())),
    }
}

/// Each described dataset's rows, kept in memory.
struct KeptRows([(Described, SchemaRef, Vec<RecordBatch>); 5]);

impl DescribedSink for KeptRows {
    fn write(
        &mut self,
        dataset: Described,
        rows: RecordBatch,
        _first_ts: Option<u64>,
    ) -> anyhow::Result<()> {
        if rows.num_rows() > 0
            && let Some((_, _, batches)) = self.0.iter_mut().find(|(d, ..)| *d == dataset)
        {
            batches.push(rows);
        }
        Ok(())
    }
}

/// The key-value metadata of each Parquet file `export` writes of `dataset` for `capture`
/// (src/output/parquet/dataset.rs), for the files written elsewhere (the Spark job's) to
/// say the same of themselves.
pub fn file_metadata(dataset: &str, capture: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "schema_version",
            crate::output::parquet::dataset::SCHEMA_VERSION.to_string(),
        ),
        ("rdmadump.dataset", dataset.to_string()),
        ("rdmadump.capture", capture.to_string()),
        ("rdmadump.version", env!("CARGO_PKG_VERSION").to_string()),
    ]
}

/// What `info --json` says of one file: an array of one object.
pub fn info(path: &Path) -> Result<String, ApiError> {
    let name = display_path(path);
    let summary =
        crate::capture::info::summarize(path, false, None).map_err(|err| ApiError::Capture {
            path: name.clone(),
            message: err.to_string(),
            offset: None,
        })?;
    let files = [FileInfo {
        name: &name,
        summary: &summary,
        kinds: None,
    }];
    let mut out = Vec::new();
    write_json(&mut out, &files).map_err(|e| ApiError::Other(e.into()))?;
    String::from_utf8(out).map_err(|e| ApiError::Other(e.into()))
}
