"""analyze() and info() against `analyze --json`, export's tables and `info --json`."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rdmadump
from conftest import FIXTURES, READABLE, cli_json, fixture, real_captures, run_cli

# Captures with connections, anomalies, PFC and capture loss between them.
ANALYZED = [
    "roce_v2_crc_cases.pcap",
    "pfc_pause.pcap",
    "mad_cm_roce.pcap",
    "ib_native.pcap",
    "multi_if.pcapng",
    "cut_short.pcap",
    "malformed.pcap",
]


# The upper-layer protocols' captures and a few analyses' own, below the top level.
NESTED = sorted(
    str(p.relative_to(FIXTURES))
    for folder in ["nvme", "ulp", "stalls", "causes", "dcqcn"]
    for p in (FIXTURES / folder).glob("*.pcap*")
)


def same_document(mine, theirs):
    """Equal as JSON documents: Python's `==` alone takes 1 for 1.0 and True for 1, and
    ignores the order of keys."""
    assert mine == theirs
    assert json.dumps(mine) == json.dumps(theirs)


def exported(tmp_path, name, dataset):
    out = tmp_path / "out"
    if not out.exists():
        run_cli("export", "-o", str(out), fixture(name))
    files = sorted((out / dataset).rglob("*.parquet"))
    if not files:
        return None
    return pa.concat_tables(pq.read_table(f, partitioning=None) for f in files)


@pytest.mark.parametrize("name", READABLE + NESTED)
def test_report_is_the_document_analyze_json_writes(name):
    expected = cli_json("analyze", "--json", fixture(name))
    same_document(rdmadump.analyze(fixture(name)).report, expected)


@pytest.mark.parametrize("path", real_captures(), ids=lambda p: Path(p).name)
def test_report_of_a_real_capture_is_the_document_analyze_json_writes(path):
    path = str(path)
    same_document(rdmadump.analyze(path).report, cli_json("analyze", "--json", path))


@pytest.mark.parametrize(
    "options,flags",
    [
        ({"pmtu": 1024}, ["--pmtu", "1024"]),
        ({"interval": "1ms"}, ["--interval", "1ms"]),
        ({"stall": "100us", "memory": "64M"}, ["--stall", "100us", "--memory", "64M"]),
        ({"filter": "bth.dest_qp == 49"}, ["-Y", "bth.dest_qp == 49"]),
    ],
)
def test_options_mean_what_the_command_line_options_mean(options, flags):
    name = fixture("roce_v2_crc_cases.pcap")
    expected = cli_json("analyze", "--json", *flags, name)
    same_document(rdmadump.analyze(name, **options).report, expected)


def test_single_point_reads_several_files_as_one_capture():
    names = [fixture("roce_v2_crc_cases.pcap"), fixture("pfc_pause.pcap")]
    expected = cli_json("analyze", "--json", "--single-point", *names)
    same_document(rdmadump.analyze(names, single_point=True).report, expected)


@pytest.mark.parametrize("name", ANALYZED)
def test_connections_and_events_are_exports_tables(tmp_path, name):
    analysis = rdmadump.analyze(fixture(name))
    for dataset, mine in [("connections", analysis.connections), ("events", analysis.events)]:
        theirs = exported(tmp_path, name, dataset)
        if theirs is None:
            assert mine.num_rows == 0, dataset
            continue
        assert mine.schema.equals(theirs.schema.remove_metadata()), dataset
        assert mine.combine_chunks().equals(theirs.combine_chunks()), dataset


def test_tables_go_to_pandas():
    analysis = rdmadump.analyze(fixture("roce_v2_crc_cases.pcap"))
    assert len(analysis.connections.to_pandas()) == analysis.connections.num_rows
    events = analysis.events.to_pandas()
    assert len(events) == analysis.events.num_rows > 0


def test_html_is_the_page_analyze_html_writes(tmp_path):
    name = fixture("roce_v2_crc_cases.pcap")
    theirs = tmp_path / "cli.html"
    run_cli("analyze", "--json", "--html", str(theirs), name)
    mine = tmp_path / "mine.html"
    rdmadump.analyze(name).html(mine)
    assert mine.read_text() == theirs.read_text()


@pytest.mark.parametrize("name", READABLE)
def test_info_is_the_document_info_json_writes(name):
    assert rdmadump.info(fixture(name)) == cli_json("info", "--json", fixture(name))


def write_bad_icrc_capture(path, frames):
    """A pcap of `frames` RoCEv2 SEND_ONLY frames on one QP, PSNs in order, 100 ns apart,
    each with a wrong ICRC: one icrc_bad anomaly a frame, nothing else."""
    import struct

    eth = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x08\x00"
    udp_len = 8 + 12 + 4
    ip = bytearray(
        struct.pack(">BBHHHBBH4s4s", 0x45, 2, 20 + udp_len, 0, 0x4000, 64, 17, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    )
    words = sum(struct.unpack(">10H", ip))
    words = (words & 0xFFFF) + (words >> 16)
    struct.pack_into(">H", ip, 10, ~words & 0xFFFF)
    udp = struct.pack(">HHHH", 49152, 4791, udp_len, 0)
    head = eth + bytes(ip) + udp
    start_ns = 1_700_000_000_000_000_000
    with open(path, "wb") as out:
        # Nanosecond pcap, Ethernet.
        out.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for i in range(frames):
            bth = struct.pack(">BBHII", 0x04, 0, 0xFFFF, 0x11, i & 0xFFFFFF)
            frame = head + bth + b"\xde\xad\xbe\xef"
            ts = start_ns + 100 * i
            out.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(frame), len(frame)))
            out.write(frame)


def test_events_keep_every_anomaly_export_keeps(tmp_path):
    # More anomalies than the report keeps (10,000), and than a batch of event rows.
    capture = tmp_path / "bad_icrc.pcap"
    write_bad_icrc_capture(capture, 12_345)
    out = tmp_path / "out"
    run_cli("export", "-o", str(out), str(capture))
    files = sorted((out / "events").rglob("*.parquet"))
    theirs = pa.concat_tables(pq.read_table(f, partitioning=None) for f in files)
    analysis = rdmadump.analyze(capture)
    assert theirs.num_rows >= 12_345
    assert len(analysis.report["anomalies"]) < theirs.num_rows
    mine = analysis.events
    assert mine.schema.equals(theirs.schema.remove_metadata())
    assert mine.combine_chunks().equals(theirs.combine_chunks())
