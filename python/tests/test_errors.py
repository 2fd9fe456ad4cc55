"""Errors are the package's own classes, with what the caller needs to act on them."""

import pytest

import rdmadump
from conftest import fixture, run_cli


def test_a_damaged_capture_raises_capture_error_with_the_offset():
    # The frames before the damage come first, as the command line writes them, then the
    # error, whose offset the command line's message names.
    lines = run_cli("read", "--json", fixture("huge_caplen.pcap"), ok_codes=(2,)).splitlines()
    reader = rdmadump.packets(fixture("huge_caplen.pcap"))
    rows = 0
    with pytest.raises(rdmadump.CaptureError) as caught:
        for batch in reader:
            rows += batch.num_rows
    assert rows == len(lines) == 1
    assert caught.value.offset == 114
    assert caught.value.path.endswith("huge_caplen.pcap")
    assert "offset 114" in str(caught.value)
    with pytest.raises(rdmadump.CaptureError) as caught:
        rdmadump.analyze(fixture("huge_caplen.pcap"))
    assert caught.value.offset == 114


def test_a_missing_file_raises_capture_error(tmp_path):
    missing = str(tmp_path / "missing.pcap")
    for call in (
        lambda: rdmadump.packets(missing).read_all(),
        lambda: rdmadump.analyze(missing),
        lambda: rdmadump.info(missing),
    ):
        with pytest.raises(rdmadump.CaptureError) as caught:
            call()
        assert caught.value.offset is None
        assert isinstance(caught.value, rdmadump.Error)


def test_a_bad_filter_raises_filter_error_with_its_column():
    expression = "bth.dest_qp == == 1"
    for call in (
        lambda: rdmadump.packets(fixture("roce_v2_crc_cases.pcap"), filter=expression),
        lambda: rdmadump.analyze(fixture("roce_v2_crc_cases.pcap"), filter=expression),
    ):
        with pytest.raises(rdmadump.FilterError) as caught:
            call()
        assert caught.value.column == 16
        assert caught.value.expression == expression
        assert isinstance(caught.value, rdmadump.Error)


def test_a_bad_option_is_a_value_error_not_a_runtime_error():
    name = fixture("roce_v2_crc_cases.pcap")
    with pytest.raises(ValueError, match="path MTU"):
        rdmadump.analyze(name, pmtu=3)
    with pytest.raises(ValueError, match="no_such_option|no-such-option"):
        rdmadump.analyze(name, no_such_option=1)
    with pytest.raises(ValueError, match="no column"):
        rdmadump.packets(name, fields=["nope"])
    with pytest.raises(TypeError):
        rdmadump.analyze(name, html="page.html")
