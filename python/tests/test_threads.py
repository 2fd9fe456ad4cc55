"""Ctrl-C stops a long read; the GIL is free while the library decodes."""

import _thread
import os
import struct
import threading
import time

import pytest

import rdmadump
from conftest import fixture


def repeated_capture(path, copies):
    """A little-endian pcap made of a fixture's records over and over, times rising."""
    data = open(fixture("roce_v2_crc_cases.pcap"), "rb").read()
    header, body = data[:24], data[24:]
    records = []
    at = 0
    while at + 16 <= len(body):
        _, _, caplen, _ = struct.unpack_from("<IIII", body, at)
        records.append(body[at + 16 : at + 16 + caplen])
        at += 16 + caplen
    with open(path, "wb") as out:
        out.write(header)
        micros = 0
        for _ in range(copies):
            for frame in records:
                micros += 1
                out.write(struct.pack("<IIII", 1_700_000_000 + micros // 1_000_000,
                                      micros % 1_000_000, len(frame), len(frame)))
                out.write(frame)
    return len(records) * copies


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.pcap"
    frames = repeated_capture(path, 40_000)
    return str(path), frames


def interrupted_after(seconds, call):
    """Runs `call` with Ctrl-C sent after `seconds`; whether it raised KeyboardInterrupt,
    and how long it took. A late interrupt is caught here, not in the next test."""
    timer = threading.Timer(seconds, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    try:
        call()
        raised = False
    except KeyboardInterrupt:
        raised = True
    took = time.monotonic() - started
    timer.cancel()
    if not raised:
        try:
            time.sleep(seconds + 1)
        except KeyboardInterrupt:
            pass
    return raised, took


def test_keyboard_interrupt_stops_a_long_read(big):
    path, frames = big
    rows = []

    def read():
        for batch in rdmadump.packets(path, threads=1):
            rows.append(batch.num_rows)
            # Slower than the library, so that the interrupt comes between batches too.
            time.sleep(0.005)

    started = time.monotonic()
    read()
    whole = time.monotonic() - started
    assert sum(rows) == frames
    rows.clear()
    raised, took = interrupted_after(whole / 4, read)
    assert raised
    assert sum(rows) < frames
    assert took < whole


def test_keyboard_interrupt_stops_an_analysis(big):
    path, _ = big
    started = time.monotonic()
    rdmadump.analyze(path, threads=1)
    whole = time.monotonic() - started
    raised, took = interrupted_after(whole / 4, lambda: rdmadump.analyze(path, threads=1))
    assert raised
    assert took < whole


def test_two_threads_each_reading_a_file_run_side_by_side(big, tmp_path):
    path, frames = big
    second = tmp_path / "second.pcap"
    second.write_bytes(open(path, "rb").read())

    def read(p, counts):
        counts.append(sum(b.num_rows for b in rdmadump.packets(p, threads=1, fields=["frame"])))

    counts = []
    started = time.monotonic()
    read(path, counts)
    alone = time.monotonic() - started

    threads = [threading.Thread(target=read, args=(p, counts)) for p in (path, str(second))]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    together = time.monotonic() - started
    assert counts == [frames] * 3
    # Held GIL would make it 2x; the issue asks for less than 1.6x. Timed on a machine
    # running other tests it says nothing either way, so it is printed, not asserted:
    # test_a_read_waiting_for_its_input_leaves_python_free proves the GIL is released.
    print(f"two threads together {together:.2f} s, one alone {alone:.2f} s")


def test_a_read_waiting_for_its_input_leaves_python_free(tmp_path):
    """A read from a FIFO blocks until this thread writes the capture into it: if opening
    or reading held the GIL, the writer below could never run and the read would hang."""
    fifo = tmp_path / "capture.fifo"
    os.mkfifo(fifo)
    data = open(fixture("roce_v2_crc_cases.pcap"), "rb").read()
    expected = sum(b.num_rows for b in rdmadump.packets(fixture("roce_v2_crc_cases.pcap")))
    counts = []
    reader = threading.Thread(
        target=lambda: counts.append(sum(b.num_rows for b in rdmadump.packets(str(fifo)))),
        daemon=True,
    )
    reader.start()
    with open(fifo, "wb") as writer:
        writer.write(data)
    reader.join(timeout=120)
    assert not reader.is_alive(), "the read held the GIL while it waited for its input"
    assert counts == [expected]
