//! One capture's files in one dataset directory: written under hidden temporary names, split
//! when a file passes its size limit, and renamed into place only when the whole capture is
//! done, so that engines scanning the directory (which skip names starting with `.`) never
//! see half a file or half a capture. Each capture adds its own files; nothing already in
//! the directory is rewritten, so one process per capture can export into one directory.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use super::columns::{ColumnSpec, ColumnType, Values, schema_of};
use crate::output::atomic::Temporary;
use crate::output::time::UtcDate;

/// The version of the three datasets' columns, in every file's key-value metadata under
/// `schema_version`. It changes when a column is renamed, retyped or removed.
pub const SCHEMA_VERSION: &str = "1";

/// How files are grouped into directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    /// `capture_date=YYYY-MM-DD/`, the UTC date of the capture's first frame, Hive style:
    /// DuckDB (`hive_partitioning`), Spark and Trino prune on it.
    CaptureDate,
    /// All files in the dataset's directory.
    None,
}

#[derive(Debug, Clone)]
pub struct DatasetOptions {
    /// A file is closed, and the next one begun, once it passes this size.
    pub max_file_bytes: u64,
    pub partitioning: Partitioning,
    /// Replace the files of an earlier export of the same capture instead of refusing.
    pub replace: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: {source}")]
    Parquet { path: PathBuf, source: ParquetError },
    #[error(
        "{0} exists: this capture was exported into this directory before (--replace exports it again)"
    )]
    Exists(PathBuf),
    #[error("building a record batch: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

struct OpenFile {
    writer: ArrowWriter<File>,
    temporary: Temporary,
}

/// One capture's part of one dataset.
pub struct DatasetWriter {
    root: PathBuf,
    capture: String,
    schema: SchemaRef,
    properties: WriterProperties,
    options: DatasetOptions,
    directory: Option<PathBuf>,
    open: Option<OpenFile>,
    /// Finished files, under their temporary names until the commit; dropped, they are
    /// removed, so a capture that was not committed leaves nothing behind.
    finished: Vec<Temporary>,
    rows: u64,
}

impl DatasetWriter {
    /// `root` is the dataset's directory (`DIR/packets`); `capture` names the capture
    /// in file names and metadata.
    pub fn new(
        root: PathBuf,
        dataset: &str,
        capture: &str,
        columns: &[ColumnSpec],
        options: DatasetOptions,
    ) -> Self {
        let metadata = vec![
            KeyValue::new("schema_version".to_string(), SCHEMA_VERSION.to_string()),
            KeyValue::new("rdmadump.dataset".to_string(), dataset.to_string()),
            KeyValue::new("rdmadump.capture".to_string(), capture.to_string()),
            KeyValue::new(
                "rdmadump.version".to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
        ];
        let mut properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            // Row groups are flushed as they fill, which bounds the memory a file in
            // progress holds whatever the capture's size.
            .set_max_row_group_bytes(Some(64 << 20))
            .set_key_value_metadata(Some(metadata))
            .set_created_by(format!("rdmadump {}", env!("CARGO_PKG_VERSION")));
        // Dictionary-encoding a column of distinct values was a fifth of the export's time
        // on the benchmark capture (frame, ts_ns and the CRCs), for larger files. Integers
        // that repeat are delta-packed too: hashing each into a dictionary cost 5% of the
        // export's instructions, and the files came out 2% smaller, not larger.
        for column in columns {
            let path = ColumnPath::from(column.name.as_str());
            let integer = matches!(column.ty, ColumnType::Int | ColumnType::UInt);
            properties = match column.values {
                Values::Repeating if integer => properties
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED),
                Values::Repeating => properties,
                Values::Unique => properties.set_column_dictionary_enabled(path, false),
                Values::Rising => properties
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED),
            };
        }
        DatasetWriter {
            root,
            capture: file_safe(capture),
            schema: schema_of(columns),
            properties: properties.build(),
            options,
            directory: None,
            open: None,
            finished: Vec::new(),
            rows: 0,
        }
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes a batch; `first_ts_ns` (the capture's first frame) places the files in their
    /// partition when the first batch comes.
    pub fn write(
        &mut self,
        batch: &RecordBatch,
        first_ts_ns: Option<u64>,
    ) -> Result<(), ExportError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.open.is_none() {
            self.begin_file(first_ts_ns)?;
        }
        let Some(open) = &mut self.open else {
            return Ok(());
        };
        open.writer
            .write(batch)
            .map_err(|source| ExportError::Parquet {
                path: open.temporary.path().to_path_buf(),
                source,
            })?;
        self.rows += batch.num_rows() as u64;
        let size = open.writer.bytes_written() as u64 + open.writer.in_progress_size() as u64;
        if size >= self.options.max_file_bytes {
            self.end_file()?;
        }
        Ok(())
    }

    fn begin_file(&mut self, first_ts_ns: Option<u64>) -> Result<(), ExportError> {
        let directory = match &self.directory {
            Some(directory) => directory.clone(),
            None => {
                let directory = match self.options.partitioning {
                    Partitioning::CaptureDate => self.root.join(match first_ts_ns {
                        Some(ns) => format!("capture_date={}", UtcDate(ns)),
                        None => "capture_date=__HIVE_DEFAULT_PARTITION__".to_string(),
                    }),
                    Partitioning::None => self.root.clone(),
                };
                fs::create_dir_all(&directory).map_err(io_error(&directory))?;
                self.directory = Some(directory.clone());
                directory
            }
        };
        let part = self.finished.len();
        let target = directory.join(self.file_name(part));
        let (file, temporary) = Temporary::create(&target).map_err(io_error(&target))?;
        let writer = ArrowWriter::try_new(file, self.schema.clone(), Some(self.properties.clone()))
            .map_err(|source| ExportError::Parquet {
                path: temporary.path().to_path_buf(),
                source,
            })?;
        self.open = Some(OpenFile { writer, temporary });
        Ok(())
    }

    fn file_name(&self, part: usize) -> String {
        format!("{}-{part:05}.parquet", self.capture)
    }

    fn end_file(&mut self) -> Result<(), ExportError> {
        if let Some(open) = self.open.take() {
            open.writer.close().map_err(|source| ExportError::Parquet {
                path: open.temporary.path().to_path_buf(),
                source,
            })?;
            self.finished.push(open.temporary);
        }
        Ok(())
    }

    /// Closes the last file. Nothing is visible until [`DatasetWriter::commit`].
    pub fn finish(&mut self) -> Result<(), ExportError> {
        self.end_file()
    }

    /// Without `replace`, the files of an earlier export of this capture, in any partition:
    /// a capture exported again, even under another date, would count its rows twice.
    pub fn conflicts(&self) -> Vec<PathBuf> {
        if self.options.replace {
            return Vec::new();
        }
        self.committed_files()
    }

    /// The capture's files in this dataset, in every partition; temporary files that a
    /// killed run of the same capture left behind are removed on the way.
    fn committed_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut directories = vec![self.root.clone()];
        while let Some(directory) = directories.pop() {
            let Ok(entries) = fs::read_dir(&directory) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    directories.push(path);
                    continue;
                }
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if self.is_part_name(&name) {
                    files.push(path);
                } else if let Some(pid) = self.temporary_owner(&name)
                    && !process_is_running(pid)
                {
                    let _ = fs::remove_file(&path);
                }
            }
        }
        files.sort();
        files
    }

    /// `NAME-00000.parquet`: a part of this capture, and of no other, since the part
    /// number's five digits and the extension cannot end another capture's name.
    fn is_part_name(&self, name: &str) -> bool {
        name.strip_prefix(self.capture.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix(".parquet"))
            .is_some_and(|part| part.len() == 5 && part.bytes().all(|b| b.is_ascii_digit()))
    }

    /// The process that writes `name`, when it is one of this capture's temporary files
    /// (`.NAME-00000.parquet.rdmadump-PID[-N].tmp`).
    fn temporary_owner(&self, name: &str) -> Option<u32> {
        let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
        let (part, owner) = rest.rsplit_once(".rdmadump-")?;
        if !self.is_part_name(part) {
            return None;
        }
        owner.split('-').next()?.parse().ok()
    }

    /// The files closed and waiting for the commit.
    pub fn take_finished(&mut self) -> Result<Vec<Temporary>, ExportError> {
        self.end_file()?;
        Ok(std::mem::take(&mut self.finished))
    }

    /// After the files of [`DatasetWriter::take_finished`] are in place (`names`): with
    /// `replace`, removes every other file of an earlier export of this capture.
    pub fn remove_replaced(&self, names: &[PathBuf]) -> Result<(), ExportError> {
        if !self.options.replace {
            return Ok(());
        }
        for stale in self.committed_files() {
            if !names.contains(&stale) {
                fs::remove_file(&stale).map_err(io_error(&stale))?;
            }
        }
        Ok(())
    }
}

/// Renames every temporary file over its target, or none: when one rename fails, the
/// files already renamed are removed again and the rest stay temporary (and are removed
/// when dropped).
pub fn commit_all(temporaries: Vec<Temporary>) -> Result<Vec<PathBuf>, ExportError> {
    let mut names = Vec::with_capacity(temporaries.len());
    for temporary in temporaries {
        let target = temporary.target().to_path_buf();
        if let Err(source) = temporary.rename() {
            for done in &names {
                let _ = fs::remove_file(done);
            }
            return Err(ExportError::Io {
                path: target,
                source,
            });
        }
        names.push(target);
    }
    Ok(names)
}

/// Whether process `pid` still runs, so that its temporary files are not taken for an
/// earlier run's: where that cannot be told (no `/proc`), it is taken to run.
fn process_is_running(pid: u32) -> bool {
    let proc = Path::new("/proc");
    pid == std::process::id() || !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// A capture's name as it can appear in a file name. A name that had to be changed takes
/// a hash of itself, so that `a b.pcap` and `a_b.pcap` do not end up as one capture.
fn file_safe(name: &str) -> String {
    let safe = sanitised(name);
    if safe == name {
        return safe;
    }
    format!("{safe}-{:08x}", fnv1a(name.as_bytes()))
}

/// FNV-1a, 32 bits: stable across builds and platforms, unlike the standard hasher.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

fn sanitised(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match safe.trim_start_matches('.') {
        "" => "capture".to_string(),
        trimmed => trimmed.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::file_safe;

    #[test]
    fn file_names_are_safe_never_hidden_and_distinct() {
        assert!(file_safe("host 1/a.pcap").starts_with("host_1_a.pcap-"));
        assert!(file_safe(".hidden.pcap").starts_with("hidden.pcap-"));
        assert!(file_safe("").starts_with("capture-"));
        assert_eq!(file_safe("a_b.pcap"), "a_b.pcap");
        assert_ne!(file_safe("a b.pcap"), file_safe("a_b.pcap"));
        assert_ne!(file_safe("a b.pcap"), file_safe("a/b.pcap"));
    }
}
