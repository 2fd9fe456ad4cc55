//! `rdmadump export`: each capture's frames, connections and anomalies into the Parquet
//! datasets under `--output`, one capture at a time, each analysed on its own.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::analyze::Analyzer;
use crate::analyze::key::FrameRef;
use crate::capture::merge::InputStatus;
use crate::cli::{ExportArgs, PartitionArg};
use crate::filter::PacketFilter;
use crate::filter::time::TimeWindow;
use crate::output::parquet::captures::{CaptureRecord, CaptureStatus, Dropped, capture_schema};
use crate::output::parquet::commands::{CommandRecord, Taken, command_schema};
use crate::output::parquet::connections::{connection_batches, connection_schema};
use crate::output::parquet::events::{EventRecord, event_schema};
use crate::output::parquet::priorities::{PriorityRecord, priority_schema};
use crate::output::parquet::{
    ColumnSpec, DATASETS, DatasetOptions, DatasetWriter, ExportError, Partitioning, Table,
    commit_all, packets, schema_markdown,
};

use super::same_file::InputFiles;
use super::{RunOptions, for_each_batch_with, input_paths};
use crate::dissect::Packet;
use crate::pipeline::Batch;
use crate::report::anomalies::AnomalyRow;
use crate::report::{Files, Report};
use arrow_array::RecordBatch;
use arrow_schema::ArrowError;

thread_local! {
    /// Each worker thread's packet table, which a pipeline batch's rows are built in, with
    /// the id of its columns ([`packets::PacketColumns::id`]).
    static WORKER_ROWS: std::cell::RefCell<Option<(usize, Table)>> =
        const { std::cell::RefCell::new(None) };
}

/// Rows gathered before they go to the Parquet writer as one record batch: enough to
/// amortise the per-batch work, few enough that 170 columns of them stay a few MB.
const BATCH_ROWS: usize = 8192;

/// Frames in a pipeline batch from which its worker builds the batch's rows as a record
/// batch of their own; the consumer gathers the rows of smaller ones (a stream's batch is
/// one frame), for which a record batch would cost more than its frames.
const WORKER_BATCH: usize = 64;

/// Record batches on their way to the Parquet writer's thread: with the pipeline's 512
/// frames a batch, as many rows as the consumer may run ahead of the writer.
const QUEUED_BATCHES: usize = 32;

pub fn run(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    if args.schema {
        let mut out = super::stdout()?;
        super::write_out(&mut out, schema_markdown().as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let filter = super::packet_filter(&args.input)?;
    let paths = input_paths(&args.input)?;
    if args.name.is_some() && paths.len() > 1 {
        bail!(
            "--name names one capture, and {} are given: export them one at a time",
            paths.len()
        );
    }
    InputFiles::of(&paths).refuse_any(&dataset_files(&args.output), &args.output)?;
    let options = dataset_options(args);
    let mut failed = false;
    for path in &paths {
        let name = capture_name(args.name.as_deref(), path);
        let run = RunOptions::default();
        let outcome =
            export_capture(args, path, &name, &filter, &options, run).unwrap_or_else(|err| {
                // One capture's failure (a name exported before, a full disk) leaves the
                // others to be exported.
                eprintln!("rdmadump: {err:#}");
                Outcome::Failed
            });
        match outcome {
            Outcome::Written => {}
            Outcome::Unreadable => {
                eprintln!(
                    "rdmadump: {}: the capture could not be read: only its captures row was exported",
                    path.display()
                );
                failed = true;
            }
            Outcome::Damaged | Outcome::Failed => failed = true,
        }
    }
    Ok(if failed {
        ExitCode::from(super::EXIT_ERROR)
    } else {
        ExitCode::SUCCESS
    })
}

/// Every file already in the datasets under `root`, which an export may replace or remove.
fn dataset_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut directories: Vec<_> = DATASETS.iter().map(|dataset| root.join(dataset)).collect();
    while let Some(directory) = directories.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => directories.push(entry.path()),
                Ok(kind) if kind.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files
}

pub(super) enum Outcome {
    Written,
    /// Read in part: what decoded was exported.
    Damaged,
    /// Not a frame could be read: nothing was written.
    Unreadable,
    /// Something else stopped it, and said so: nothing was written.
    Failed,
}

/// The `capture` column: the name given, else the file's name without its directory.
pub(super) fn capture_name(given: Option<&str>, path: &Path) -> String {
    if let Some(name) = given {
        return name.to_string();
    }
    if path.as_os_str() == "-" {
        return "stdin".to_string();
    }
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The packets dataset's record batches, in capture order, and the writer they go to:
/// Parquet pages are encoded and compressed here, on a thread of their own when there are
/// two, beside the decoding and the analysis.
enum PacketSink {
    Inline(Box<DatasetWriter>),
    Background {
        rows: std::sync::mpsc::SyncSender<(RecordBatch, Option<u64>)>,
        /// `None` once joined, after it stopped on an error.
        writer: Option<std::thread::JoinHandle<Result<DatasetWriter, ExportError>>>,
    },
}

/// The writer thread's own error (a full disk, a name taken), which is what the user
/// needs to read, rather than the news that it stopped.
fn joined(
    writer: std::thread::JoinHandle<Result<DatasetWriter, ExportError>>,
) -> anyhow::Result<DatasetWriter> {
    match writer.join() {
        Ok(result) => Ok(result?),
        Err(_) => bail!("the packets writer panicked"),
    }
}

impl PacketSink {
    fn new(mut writer: DatasetWriter, threads: usize) -> Self {
        if threads < 2 {
            return PacketSink::Inline(Box::new(writer));
        }
        let (rows, queue) =
            std::sync::mpsc::sync_channel::<(RecordBatch, Option<u64>)>(QUEUED_BATCHES);
        let writer = std::thread::spawn(move || {
            let mut first = None;
            for (rows, first_ts) in queue {
                first = first_ts.or(first);
                writer.write(&rows, first)?;
            }
            Ok(writer)
        });
        PacketSink::Background {
            rows,
            writer: Some(writer),
        }
    }

    fn write(&mut self, rows: RecordBatch, first_ts: Option<u64>) -> anyhow::Result<()> {
        if rows.num_rows() == 0 {
            return Ok(());
        }
        match self {
            PacketSink::Inline(writer) => Ok(writer.write(&rows, first_ts)?),
            PacketSink::Background {
                rows: queue,
                writer,
            } => {
                if queue.send((rows, first_ts)).is_err() {
                    // The writer stopped, which it does only on an error.
                    if let Some(writer) = writer.take() {
                        joined(writer)?;
                    }
                    bail!("the packets writer stopped");
                }
                Ok(())
            }
        }
    }

    fn finish(self) -> anyhow::Result<DatasetWriter> {
        match self {
            PacketSink::Inline(writer) => Ok(*writer),
            PacketSink::Background { rows, writer } => {
                drop(rows);
                match writer {
                    Some(writer) => joined(writer),
                    None => bail!("the packets writer stopped"),
                }
            }
        }
    }
}

/// The packet rows of the frames a selection keeps, in capture order: a large pipeline
/// batch comes with its rows built by its worker ([`WORKER_BATCH`]); the rows of small ones
/// are built here and gathered into record batches of [`BATCH_ROWS`].
pub struct PacketRows {
    sink: PacketSink,
    gathered: Table,
}

impl PacketRows {
    fn add(
        &mut self,
        batch: &mut Batch<'_>,
        selected: impl Fn(&Packet<'_>) -> bool,
        capture: &str,
        first_ts: Option<u64>,
    ) -> anyhow::Result<()> {
        let Some(made) = batch.made.take() else {
            for (_, pkt) in &batch.packets {
                if selected(pkt) {
                    packets::push(&mut self.gathered, capture, pkt);
                }
            }
            if self.gathered.rows() >= BATCH_ROWS {
                self.sink.write(self.gathered.finish()?, first_ts)?;
            }
            return Ok(());
        };
        let Ok(rows) = made.downcast::<Result<RecordBatch, ArrowError>>() else {
            bail!("a worker made something other than packet rows");
        };
        // Rows gathered before this batch's go first.
        if self.gathered.rows() > 0 {
            self.sink.write(self.gathered.finish()?, first_ts)?;
        }
        self.sink.write((*rows)?, first_ts)
    }

    fn finish(mut self, first_ts: Option<u64>) -> anyhow::Result<DatasetWriter> {
        self.sink.write(self.gathered.finish()?, first_ts)?;
        self.sink.finish()
    }
}

/// The datasets that describe a whole capture, whatever the selection: all but `packets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Described {
    Connections,
    Events,
    Priorities,
    Commands,
    Captures,
}

impl Described {
    pub const ALL: [Described; 5] = [
        Described::Connections,
        Described::Events,
        Described::Priorities,
        Described::Commands,
        Described::Captures,
    ];

    /// The dataset's directory under `--output`.
    pub fn name(self) -> &'static str {
        match self {
            Described::Connections => "connections",
            Described::Events => "events",
            Described::Priorities => "priorities",
            Described::Commands => "commands",
            Described::Captures => "captures",
        }
    }

    pub fn columns(self) -> Vec<ColumnSpec> {
        match self {
            Described::Connections => connection_schema().specs(),
            Described::Events => event_schema().specs(),
            Described::Priorities => priority_schema().specs(),
            Described::Commands => command_schema().specs(),
            Described::Captures => capture_schema().specs(),
        }
    }
}

/// Where the rows that describe a capture go: export's Parquet files, or the record batches
/// that the Python package hands to Spark, which writes them itself.
pub trait DescribedSink {
    /// `first_ts` is the capture's first frame, which places a file in its partition.
    fn write(
        &mut self,
        dataset: Described,
        rows: RecordBatch,
        first_ts: Option<u64>,
    ) -> anyhow::Result<()>;
}

struct Datasets {
    packets: DatasetWriter,
    described: DescribedWriters,
}

/// A Parquet dataset writer for each of [`Described::ALL`], in that order.
struct DescribedWriters([DatasetWriter; 5]);

impl DescribedSink for DescribedWriters {
    fn write(
        &mut self,
        dataset: Described,
        rows: RecordBatch,
        first_ts: Option<u64>,
    ) -> anyhow::Result<()> {
        let index = Described::ALL.iter().position(|d| *d == dataset);
        let writer = &mut self.0[index.expect("every dataset has its writer")];
        Ok(writer.write(&rows, first_ts)?)
    }
}

impl Datasets {
    fn new(root: &Path, name: &str, options: &DatasetOptions) -> Self {
        let writer = |dataset: &str, columns: &[ColumnSpec]| {
            DatasetWriter::new(root.join(dataset), dataset, name, columns, options.clone())
        };
        Datasets {
            packets: writer("packets", &packets::columns()),
            described: DescribedWriters(Described::ALL.map(|d| writer(d.name(), &d.columns()))),
        }
    }

    fn all(&self) -> impl Iterator<Item = &DatasetWriter> {
        std::iter::once(&self.packets).chain(&self.described.0)
    }

    /// An earlier export of the capture, in any table, unless it is to be replaced.
    fn refuse_existing(&self) -> Result<(), ExportError> {
        match self.all().flat_map(|d| d.conflicts()).next() {
            Some(existing) => Err(ExportError::Exists(existing)),
            None => Ok(()),
        }
    }

    /// Renames every file of every table into place, or none of them, once none would
    /// overwrite another; then removes what remains of a capture replaced.
    fn commit(mut self) -> Result<(), ExportError> {
        self.refuse_existing()?;
        let mut temporaries = Vec::new();
        for set in std::iter::once(&mut self.packets).chain(&mut self.described.0) {
            temporaries.extend(set.take_finished()?);
        }
        let names = commit_all(temporaries)?;
        for set in self.all() {
            set.remove_replaced(&names)?;
        }
        Ok(())
    }
}

/// The event rows of the anomalies found so far; the sink keeps counting them all.
struct Events {
    table: Table,
    /// Anomalies given a row so far, to count those that were not.
    anomalies: u64,
}

impl Events {
    fn drain(
        &mut self,
        analyzer: &mut Analyzer,
        capture: &str,
        files: &[String],
        out: &mut dyn DescribedSink,
    ) -> anyhow::Result<()> {
        let anomalies: Vec<_> = analyzer.anomalies.kept.drain(..).collect();
        let missed: Vec<_> = analyzer.capture_missed.drain(..).collect();
        // After the rows it reads: a schema's columns read rows of one lifetime.
        let schema = event_schema();
        self.anomalies += anomalies.len() as u64;
        for anomaly in &anomalies {
            let record = EventRecord {
                capture,
                anomaly: AnomalyRow::new(anomaly, Files(files)),
            };
            schema.push(&mut self.table, &record);
            if self.table.rows() >= BATCH_ROWS {
                out.write(Described::Events, self.table.finish()?, analyzer.first_ts)?;
            }
        }
        // One row per run of PSNs the capture missed.
        for run in &missed {
            let record = EventRecord {
                capture,
                anomaly: AnomalyRow::capture_missed(run, Files(files)),
            };
            schema.push(&mut self.table, &record);
            if self.table.rows() >= BATCH_ROWS {
                out.write(Described::Events, self.table.finish()?, analyzer.first_ts)?;
            }
        }
        Ok(())
    }

    /// The row that marks where a capture cut short or damaged broke, at the frame that
    /// could not be read.
    fn push_break(
        &mut self,
        capture: &str,
        record: &CaptureRecord<'_>,
        files: &[String],
    ) -> anyhow::Result<()> {
        let kind = match record.status {
            CaptureStatus::Truncated => "truncated",
            CaptureStatus::Damaged => "malformed",
            CaptureStatus::Complete | CaptureStatus::Failed => return Ok(()),
        };
        let Some(offset) = record.broke_at else {
            return Ok(());
        };
        let at = FrameRef {
            file: 0,
            frame: record.packets + 1,
            ts_ns: None,
        };
        let message = record.error.unwrap_or(kind).to_string();
        let row = EventRecord {
            capture,
            anomaly: AnomalyRow::capture_broke(kind, at, offset, &message, Files(files)),
        };
        event_schema().push(&mut self.table, &row);
        Ok(())
    }
}

/// How the datasets are laid out, from the command line.
pub(super) fn dataset_options(args: &ExportArgs) -> DatasetOptions {
    DatasetOptions {
        max_file_bytes: args.max_file_size,
        partitioning: match args.partition {
            PartitionArg::CaptureDate => Partitioning::CaptureDate,
            PartitionArg::None => Partitioning::None,
        },
        replace: args.replace,
    }
}

/// Writes one capture's datasets under `args.output`; `run.in_memory` holds the capture
/// when it is not read from `path`, and `run.quiet` keeps what was not exported out of
/// stderr (the captures row counts it all the same).
pub(super) fn export_capture(
    args: &ExportArgs,
    path: &Path,
    name: &str,
    filter: &PacketFilter,
    options: &DatasetOptions,
    run: RunOptions<'_>,
) -> anyhow::Result<Outcome> {
    let datasets = Datasets::new(&args.output, name, options);
    // Refused before the work rather than after it.
    datasets.refuse_existing()?;
    let Datasets {
        packets: packet_writer,
        mut described,
    } = datasets;
    let mut packet_rows = PacketRows {
        sink: PacketSink::new(packet_writer, super::threads(&args.input)),
        gathered: Table::new(&packets::columns()),
    };
    let capture = describe_capture(
        args,
        path,
        run,
        name,
        filter,
        Some(&mut packet_rows),
        &mut described,
    )?;
    let datasets = Datasets {
        packets: packet_rows.finish(capture.first_ts)?,
        described,
    };
    datasets
        .commit()
        .with_context(|| format!("exporting {}", path.display()))?;
    let lost = capture.dropped.described();
    if !lost.is_empty() && !run.quiet {
        eprintln!(
            "rdmadump: {}: not exported, counted in the captures table: {}",
            capture.path,
            lost.join(", ")
        );
    }
    Ok(match capture.status {
        CaptureStatus::Complete | CaptureStatus::Truncated => Outcome::Written,
        CaptureStatus::Damaged => Outcome::Damaged,
        CaptureStatus::Failed => Outcome::Unreadable,
    })
}

/// A worker's part of building packet rows, for `export` and the Python package alike: it
/// verifies the batch's CRCs and anchors the time window on its frames; with `columns`,
/// when the batch has [`WORKER_BATCH`] frames or more, the rows of the frames `selected`
/// keeps, of those columns only, become the batch's record batch (`batch.made`). Smaller
/// batches are left to the consumer, which gathers their rows.
pub fn build_rows(
    batch: &mut Batch<'_>,
    window: &TimeWindow,
    selected: &dyn Fn(&Packet<'_>) -> bool,
    name: &str,
    columns: Option<&packets::PacketColumns>,
) {
    let Some(columns) = columns.filter(|_| batch.packets.len() >= WORKER_BATCH) else {
        for (_, pkt) in batch.packets.iter_mut() {
            pkt.verify_crcs();
            window.anchor(pkt.ts_ns);
        }
        return;
    };
    WORKER_ROWS.with_borrow_mut(|rows| {
        let table = match rows {
            Some((id, table)) if *id == columns.id() => table,
            _ => &mut rows.insert((columns.id(), Table::new(&columns.specs()))).1,
        };
        for (_, pkt) in batch.packets.iter_mut() {
            pkt.verify_crcs();
            window.anchor(pkt.ts_ns);
            if selected(pkt) {
                columns.push(table, name, pkt);
            }
        }
        batch.made = Some(Box::new(table.finish()));
    });
}

/// What reading and analysing a capture found, beside the rows it gave.
pub struct DescribedCapture {
    pub status: CaptureStatus,
    /// The capture's first frame.
    pub first_ts: Option<u64>,
    pub dropped: Dropped,
    /// The path as messages name it.
    pub path: String,
}

/// Reads one capture and analyses it as `export` does: the packet rows of the frames the
/// selection keeps go to `packet_rows` (none are built without it), and the rows of every
/// other dataset, which describe the whole capture, to `described`. `run.in_memory` holds
/// the capture when it is not read from `path`, which then only names it.
pub fn describe_capture(
    args: &ExportArgs,
    path: &Path,
    run: RunOptions<'_>,
    name: &str,
    filter: &PacketFilter,
    mut packet_rows: Option<&mut PacketRows>,
    described: &mut dyn DescribedSink,
) -> anyhow::Result<DescribedCapture> {
    let paths = [path.to_path_buf()];
    let window = super::time_window(&args.input, &paths);
    let mut analyzer = Analyzer::new(super::analysis_config(&args.analysis));
    // Every command gets its row, whatever `--memory`: the command tables hand their rows
    // over to `commands` when their share is full, rather than drop them.
    analyzer.command_budget.hand_over = true;
    let mut commands = Table::new(&command_schema().specs());
    let mut events = Events {
        table: Table::new(&event_schema().specs()),
        anomalies: 0,
    };
    let files = [name.to_string()];
    let with_rows = packet_rows.is_some();
    let selected = |pkt: &Packet<'_>| window.contains(pkt.ts_ns) && filter.matches(pkt);
    // The worker stage verifies CRCs, and builds the rows of the frames the selection keeps;
    // every frame is analysed, so that connections and events describe the whole capture.
    let columns = with_rows.then(packets::all);
    let work = |batch: &mut Batch<'_>| build_rows(batch, &window, &selected, name, columns);
    let input = for_each_batch_with(&paths, &args.input, run, work, |batch: &mut Batch<'_>| {
        for (file, pkt) in &batch.packets {
            analyzer.observe(*file, pkt);
        }
        if let Some(rows) = packet_rows.as_deref_mut() {
            rows.add(batch, selected, name, analyzer.first_ts)?;
        }
        if analyzer.anomalies.kept.len() >= BATCH_ROWS
            || analyzer.capture_missed.len() >= BATCH_ROWS
        {
            events.drain(&mut analyzer, name, &files, described)?;
        }
        if analyzer.command_budget.rows_full() {
            let taken = Taken::take(&mut analyzer);
            push_commands(
                &taken.records(name, &analyzer),
                &mut commands,
                &analyzer,
                described,
            )?;
        }
        Ok(ControlFlow::Continue(()))
    })
    .with_context(|| format!("exporting {}", path.display()))?;
    analyzer.finish();
    let first_ts = analyzer.first_ts;
    events.drain(&mut analyzer, name, &files, described)?;
    let report = Report::new(&analyzer, &input);
    let dropped = Dropped::of(&report, analyzer.anomalies.total() - events.anomalies);
    let outcome = input.inputs.first().cloned().unwrap_or_default();
    let status = match outcome.status {
        InputStatus::Ok => CaptureStatus::Complete,
        InputStatus::Truncated => CaptureStatus::Truncated,
        InputStatus::Failed if input.records == 0 => CaptureStatus::Failed,
        InputStatus::Failed => CaptureStatus::Damaged,
    };
    let display = crate::capture::merge::display_path(path);
    let size_bytes = match run.in_memory.first() {
        Some(Some(bytes)) => Some(bytes.len() as u64),
        _ => std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len()),
    };
    let record = CaptureRecord {
        capture: name,
        path: &display,
        size_bytes,
        packets: input.records,
        first_ts_ns: first_ts,
        last_ts_ns: analyzer.last_ts,
        status,
        broke_at: outcome.broke_at,
        error: outcome.error.as_deref(),
        damage: outcome.damage,
        capture_loss: report.capture_loss,
        dropped,
    };
    events.push_break(name, &record, &files)?;
    described.write(Described::Events, events.table.finish()?, first_ts)?;
    write_connections(&report, first_ts, name, described)?;
    write_priorities(&analyzer, name, described)?;
    let rest = CommandRecord::all(name, &analyzer);
    push_commands(&rest, &mut commands, &analyzer, described)?;
    described.write(Described::Commands, commands.finish()?, first_ts)?;
    let mut table = Table::new(&capture_schema().specs());
    capture_schema().push(&mut table, &record);
    described.write(Described::Captures, table.finish()?, first_ts)?;
    Ok(DescribedCapture {
        status,
        first_ts,
        dropped,
        path: display,
    })
}

fn write_connections(
    report: &Report<'_>,
    first_ts: Option<u64>,
    name: &str,
    out: &mut dyn DescribedSink,
) -> anyhow::Result<()> {
    connection_batches(report, name, BATCH_ROWS, |batch| -> anyhow::Result<()> {
        out.write(Described::Connections, batch, first_ts)
    })
}

/// Appends command rows to `table`, writing a record batch whenever it has
/// [`BATCH_ROWS`].
fn push_commands(
    rows: &[CommandRecord<'_>],
    table: &mut Table,
    analyzer: &Analyzer,
    out: &mut dyn DescribedSink,
) -> anyhow::Result<()> {
    let schema = command_schema();
    for row in rows {
        schema.push(table, row);
        if table.rows() >= BATCH_ROWS {
            out.write(Described::Commands, table.finish()?, analyzer.first_ts)?;
        }
    }
    Ok(())
}

fn write_priorities(
    analyzer: &Analyzer,
    name: &str,
    out: &mut dyn DescribedSink,
) -> anyhow::Result<()> {
    let rows = crate::report::priorities::rows(analyzer);
    // After the rows it reads: a schema's columns read rows of one lifetime.
    let schema = priority_schema();
    let mut table = Table::new(&schema.specs());
    for row in &rows {
        schema.push(&mut table, &PriorityRecord { capture: name, row });
    }
    out.write(Described::Priorities, table.finish()?, analyzer.first_ts)
}
