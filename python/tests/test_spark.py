"""rdmadump.spark against the command line: the dataset written in local[2] holds the rows
`rdmadump export` writes for each capture alone, table by table, typed, in its layout."""

import os
import re
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from conftest import ROOT, fixture, real_captures, required, run_cli


def _java_17() -> bool:
    if not shutil.which("java"):
        return False
    shown = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    version = shown.split('"')[1] if '"' in shown else "0"
    return int(version.split(".")[0]) >= 17


try:
    import pyspark  # noqa: F401

    HAVE_PYSPARK = True
except ImportError:
    HAVE_PYSPARK = False
required(HAVE_PYSPARK, "pyspark")
required(_java_17(), "Java 17 or later (PySpark needs it)")

import rdmadump  # noqa: E402
import rdmadump.spark  # noqa: E402

# Fixtures of every container and link type, a compressed one, and NVMe-oF, PFC and
# anomalies, so that every table has rows.
FIXTURES = [
    "roce_v2_crc_cases.pcap",
    "pfc_pause.pcap",
    "mad_cm_ib.pcap",
    "multi_if.pcapng",
    "ib_erf.pcap",
    "gzip_roce_v1.pcap",
    "tunnels.pcap",
    "huge_caplen.pcap",
    "scenarios/gbn_wrap.pcap",
    "scenarios/pfc_storm.pcap",
]

# Read through Spark's binaryFile source, as a capture in an object store is.
THROUGH_BINARY_FILE = "roce_v2_opcodes.pcap"


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The executors' Python is this one, which has the package.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("rdmadump-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """The captures, by name: fixtures, the real captures, one cut short in the middle of
    a record, and one that is not a capture at all."""
    made = tmp_path_factory.mktemp("captures")
    whole = open(fixture("mad_cm_roce.pcap"), "rb").read()
    (made / "cut_in_a_record.pcap").write_bytes(whole[: len(whole) - 30])
    (made / "garbage.pcap").write_bytes(bytes(range(256)) * 8)
    paths = [fixture(n) for n in FIXTURES] + real_captures() + [fixture(THROUGH_BINARY_FILE)]
    paths += [str(made / "cut_in_a_record.pcap"), str(made / "garbage.pcap")]
    return {os.path.basename(p): p for p in paths}


@pytest.fixture(scope="module")
def exported(spark, captures, tmp_path_factory):
    """(Spark's dataset, the command line's), over the same captures."""
    root = tmp_path_factory.mktemp("exported")
    given = [
        "file://" + path if name == THROUGH_BINARY_FILE else path
        for name, path in captures.items()
    ]
    rdmadump.spark.export(spark, given, str(root / "spark"))
    run_cli("export", "-o", str(root / "cli"), *captures.values(), ok_codes=(0, 2))
    return root / "spark", root / "cli"


HIVE = ds.partitioning(pa.schema([("capture_date", pa.string())]), flavor="hive")


def read(root, dataset):
    """A dataset's rows with their partition column, or None when it has no file."""
    files = sorted(str(p) for p in (root / dataset).rglob("*.parquet"))
    if not files:
        return None
    return ds.dataset(files, format="parquet", partitioning=HIVE, partition_base_dir=str(root / dataset)).to_table()


def in_order(table: pa.Table) -> pa.Table:
    """Rows sorted on every column that sorts (lists do not): a total order up to rows
    that are equal anyway."""
    keys = [f.name for f in table.schema if not pa.types.is_list(f.type)]
    return table.sort_by([(k, "ascending") for k in keys])


def first_difference(mine: pa.Table, theirs: pa.Table) -> str:
    for name in theirs.column_names:
        a, b = mine.column(name), theirs.column(name)
        if not a.equals(b):
            for i, (x, y) in enumerate(zip(a.to_pylist(), b.to_pylist())):
                if x != y:
                    return f"column {name}, row {i}: {x!r} != {y!r}"
            return f"column {name}"
    return "none"


@pytest.mark.parametrize("dataset", rdmadump.spark.DATASETS)
def test_each_table_holds_what_export_writes_of_each_capture(exported, dataset):
    spark_root, cli_root = exported
    theirs = read(cli_root, dataset)
    mine = read(spark_root, dataset)
    if theirs is None:
        assert mine is None or mine.num_rows == 0
        return
    assert mine is not None, f"Spark wrote no {dataset}"
    assert mine.schema.equals(theirs.schema), dataset
    if dataset == "captures":
        # binaryFile names a file by its URI.
        paths = [p[len("file:"):] if p.startswith("file:") else p for p in mine.column("path").to_pylist()]
        mine = mine.set_column(mine.schema.get_field_index("path"), "path", pa.array(paths))
    mine, theirs = in_order(mine), in_order(theirs)
    assert mine.num_rows == theirs.num_rows
    assert mine.equals(theirs), first_difference(mine, theirs)


def test_the_files_are_where_export_puts_them(exported):
    def files(root):
        return sorted(str(p.relative_to(root)) for p in root.rglob("*.parquet"))

    spark_root, cli_root = exported
    assert files(spark_root) == files(cli_root)
    assert not list(spark_root.rglob(".*.tmp"))


def test_the_files_are_exports_own_byte_for_byte(exported):
    """The tasks run export's own writer: every file but the captures table's (whose
    `path` says how the file was reached) is the command line's, byte for byte."""
    spark_root, cli_root = exported
    compared = 0
    for theirs in sorted(cli_root.rglob("*.parquet")):
        relative = theirs.relative_to(cli_root)
        if relative.parts[0] == "captures":
            continue
        assert (spark_root / relative).read_bytes() == theirs.read_bytes(), str(relative)
        compared += 1
    assert compared > len(rdmadump.spark.DESCRIBED)


def test_each_file_carries_the_key_value_metadata_export_writes(exported):
    import pyarrow.parquet as pq

    def metadata(root):
        found = {}
        for path in sorted(root.rglob("*.parquet")):
            pairs = pq.ParquetFile(path).metadata.metadata or {}
            # The Arrow schema as each writer encodes it; the columns are compared above.
            pairs.pop(b"ARROW:schema", None)
            found[str(path.relative_to(root))] = pairs
        return found

    spark_root, cli_root = exported
    theirs = metadata(cli_root)
    assert theirs and all(b"schema_version" in pairs for pairs in theirs.values())
    assert metadata(spark_root) == theirs


def test_a_capture_that_fails_is_a_row_of_captures_and_the_others_land(exported, captures):
    spark_root, _ = exported
    rows = {r["capture"]: r for r in read(spark_root, "captures").to_pylist()}
    assert set(rows) == set(captures)
    garbage = rows["garbage.pcap"]
    assert garbage["status"] == "failed"
    assert "not a pcap or pcapng capture" in garbage["error"]
    assert rows["cut_in_a_record.pcap"]["status"] == "truncated"
    assert rows["huge_caplen.pcap"]["status"] == "damaged"
    assert rows["huge_caplen.pcap"]["broke_at"] == 114
    landed = set(read(spark_root, "packets").column("capture").to_pylist())
    assert landed == set(captures) - {"garbage.pcap"}


def test_the_command_selects_packets_as_export_does(spark, tmp_path):
    names = ["roce_v2_crc_cases.pcap", "pfc_pause.pcap"]
    expression = 'icrc.status == "bad" || pfc'
    out = tmp_path / "spark"
    status = rdmadump.spark.main(["export", *map(fixture, names), str(out), "-Y", expression])
    assert status == 0
    run_cli("export", "-o", str(tmp_path / "cli"), "-Y", expression, *map(fixture, names))
    for dataset in ("packets", "events"):
        mine = in_order(read(out, dataset))
        theirs = in_order(read(tmp_path / "cli", dataset))
        assert 0 < mine.num_rows and mine.equals(theirs), dataset
    with pytest.raises(FileExistsError):
        rdmadump.spark.export(spark, [fixture(names[0])], str(out))
    with pytest.raises(ValueError, match="several captures are named"):
        rdmadump.spark.export(spark, [fixture(names[0]), fixture(names[0])], str(tmp_path / "x"))
    with pytest.raises(rdmadump.FilterError):
        rdmadump.spark.export(spark, [fixture(names[0])], str(tmp_path / "y"), filter="bth ==")


def spark_recipes():
    """The Spark SQL of docs/export.md's section on Spark."""
    text = (ROOT / "docs" / "export.md").read_text()
    section = text.split("## Over a fleet, on Spark")[1].split("\n## ")[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


def test_the_recipes_answer_the_same_over_either_dataset(spark, exported):
    recipes = spark_recipes()
    assert len(recipes) >= 3
    answers = {}
    for root in exported:
        for dataset in ("packets", "events", "priorities", "captures"):
            spark.read.parquet(str(root / dataset)).createOrReplaceTempView(dataset)
        answers[root] = [[tuple(r) for r in spark.sql(sql).collect()] for sql in recipes]
    mine, theirs = (answers[root] for root in exported)
    # The capture read through binaryFile is named by its URI in captures.path, which
    # also puts it elsewhere in the order.
    mine[-1] = sorted((r[0].replace("file:", "", 1),) + r[1:] for r in mine[-1])
    theirs[-1] = sorted(theirs[-1])
    for sql, a, b in zip(recipes, mine, theirs):
        assert a and a == b, sql
