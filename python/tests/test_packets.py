"""packets() against the command line: `export`'s Parquet and `read --json`."""

import datetime as dt
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rdmadump
from conftest import READABLE, fixture, run_cli


def exported(tmp_path, name, dataset, *options):
    out = tmp_path / "out"
    run_cli("export", "-o", str(out), *options, fixture(name))
    files = sorted((out / dataset).rglob("*.parquet"))
    assert files, f"export wrote no {dataset}"
    # The partition folders are directories, not columns of the files.
    return pa.concat_tables(pq.read_table(f, partitioning=None) for f in files)


@pytest.mark.parametrize("name", READABLE)
def test_packets_equal_the_export_of_the_same_capture(tmp_path, name):
    reader = rdmadump.packets(fixture(name))
    mine = reader.read_all()
    theirs = exported(tmp_path, name, "packets")
    assert mine.schema.equals(theirs.schema.remove_metadata())
    assert mine.num_rows == theirs.num_rows
    assert mine.combine_chunks().equals(theirs.combine_chunks())


def flatten(document, prefix=""):
    """read --json's nested keys as the columns name them: `bth.dest_qp` is bth_dest_qp;
    a list of objects (tunnels, VLAN tags) is one list column per key, null where an item
    lacks it."""
    out = {}
    for key, value in document.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "_"))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items = [flatten(v, name + "_") for v in value]
            for column in {c for item in items for c in item}:
                out[column] = [item.get(column) for item in items]
        else:
            out[name] = value
    return out


# Columns with values where the JSON has no key, as tests/it/export.rs lists them: the
# capture's name, the timestamp, the computed CRCs (the JSON writes them only when they
# differ), iface and tunnel_too_deep (left out at 0 and false), and ip_proto (IPv6's next
# header too).
BEYOND_JSON = {
    "capture",
    "ts",
    "icrc_computed",
    "vcrc_computed",
    "iface",
    "tunnel_too_deep",
    "ip_proto",
}


@pytest.mark.parametrize("name", READABLE)
def test_every_value_is_the_one_read_json_writes(name):
    lines = run_cli("read", "--json", fixture(name)).splitlines()
    table = rdmadump.packets(fixture(name)).read_all()
    assert table.num_rows == len(lines)
    rows = table.to_pylist()
    for line, row in zip(lines, rows):
        frame = flatten(json.loads(line))
        assert set(frame) <= set(row), (name, set(frame) - set(row))
        for column, value in row.items():
            if column == "ts" or (column in BEYOND_JSON and column not in frame):
                continue
            assert value == frame.get(column), (name, row["frame"], column)
        # ts is the same instant as ts_ns, to the microsecond; both absent without a time.
        if row["ts_ns"] is None:
            assert row["ts"] is None
            continue
        epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
        assert row["ts"] == epoch + dt.timedelta(microseconds=row["ts_ns"] // 1000)


@pytest.mark.parametrize("name", READABLE)
def test_the_fields_asked_for_are_exports_columns(tmp_path, name):
    # Only the columns asked for are built: every seventh, from the end, so that columns
    # of every header (gated on it or not), lists and messages come out of order.
    theirs = exported(tmp_path, name, "packets")
    fields = theirs.column_names[::-7]
    mine = rdmadump.packets(fixture(name), fields=fields).read_all()
    assert mine.column_names == fields
    expected = theirs.select(fields)
    assert mine.schema.equals(expected.schema.remove_metadata())
    assert mine.combine_chunks().equals(expected.combine_chunks())


def test_filter_fields_and_time_window_select_as_the_command_line_does():
    name = fixture("roce_v2_crc_cases.pcap")
    expression = 'icrc.status == "bad"'
    lines = run_cli("read", "--json", "-Y", expression, name).splitlines()
    table = rdmadump.packets(name, filter=expression, fields=["frame", "icrc_status"]).read_all()
    assert table.column_names == ["frame", "icrc_status"]
    assert table.column("frame").to_pylist() == [json.loads(l)["frame"] for l in lines]
    assert set(table.column("icrc_status").to_pylist()) == {"bad"}

    window = ("--since", "+2ms", "--until", "1700000100.006")
    lines = run_cli("read", "--json", *window, name).splitlines()
    expected = [json.loads(l)["frame"] for l in lines]
    assert expected, "the window selects some frames"
    for since, until in [
        ("+2ms", "1700000100.006"),
        (dt.timedelta(milliseconds=2), 1700000100.006),
        (dt.timedelta(milliseconds=2), dt.datetime(2023, 11, 14, 22, 15, 0, 6000)),
    ]:
        got = rdmadump.packets(name, since=since, until=until, fields=["frame"]).read_all()
        assert got.column("frame").to_pylist() == expected, (since, until)


def test_several_captures_are_read_one_after_the_other_each_with_its_name():
    names = ["roce_v2_crc_cases.pcap", "pfc_pause.pcap"]
    table = rdmadump.packets([fixture(n) for n in names], fields=["capture", "frame"]).read_all()
    alone = [rdmadump.packets(fixture(n), fields=["frame"]).read_all().num_rows for n in names]
    captures = table.column("capture").to_pylist()
    assert captures == [names[0]] * alone[0] + [names[1]] * alone[1]
    assert table.column("frame").to_pylist()[alone[0]] == 1


def test_threads_do_not_change_the_rows():
    name = fixture("mad_cm_roce.pcap")
    one = rdmadump.packets(name, threads=1).read_all()
    three = rdmadump.packets(name, threads=3).read_all()
    assert one.equals(three)


def test_pandas_has_a_timestamp_and_integer_nanoseconds():
    frame = rdmadump.packets(fixture("roce_v2_crc_cases.pcap")).read_all().to_pandas()
    assert str(frame["ts"].dtype).startswith("datetime64[us")
    assert str(frame["ts"].dt.tz) == "UTC"
    assert frame["ts_ns"].dtype == "int64"
    assert frame["ts_ns"].iloc[0] == 1700000100000000000


def test_a_reader_dropped_early_stops_its_thread():
    # Read one batch of many and drop the reader: nothing hangs, nothing leaks an error.
    reader = rdmadump.packets([fixture("roce_v2_crc_cases.pcap")] * 50)
    first = reader.read_next_batch()
    assert first.num_rows > 0
    del reader


def test_a_capture_in_memory_reads_as_its_file():
    import gzip

    name = fixture("mad_cm_roce.pcap")
    with open(name, "rb") as f:
        whole = f.read()
    expected = rdmadump.packets(name).read_all().drop_columns(["capture"])
    given = [whole, bytearray(whole), memoryview(whole), pa.py_buffer(whole), gzip.compress(whole)]
    for data in given:
        got = rdmadump.packets(data).read_all()
        assert set(got.column("capture").to_pylist()) == {"memory"}, type(data)
        assert got.drop_columns(["capture"]).equals(expected), type(data)
    with pytest.raises(rdmadump.CaptureError):
        rdmadump.packets(whole[:10]).read_all()
