"""rdmadump.spark: a fleet's captures decoded by Spark's executors into one dataset.

>>> import rdmadump.spark
>>> rdmadump.spark.export(spark, ["s3a://fabric/2026-11/"], "s3a://fabric/datasets/2026-11")

or, for ``spark-submit`` (which takes a file, not a module)::

    spark-submit "$(python -c 'import rdmadump.spark as s; print(s.__file__)')" \\
        export s3a://fabric/2026-11/ s3a://fabric/datasets/2026-11

Each capture is decoded whole by one task: a pcap has no sync marker from which a byte
range could be read without reading what comes before it. The tables are those of
``rdmadump export`` with its columns, partitioned by ``capture_date`` as it partitions
them, so that a query reads either dataset the same way (docs/export.md).
"""

import argparse
from concurrent.futures import ThreadPoolExecutor
import datetime as _dt
import io
import os
import posixpath
import re
import sys
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import pyarrow as pa

from . import _options

__all__ = ["export", "main"]

# The tables besides packets, in the order export writes them; each describes a whole
# capture whatever the selection.
DESCRIBED = ("connections", "events", "priorities", "commands", "captures")
DATASETS = ("packets",) + DESCRIBED

# A path with a scheme (s3a://, hdfs://, gs://, file:) is read by Spark's binaryFile source;
# a plain path is opened by the executor itself, which must see it.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

# Spark has no unsigned integer: export's UInt64 columns are DECIMAL(20,0) in Spark, which
# is also what Spark reads export's own files as.
_UNSIGNED = pa.decimal128(20, 0)

# How the staged rows of the described tables travel: one Arrow IPC stream per batch.
_STAGED = "capture string, dataset string, capture_date string, rows binary"

# Session settings for the job, put back after it: Spark writes TIMESTAMP_MICROS (as
# export does) rather than INT96, and hands mapInArrow one capture's bytes per batch, so
# that a batch never holds several large files.
_SESSION = {
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "1",
}


def _is_uri(path: str) -> bool:
    # One letter before the colon is a Windows drive, not a scheme.
    return bool(_URI.match(path)) and not re.match(r"^[A-Za-z]:[\\/]", path)


def _local_files(path: str) -> List[str]:
    """A local path as the capture files it names: a directory gives the files under it
    (hidden ones left out, as Spark leaves them out), anything else itself."""
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        return [path]
    found = []
    for directory, subdirectories, files in os.walk(path):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".", "_")))
        found += [os.path.join(directory, f) for f in sorted(files) if not f.startswith((".", "_"))]
    return found


def _capture_name(path: str) -> str:
    """The capture column: the file's name, as export names a capture."""
    return posixpath.basename(path.rstrip("/")) if _is_uri(path) else os.path.basename(path)


def _spark_type(arrow: pa.DataType) -> str:
    """The Spark SQL type of one of export's Arrow types."""
    if pa.types.is_list(arrow):
        return f"array<{_spark_type(arrow.value_type)}>"
    if arrow == pa.uint64():
        return "decimal(20,0)"
    if pa.types.is_timestamp(arrow):
        return "timestamp"
    names = {pa.int64(): "bigint", pa.bool_(): "boolean", pa.string(): "string"}
    if arrow not in names:
        raise TypeError(f"no Spark type for the Arrow type {arrow}")
    return names[arrow]


def _spark_schema(schema: pa.Schema) -> str:
    columns = [f"`{f.name}` {_spark_type(f.type)}" for f in schema]
    return ", ".join(columns + ["capture_date string"])


def _for_spark(batch: pa.RecordBatch, capture_date: Optional[str]) -> pa.RecordBatch:
    """A batch of export's rows as Spark takes them: unsigned columns as decimals, and the
    partition column."""
    columns = [
        column.cast(_UNSIGNED) if column.type == pa.uint64() else column
        for column in batch.columns
    ]
    columns.append(pa.array([capture_date] * batch.num_rows, pa.string()))
    names = batch.schema.names + ["capture_date"]
    return pa.RecordBatch.from_arrays(columns, names=names)


def _capture_date(captures: pa.Table) -> Optional[str]:
    """export's partition: the UTC date of the capture's first frame (none without one)."""
    first = captures.column("first_ts_ns")[0].as_py() if captures.num_rows else None
    if first is None:
        return None
    return _dt.datetime.fromtimestamp(first // 1_000_000_000, _dt.timezone.utc).date().isoformat()


def _failed(name: str, path: str, size: Optional[int], error: str) -> pa.Table:
    """The captures row of a capture that could not even be given to the decoder."""
    from . import _rdmadump

    # The schema from an empty capture, so that it is the one export writes.
    tables = dict(_rdmadump.describe(["--name", name, "--", path], b""))
    schema = tables["captures"].schema
    row: Dict[str, Any] = {f.name: None for f in schema}
    row.update(capture=name, path=path, size_bytes=size, packets=0, status="failed")
    row.update(complete=False, error=error, skipped_blocks=0, skipped_bytes=0)
    row.update({f.name: 0 for f in schema if f.name.startswith("dropped_")})
    return pa.Table.from_pylist([row], schema=schema)


def _ipc(batch: pa.RecordBatch) -> bytes:
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue()


def _unipc(data: bytes) -> Iterator[pa.RecordBatch]:
    yield from pa.ipc.open_stream(pa.py_buffer(data))


def _captures_of(batches: Iterable[pa.RecordBatch]) -> Iterator[Tuple[str, str, Any]]:
    """(name, path, content) of each capture in mapInArrow's input: content is None for a
    path the executor opens itself, else a pyarrow.Buffer read in place."""
    for batch in batches:
        names = batch.column("name")
        paths = batch.column("path")
        contents = batch.column("content")
        for i in range(batch.num_rows):
            content = contents[i]
            yield (
                names[i].as_py(),
                paths[i].as_py(),
                content.as_buffer() if content.is_valid else None,
            )


def _describe(args: List[str]) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """mapInArrow's function of the first pass: each capture's described tables, staged."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from . import _rdmadump

        for name, path, content in _captures_of(batches):
            try:
                tables = dict(_rdmadump.describe(args + ["--name", name, "--", path], content))
            except Exception as err:  # noqa: BLE001 - the job goes on: the error is a row
                size = content.size if content is not None else None
                tables = {"captures": _failed(name, path, size, f"{type(err).__name__}: {err}")}
            date = _capture_date(tables["captures"])
            for dataset, table in tables.items():
                for batch in table.to_batches():
                    row = {
                        "capture": [name],
                        "dataset": [dataset],
                        "capture_date": [date],
                        "rows": [_ipc(batch)],
                    }
                    yield pa.RecordBatch.from_pydict(row)

    return run


def _unstage() -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """mapInArrow's function that turns one dataset's staged rows back into its columns."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for staged in batches:
            dates = staged.column("capture_date")
            rows = staged.column("rows")
            for i in range(staged.num_rows):
                for batch in _unipc(rows[i].as_py()):
                    yield _for_spark(batch, dates[i].as_py())

    return run


def _packets(
    args: List[str], dates: Dict[str, Optional[str]]
) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """mapInArrow's function of the second pass: each capture's packets table."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from . import CaptureError, _rdmadump

        for name, path, content in _captures_of(batches):
            stream = _rdmadump.export_packets(args + ["--name", name, "--", path], content)
            try:
                for batch in stream:
                    yield _for_spark(batch, dates[name])
            except CaptureError:
                # Damaged: the rows before the damage are kept, as export keeps them; the
                # captures table says where it broke.
                pass

    return run


def _schemas() -> Dict[str, pa.Schema]:
    """Every dataset's Arrow schema, as export writes it."""
    from . import _rdmadump

    tables = dict(_rdmadump.describe(["--", "schema"], b""))
    schemas = {dataset: tables[dataset].schema for dataset in DESCRIBED}
    schemas["packets"] = _rdmadump.export_packets(["--", "schema"], b"").schema
    return schemas


def _existing(spark: Any, out: str) -> List[str]:
    """The datasets already under `out`."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    root = jvm.org.apache.hadoop.fs.Path(out)
    fs = root.getFileSystem(conf)
    return [d for d in DATASETS if fs.exists(jvm.org.apache.hadoop.fs.Path(root, d))]


def export(
    spark: Any,
    paths: Sequence[str],
    out: str,
    *,
    filter: Optional[str] = None,
    replace: bool = False,
    **options: Any,
) -> Any:
    """Decodes captures on Spark's executors into ``rdmadump export``'s datasets under ``out``.

    ``paths`` are capture files or directories of them: local paths, which every executor
    must see (a shared file system), or anything Spark's ``binaryFile`` source reads
    (``s3a://``, ``hdfs://``, ``gs://``, ``file:``; directories and globs included). One
    task decodes one capture whole. Every capture needs its own file name, which names it
    in the ``capture`` column.

    ``out`` gets the ``packets``, ``connections``, ``events``, ``priorities``,
    ``commands`` and ``captures`` tables as Parquet, with export's columns (its UInt64
    columns as DECIMAL(20,0), as Spark reads export's own files), partitioned by
    ``capture_date``. A capture that cannot be read is a ``captures`` row with its status
    and error, and the others go on. ``out`` must not hold these datasets already, unless
    ``replace`` is true: they are then written again, whole.

    ``filter`` is the ``-Y`` language and, like ``since``, ``until``, ``qp`` and ``kind``,
    selects the packets only; every other keyword is the ``export`` option of the same
    name (``pmtu=4096``, ``roce_port=4791``...). ``threads`` is each task's, by default
    ``spark.task.cpus``.

    Returns the ``captures`` table as a DataFrame.
    """
    from . import _rdmadump

    if filter is not None:
        options["filter"] = filter
    options.setdefault("threads", int(spark.sparkContext.getConf().get("spark.task.cpus", "1")))
    args = _options(options)
    # Options are checked here, before any task: an empty capture in memory reads nothing.
    _rdmadump.describe(args + ["--", "check"], b"")
    out = out.rstrip("/")

    local = [f for p in paths if not _is_uri(os.fspath(p)) for f in _local_files(os.fspath(p))]
    remote = [os.fspath(p) for p in paths if _is_uri(os.fspath(p))]
    inputs = _inputs(spark, local, remote)
    names = [name for name, _ in inputs.listed]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise ValueError(
            f"several captures are named {', '.join(clashes)}: a capture is named by its"
            " file name, and two of one name would read as one"
        )
    if not names:
        raise ValueError("no capture file given")
    existing = _existing(spark, out)
    if existing and not replace:
        raise FileExistsError(
            f"{out} holds {', '.join(existing)} already (replace=True writes them again)"
        )
    mode = "overwrite" if replace else "errorifexists"

    saved = {key: spark.conf.get(key, None) for key in _SESSION}
    for key, value in _SESSION.items():
        spark.conf.set(key, value)
    staged = None
    try:
        from pyspark import StorageLevel
        from pyspark.sql import functions as F

        schemas = _schemas()
        staged = inputs.frame(None).mapInArrow(_describe(args), _STAGED)
        staged = staged.persist(StorageLevel.MEMORY_AND_DISK)
        dates: Dict[str, Optional[str]] = {}
        readable = set()
        for row in staged.where(F.col("dataset") == "captures").collect():
            dates[row["capture"]] = row["capture_date"]
            for captures in _unipc(row["rows"]):
                if captures.column("status")[0].as_py() != "failed":
                    readable.add(row["capture"])
        frames = {
            "packets": inputs.frame(readable).mapInArrow(
                _packets(args, dates), _spark_schema(schemas["packets"])
            )
        }
        for dataset in DESCRIBED:
            rows = staged.where(F.col("dataset") == dataset).select("capture_date", "rows")
            frames[dataset] = rows.mapInArrow(_unstage(), _spark_schema(schemas[dataset]))
        # Six jobs side by side: the small tables' tasks fill the slots the packets' leave.
        with ThreadPoolExecutor(len(frames)) as pool:
            writes = [
                pool.submit(_write, frame, f"{out}/{dataset}", mode)
                for dataset, frame in frames.items()
            ]
            for write in writes:
                write.result()
    finally:
        if staged is not None:
            staged.unpersist()
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
    return spark.read.parquet(f"{out}/captures")


def _write(frame: Any, path: str, mode: str) -> None:
    frame.write.mode(mode).partitionBy("capture_date").option("compression", "zstd").parquet(path)


class _Inputs:
    """The captures as DataFrames of (name, path, content), one capture per task."""

    def __init__(self, spark: Any, local: List[str], remote: List[str], listed: List[Tuple[str, str]]):
        self.spark = spark
        self.local = local
        self.remote = remote
        # (name, path) of every capture, local ones first.
        self.listed = listed

    def frame(self, only: Optional[set]) -> Any:
        """The captures (those named in `only`, if given) with their bytes when remote."""
        from pyspark.sql import functions as F

        schema = "name string, path string, content binary"
        local = [(_capture_name(p), p, None) for p in self.local]
        local = [row for row in local if only is None or row[0] in only]
        frame = self.spark.sparkContext.parallelize(local, max(len(local), 1)).toDF(schema)
        if not self.remote:
            return frame
        files = self.spark.read.format("binaryFile").load(self.remote)
        files = files.select(
            F.element_at(F.split("path", "/"), -1).alias("name"), "path", "content"
        )
        if only is not None:
            files = files.where(F.col("name").isin(sorted(only)))
        return frame.unionByName(files)


def _inputs(spark: Any, local: List[str], remote: List[str]) -> _Inputs:
    listed = [(_capture_name(p), p) for p in local]
    if remote:
        # The listing only: the bytes are read by the tasks.
        found = spark.read.format("binaryFile").load(remote).select("path").collect()
        listed += [(_capture_name(row["path"]), row["path"]) for row in found]
    return _Inputs(spark, local, remote, listed)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m rdmadump.spark export PATHS... OUT``, or the same through spark-submit."""
    parser = argparse.ArgumentParser(
        prog="python -m rdmadump.spark",
        description="Decode RDMA captures on Spark into rdmadump export's Parquet datasets.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("export", help="export captures into one dataset")
    command.add_argument("paths", nargs="+", metavar="PATH", help="capture files or folders, local or URIs")
    command.add_argument("out", metavar="OUT", help="the dataset's folder (local or a URI)")
    command.add_argument("-Y", "--filter", help="only packets matching this filter (-Y language)")
    command.add_argument("--replace", action="store_true", help="write the datasets again")
    command.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an export option, as pmtu=4096 (a flag: NAME=true); may repeat",
    )
    args = parser.parse_args(argv)
    options: Dict[str, Any] = {}
    for item in args.option:
        name, _, value = item.partition("=")
        options[name.replace("-", "_")] = True if value.lower() == "true" else value

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("rdmadump export").getOrCreate()
    captures = export(
        spark, args.paths, args.out, filter=args.filter, replace=args.replace, **options
    )
    failed = captures.where("status IN ('damaged', 'failed')").select("path", "status", "error").collect()
    for row in failed:
        print(f"rdmadump: {row['path']}: {row['status']}: {row['error']}", file=sys.stderr)
    print(f"rdmadump: {captures.count()} captures exported to {args.out}", file=sys.stderr)
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
