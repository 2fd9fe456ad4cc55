"""rdmadump.spark: a fleet's captures decoded by Spark's executors into one dataset.

>>> import rdmadump.spark
>>> rdmadump.spark.export(spark, ["s3a://fabric/2026-11/"], "s3a://fabric/datasets/2026-11")

or, for ``spark-submit`` (which takes a file, not a module)::

    spark-submit "$(python -c 'import rdmadump.spark as s; print(s.__file__)')" \\
        export s3a://fabric/2026-11/ s3a://fabric/datasets/2026-11

Each capture is decoded whole by one task: a pcap has no sync marker from which a byte
range could be read without reading what comes before it. The task runs the library's
``export`` of the capture into a local directory of its own (one pass, export's own
writer), then publishes the files under ``out``: the dataset is what ``rdmadump export``
writes, file for file (docs/export.md).
Spark's own writer would take every value through a row of its own: on 300 columns that
was nineteen times slower than ``export``; pyarrow's writer, fed the package's batches,
took a decoding pass of its own and twice export's time to write.
"""

import argparse
import hashlib
import os
import posixpath
import re
import shutil
import sys
import tempfile
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import _options

__all__ = ["export", "main"]

# The tables besides packets, in the order export writes them; each describes a whole
# capture whatever the selection.
DESCRIBED = ("connections", "events", "priorities", "commands", "captures")
DATASETS = ("packets",) + DESCRIBED

# A path with a scheme (s3a://, hdfs://, gs://, file:) is read by Spark's binaryFile source;
# a plain path is opened by the executor itself, which must see it.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

# mapInArrow is handed one capture per batch, so that a batch never holds the bytes of
# several large files (the job sets it, and puts it back after).
_SESSION = {"spark.sql.execution.arrow.maxRecordsPerBatch": "1"}

# Bytes copied at a time to an object store.
_COPY_BYTES = 8 << 20

# What export names a capture's files by, when the name is safe in a path.
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


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
    """The Spark SQL type of one of the captures table's Arrow types."""
    names = {pa.int64(): "bigint", pa.bool_(): "boolean", pa.string(): "string"}
    if pa.types.is_timestamp(arrow):
        return "timestamp"
    if arrow not in names:
        raise TypeError(f"no Spark type for the Arrow type {arrow}")
    return names[arrow]


def _failed(name: str, path: str, size: Optional[int], error: str) -> pa.Table:
    """The captures row of a capture that could not even be given to the decoder."""
    from . import _rdmadump

    # The schema from an empty capture, so that it is the one export writes.
    tables = dict(_rdmadump.describe(["--name", name, "--", path], b""))
    schema = tables["captures"].schema
    row: Dict[str, Any] = {f.name: None for f in schema}
    row.update(capture=name, path=path, size_bytes=size, packets=0, status="failed")
    row.update(complete=False, error=error, skipped_blocks=0, skipped_bytes=0)
    row.update({f.name: 0 for f in schema if f.name.startswith(("dropped_", "capture_"))})
    return pa.Table.from_pylist([row], schema=schema)


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


def _file_system(out: str) -> Tuple[pafs.FileSystem, str]:
    """Where the executors write `out`, through pyarrow's file systems (local, S3, GCS,
    HDFS): Hadoop's s3a:// is S3."""
    if not _is_uri(out):
        return pafs.LocalFileSystem(), os.path.abspath(out)
    return pafs.FileSystem.from_uri(re.sub(r"^s3a://", "s3://", out))


def _staged_files(staged: str) -> List[str]:
    """The files an export wrote under `staged`, relative to it, the captures table's last:
    a capture with its captures row has all its files."""
    found = []
    for directory, _, names in os.walk(staged):
        found += [os.path.relpath(os.path.join(directory, n), staged) for n in names]
    return sorted(found, key=lambda f: (f.split(os.sep)[0] == "captures", f))


def _publish(fs: pafs.FileSystem, root: str, staged: str) -> None:
    """The files of `staged` put in their place under `root`. On a local file system each
    is moved under a hidden name beside its place (engines skip it), then renamed, as
    export does; an object store shows an object only once it is whole."""
    local = isinstance(fs, pafs.LocalFileSystem)
    for relative in _staged_files(staged):
        source = os.path.join(staged, relative)
        target = posixpath.join(root, *relative.split(os.sep))
        directory, name = posixpath.split(target)
        fs.create_dir(directory, recursive=True)
        if local:
            hidden = posixpath.join(directory, f".{name}.rdmadump-{os.getpid()}.tmp")
            shutil.move(source, hidden)
            fs.move(hidden, target)
        else:
            with open(source, "rb") as data, fs.open_output_stream(target) as stream:
                shutil.copyfileobj(data, stream, _COPY_BYTES)


def _stage_failed(staged: str, name: str, captures: pa.Table) -> None:
    """The captures row of a capture the decoder was never given, laid out as export lays
    out a capture without frames, with export's key-value metadata."""
    from . import _rdmadump

    stem = name if _SAFE.match(name) else "capture-" + hashlib.sha1(name.encode()).hexdigest()[:8]
    directory = os.path.join(staged, "captures", "capture_date=__HIVE_DEFAULT_PARTITION__")
    os.makedirs(directory)
    metadata = dict(_rdmadump.file_metadata("captures", name))
    table = captures.replace_schema_metadata(metadata)
    pq.write_table(table, os.path.join(directory, f"{stem}-00000.parquet"), compression="zstd")


def _staged_captures(staged: str, schema: pa.Schema) -> pa.Table:
    """The captures row export wrote, in the job's schema."""
    files = [f for f in _staged_files(staged) if f.split(os.sep)[0] == "captures"]
    tables = [pq.read_table(os.path.join(staged, f), partitioning=None) for f in files]
    return pa.concat_tables(t.select(schema.names).cast(schema) for t in tables)


def _export(args: List[str], out: str) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """mapInArrow's function: each capture exported by the library into a directory of the
    task's, in one pass with export's own writer, its files then published under `out`,
    and its captures row given."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from . import _rdmadump

        fs, root = _file_system(out)
        schema = _captures_schema()
        for name, path, content in _captures_of(batches):
            staged = tempfile.mkdtemp(prefix="rdmadump-spark-")
            try:
                try:
                    _rdmadump.export_files(args + ["-o", staged, "--name", name, "--", path], content)
                except Exception as err:  # noqa: BLE001 - the job goes on: the error is a row
                    shutil.rmtree(staged)
                    os.makedirs(staged)
                    size = content.size if content is not None else None
                    _stage_failed(staged, name, _failed(name, path, size, f"{type(err).__name__}: {err}"))
                captures = _staged_captures(staged, schema)
                _publish(fs, root, staged)
            finally:
                shutil.rmtree(staged, ignore_errors=True)
            yield from captures.to_batches()

    return run


def _captures_schema() -> pa.Schema:
    from . import _rdmadump

    return dict(_rdmadump.describe(["--", "schema"], b""))["captures"].schema


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
    task decodes one capture whole, and writes its files. Every capture needs its own file
    name, which names it in the ``capture`` column.

    ``out`` (a local path that every executor sees, or ``s3a://``, ``s3://``, ``gs://``,
    ``hdfs://``, written through pyarrow's file systems) gets the ``packets``,
    ``connections``, ``events``, ``priorities``, ``commands`` and ``captures`` tables as
    export writes them: its columns and types, partitioned by ``capture_date``, a capture's
    files named by it. A capture that cannot be read is a ``captures`` row with its status
    and error, and the others go on. ``out`` must not hold these datasets already, unless
    ``replace`` is true: they are then removed and written again.

    ``filter`` is the ``-Y`` language and, like ``since``, ``until``, ``qp`` and ``kind``,
    selects the packets only; every other keyword is the ``export`` option of the same
    name (``pmtu=4096``, ``roce_port=4791``...). ``threads`` is each task's, by default
    ``spark.task.cpus``.

    Returns the ``captures`` table (one row per capture) as a DataFrame.
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
    fs, root = _file_system(out)
    existing = [
        d for d in DATASETS if fs.get_file_info(posixpath.join(root, d)).type != pafs.FileType.NotFound
    ]
    if existing and not replace:
        raise FileExistsError(
            f"{out} holds {', '.join(existing)} already (replace=True writes them again)"
        )
    for dataset in existing:
        fs.delete_dir(posixpath.join(root, dataset))

    saved = {key: spark.conf.get(key) for key in _SESSION}
    for key, value in _SESSION.items():
        spark.conf.set(key, value)
    try:
        schema = ", ".join(f"`{f.name}` {_spark_type(f.type)}" for f in _captures_schema())
        rows = inputs.frame().mapInArrow(_export(args, out), schema).collect()
    finally:
        for key, value in saved.items():
            spark.conf.set(key, value)
    return spark.createDataFrame(rows, schema)


class _Inputs:
    """The captures as DataFrames of (name, path, content), one capture per task."""

    def __init__(self, spark: Any, local: List[str], remote: List[str], listed: List[Tuple[str, str]]):
        self.spark = spark
        self.local = local
        self.remote = remote
        # (name, path) of every capture, local ones first.
        self.listed = listed

    def frame(self) -> Any:
        """The captures, with their bytes when remote."""
        from pyspark.sql import functions as F

        schema = "name string, path string, content binary"
        local = [(_capture_name(p), p, None) for p in self.local]
        frame = self.spark.sparkContext.parallelize(local, max(len(local), 1)).toDF(schema)
        if not self.remote:
            return frame
        files = self.spark.read.format("binaryFile").load(self.remote)
        files = files.select(
            F.element_at(F.split("path", "/"), -1).alias("name"), "path", "content"
        )
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
