//! `rdmadump._rdmadump`: the extension module under the `rdmadump` package. It takes the
//! command line's arguments, built by the package from its keywords, runs the library's
//! `commands::api`, and hands Arrow data to pyarrow through the Arrow PyCapsule interface
//! (pyarrow's public constructors, no private import), with the GIL released while the
//! library reads.

use std::sync::Mutex;
use std::time::Duration;

use arrow_array::ffi::{FFI_ArrowSchema, to_ffi};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchIterator, StructArray};
use arrow_schema::SchemaRef;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList};

mod report;

use rdmadump::capture::InMemory;
use rdmadump::commands::api::{self, Analyzed, ApiError, Next, PacketStream};

/// How long a wait for the library lasts before Python's signals are checked: short
/// enough that Ctrl-C feels immediate.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Rows of a batch handed to pyarrow: importing a batch costs per column (300 of them)
/// whatever its length, which made small batches cost as much as their decoding.
const GATHER_ROWS: usize = 8192;

/// The package's own exception (rdmadump/_errors.py) for `err`.
fn to_py(py: Python<'_>, err: ApiError) -> PyErr {
    let built = (|| -> PyResult<PyErr> {
        let errors = py.import("rdmadump._errors")?;
        let kwargs = PyDict::new(py);
        let class = match &err {
            ApiError::Usage(message) => {
                // clap's first line says it; the rest is its usage text for a terminal.
                let line = message.lines().next().unwrap_or_default();
                let line = line.strip_prefix("error: ").unwrap_or(line);
                return Ok(PyValueError::new_err(line.to_string()));
            }
            ApiError::Filter(filter) => {
                kwargs.set_item("column", filter.column)?;
                kwargs.set_item("expression", &filter.text)?;
                errors.getattr("FilterError")?
            }
            ApiError::Capture { path, offset, .. } => {
                kwargs.set_item("path", path)?;
                kwargs.set_item("offset", *offset)?;
                errors.getattr("CaptureError")?
            }
            ApiError::Other(_) => errors.getattr("Error")?,
        };
        let instance = class.call((err.to_string(),), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    })();
    // The package's module cannot be missing from under its own extension; if it is,
    // say what failed rather than hide it.
    built.unwrap_or_else(|import| PyRuntimeError::new_err(format!("{err} ({import})")))
}

/// A schema offered through the Arrow PyCapsule interface, which `pyarrow.schema` takes.
#[pyclass(module = "rdmadump._rdmadump", frozen)]
struct SchemaExport(SchemaRef);

#[pymethods]
impl SchemaExport {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.0.as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }
}

/// A record batch offered through the Arrow PyCapsule interface, which
/// `pyarrow.record_batch` takes.
#[pyclass(module = "rdmadump._rdmadump", frozen)]
struct BatchExport(RecordBatch);

#[pymethods]
impl BatchExport {
    /// The batch as it is: a schema asked for is a cast the caller's library makes.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let data = StructArray::from(self.0.clone()).into_data();
        let (array, schema) = to_ffi(&data).map_err(|e| PyValueError::new_err(e.to_string()))?;
        // The capsules own the structs: what pyarrow moves out it leaves released, and
        // what it does not is released when the capsule goes.
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }
}

/// Record batches offered as one stream through the Arrow PyCapsule interface, which
/// `pyarrow.RecordBatchReader.from_stream` takes.
#[pyclass(module = "rdmadump._rdmadump", frozen)]
struct StreamExport {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

#[pymethods]
impl StreamExport {
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches = self.batches.clone().into_iter().map(Ok);
        let reader = RecordBatchIterator::new(batches, self.schema.clone());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

/// `batch` as a `pyarrow.RecordBatch`: pyarrow takes over the buffers, nothing is copied.
fn batch_to_py(py: Python<'_>, batch: RecordBatch) -> PyResult<Py<PyAny>> {
    let pyarrow = py.import("pyarrow")?;
    let imported = pyarrow.call_method1("record_batch", (BatchExport(batch),))?;
    Ok(imported.unbind())
}

fn schema_to_py(py: Python<'_>, schema: &SchemaRef) -> PyResult<Py<PyAny>> {
    let pyarrow = py.import("pyarrow")?;
    let imported = pyarrow.call_method1("schema", (SchemaExport(schema.clone()),))?;
    Ok(imported.unbind())
}

fn table_to_py(
    py: Python<'_>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Py<PyAny>> {
    let batches = batches.into_iter().filter(|b| b.num_rows() > 0).collect();
    let stream = StreamExport { schema, batches };
    let pyarrow = py.import("pyarrow")?;
    let reader = pyarrow
        .getattr("RecordBatchReader")?
        .call_method1("from_stream", (stream,))?;
    Ok(reader.call_method0("read_all")?.unbind())
}

/// Waits for `work`, run on a thread of its own, without the GIL, checking Python's
/// signals in between: Ctrl-C raises KeyboardInterrupt at once. The thread is left to end
/// on its own then; what it makes is dropped.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (send, receive) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("rdmadump".into())
        .spawn(move || {
            let _ = send.send(work());
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let mut receive = receive;
    loop {
        // Moved in and out: a receiver may not be shared with the thread that waits.
        let (got, back) = py.detach(move || (receive.recv_timeout(SIGNAL_CHECK), receive));
        receive = back;
        match got {
            Ok(done) => return Ok(done),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the rdmadump thread panicked"));
            }
        }
    }
}

/// The packets table, one `pyarrow.RecordBatch` at a time, as an iterator.
#[pyclass(module = "rdmadump._rdmadump")]
struct PacketBatches {
    stream: Mutex<Gathering>,
    schema: Py<PyAny>,
}

/// The library's stream, and an error that came after rows still to be handed over.
struct Gathering {
    stream: PacketStream,
    deferred: Option<ApiError>,
}

#[pymethods]
impl PacketBatches {
    /// The `pyarrow.Schema` of every batch.
    #[getter]
    fn schema(&self, py: Python<'_>) -> Py<PyAny> {
        self.schema.clone_ref(py)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        // Between two batches too: when the library keeps ahead, no wait ever times out.
        py.check_signals()?;
        let mut guard = self
            .stream
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a reader of this stream panicked"))?;
        let gathering: &mut Gathering = &mut guard;
        if let Some(err) = gathering.deferred.take() {
            return Err(to_py(py, err));
        }
        let mut pending: Vec<RecordBatch> = Vec::new();
        let mut rows = 0;
        while rows < GATHER_ROWS {
            // Decoding goes on in the library's thread; only the wait is here.
            match py.detach(|| gathering.stream.next(SIGNAL_CHECK)) {
                Ok(Next::Batch(batch)) => {
                    rows += batch.num_rows();
                    pending.push(batch);
                }
                Ok(Next::End) => break,
                Ok(Next::Waiting) => py.check_signals()?,
                Err(err) if pending.is_empty() => return Err(to_py(py, err)),
                // The rows before the error first; the error on the next call.
                Err(err) => {
                    gathering.deferred = Some(err);
                    break;
                }
            }
        }
        let schema = gathering.stream.schema().clone();
        let batch = match pending.len() {
            0 => return Ok(None),
            1 => pending.pop().expect("one batch"),
            _ => py
                .detach(|| arrow_select::concat::concat_batches(&schema, &pending))
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        };
        batch_to_py(py, batch).map(Some)
    }
}

/// The bytes of a Python object that nothing writes to (`bytes`, a `pyarrow.Buffer` of an
/// array), read in place: the reference held keeps them alive. (The buffer protocol is not
/// in the stable ABI before Python 3.11.)
struct Immutable {
    _owner: Py<PyAny>,
    start: *const u8,
    len: usize,
}

// SAFETY: nothing writes the bytes, which live as long as `_owner`, released through
// pyo3's pool of deferred references when dropped on a thread without the GIL.
unsafe impl Send for Immutable {}
unsafe impl Sync for Immutable {}

impl AsRef<[u8]> for Immutable {
    fn as_ref(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: see the type: `start` and `len` describe bytes that `_owner` keeps.
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
}

/// A capture handed over in memory: `bytes`, or a `pyarrow.Buffer` (what Spark's
/// `binaryFile` content is in `mapInArrow`), read where it lies. The package hands over
/// only buffers that nothing writes to: it turns the others (a `bytearray`, a
/// `memoryview`, a buffer a caller may write) into `bytes` first.
fn in_memory(data: Option<&Bound<'_, PyAny>>) -> PyResult<Option<InMemory>> {
    let Some(data) = data else {
        return Ok(None);
    };
    let (start, len) = if let Ok(bytes) = data.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        (bytes.as_ptr(), bytes.len())
    } else if data.hasattr("address")? && data.hasattr("size")? {
        let address: usize = data.getattr("address")?.extract()?;
        (address as *const u8, data.getattr("size")?.extract()?)
    } else {
        return Err(PyTypeError::new_err(
            "a capture in memory is bytes or a pyarrow.Buffer",
        ));
    };
    Ok(Some(InMemory::new(Immutable {
        _owner: data.clone().unbind(),
        start,
        len,
    })))
}

fn batches(py: Python<'_>, stream: PacketStream) -> PyResult<PacketBatches> {
    let schema = schema_to_py(py, stream.schema())?;
    Ok(PacketBatches {
        stream: Mutex::new(Gathering {
            stream,
            deferred: None,
        }),
        schema,
    })
}

/// `read`'s input arguments (files after `--`), the columns to keep (all if empty), and
/// the one capture's bytes when the file argument only names it.
#[pyfunction]
#[pyo3(signature = (args, columns, data=None))]
fn packets(
    py: Python<'_>,
    args: Vec<String>,
    columns: Vec<String>,
    data: Option<&Bound<'_, PyAny>>,
) -> PyResult<PacketBatches> {
    let stream = PacketStream::open(&args, &columns, in_memory(data)?).map_err(|e| to_py(py, e))?;
    batches(py, stream)
}

/// `rdmadump export ARGS` of one capture, its files written under its `-o` by the
/// command's own writer, without the GIL.
#[pyfunction]
#[pyo3(signature = (args, data=None))]
fn export_files(
    py: Python<'_>,
    args: Vec<String>,
    data: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let data = in_memory(data)?;
    interruptible(py, move || api::export_files(&args, data))?.map_err(|e| to_py(py, e))
}

/// Every other table `rdmadump export ARGS` writes for its one capture, as a list of
/// (dataset, `pyarrow.Table`).
#[pyfunction]
#[pyo3(signature = (args, data=None))]
fn describe(
    py: Python<'_>,
    args: Vec<String>,
    data: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyList>> {
    let data = in_memory(data)?;
    let tables =
        interruptible(py, move || api::describe(&args, data))?.map_err(|e| to_py(py, e))?;
    let list = PyList::empty(py);
    for (name, (schema, batches)) in tables {
        list.append((name, table_to_py(py, schema, batches)?))?;
    }
    Ok(list.unbind())
}

/// A finished analysis: its report as JSON, its tables, its HTML page.
#[pyclass(module = "rdmadump._rdmadump")]
struct Analysis {
    analyzed: Mutex<Analyzed>,
}

impl Analysis {
    fn with<T>(&self, f: impl FnOnce(&Analyzed) -> T) -> PyResult<T> {
        let analyzed = self
            .analyzed
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a reader of this analysis panicked"))?;
        Ok(f(&analyzed))
    }
}

#[pymethods]
impl Analysis {
    /// The document `analyze --json` writes, as the dict `json.loads` would make of it.
    fn report(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with(|a| a.with_report(|r| report::to_python(py, r).map(Bound::unbind)))?
    }

    /// The page `analyze --html` writes.
    fn html(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.with(|a| a.html()))?
            .map_err(|e| to_py(py, e))
    }

    /// export's `connections` table, as a `pyarrow.Table`.
    fn connections(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let (schema, batches) = self.with(|a| a.connections())?.map_err(|e| to_py(py, e))?;
        table_to_py(py, schema, batches)
    }

    /// export's `events` table of each capture, as a `pyarrow.Table`: a pass of its own
    /// over the captures, without the GIL.
    fn events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let args = self.with(|a| a.args().to_vec())?;
        let (schema, batches) =
            interruptible(py, move || api::analysis_events(&args))?.map_err(|e| to_py(py, e))?;
        table_to_py(py, schema, batches)
    }
}

/// `analyze`'s arguments, as on its command line.
#[pyfunction]
fn analyze(py: Python<'_>, args: Vec<String>) -> PyResult<Analysis> {
    let analyzed = interruptible(py, move || Analyzed::run(&args))?.map_err(|e| to_py(py, e))?;
    Ok(Analysis {
        analyzed: Mutex::new(analyzed),
    })
}

/// The document `info --json` writes for one file.
#[pyfunction]
fn info(py: Python<'_>, path: std::path::PathBuf) -> PyResult<String> {
    interruptible(py, move || api::info(&path))?.map_err(|e| to_py(py, e))
}

/// The key-value metadata of each Parquet file `rdmadump export` writes of `dataset` for
/// `capture`, as (key, value) pairs.
#[pyfunction]
fn file_metadata(dataset: &str, capture: &str) -> Vec<(&'static str, String)> {
    api::file_metadata(dataset, capture)
}

#[pymodule]
fn _rdmadump(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(packets, m)?)?;
    m.add_function(wrap_pyfunction!(export_files, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(file_metadata, m)?)?;
    m.add_class::<PacketBatches>()?;
    m.add_class::<Analysis>()?;
    Ok(())
}
