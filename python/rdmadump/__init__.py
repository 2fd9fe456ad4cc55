"""rdmadump: RDMA captures (InfiniBand, RoCE) as Arrow tables.

>>> import rdmadump, duckdb
>>> r = rdmadump.packets("cap.pcap", filter="bth")
>>> duckdb.sql("SELECT bth_dest_qp, count(*) FROM r GROUP BY 1")

The options are the command line's: each keyword becomes the option of the same name
(``single_point=True`` is ``--single-point``), parsed and checked by the same code, so
that they mean here what they mean in ``rdmadump --help``.
"""

import datetime as _dt
import functools as _functools
import json as _json
import os as _os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import pyarrow as _pa

from . import _rdmadump
from ._errors import CaptureError, Error, FilterError

__all__ = [
    "Analysis",
    "CaptureError",
    "Error",
    "FilterError",
    "analyze",
    "info",
    "packets",
]

Paths = Union[str, "_os.PathLike[str]", Iterable[Union[str, "_os.PathLike[str]"]]]
# A capture itself rather than its path: read in place when immutable (bytes, a
# pyarrow.Buffer), copied once otherwise.
InMemory = Union[bytes, bytearray, memoryview, _pa.Buffer]

# The capture column of a capture handed over in memory.
_IN_MEMORY_NAME = "memory"
Time = Union[str, int, float, _dt.datetime, _dt.timedelta]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _in_memory(source: Any) -> Optional[Union[bytes, _pa.Buffer]]:
    """The capture itself, as the extension reads it in place, or None for paths."""
    if isinstance(source, bytes):
        return source
    if isinstance(source, _pa.Buffer):
        return source if not source.is_mutable else source.to_pybytes()
    if isinstance(source, (bytearray, memoryview)):
        return bytes(source)
    return None


def _paths(path_or_paths: Paths) -> List[str]:
    if isinstance(path_or_paths, (str, bytes, _os.PathLike)):
        items = [path_or_paths]
    else:
        items = list(path_or_paths)
    if not items:
        raise ValueError("no capture file given")
    return [_os.fsdecode(_os.fspath(p)) for p in items]


def _micros(delta: _dt.timedelta) -> int:
    return delta // _dt.timedelta(microseconds=1)


def _time(value: Time) -> str:
    """A --since/--until bound: a datetime (naive is UTC), epoch seconds, a timedelta
    after the capture's first packet, or the command line's text."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        us = _micros(value - _EPOCH)
        return f"{us // 1_000_000}.{us % 1_000_000:06d}"
    if isinstance(value, _dt.timedelta):
        return f"+{_micros(value)}us"
    if isinstance(value, bool):
        raise TypeError("a time is a datetime, a timedelta, epoch seconds or a string")
    return str(value)


def _value(value: Any) -> str:
    """An option's value as the command line writes it; a timedelta is a duration."""
    if isinstance(value, _dt.timedelta):
        return f"{_micros(value)}us"
    if isinstance(value, (str, int, float)) or isinstance(value, _os.PathLike):
        return _os.fsdecode(_os.fspath(value)) if isinstance(value, _os.PathLike) else str(value)
    raise TypeError(f"unsupported option value {value!r}")


def _options(options: Dict[str, Any]) -> List[str]:
    """Keywords as command-line options: True is a flag, None and False leave it out, a
    list repeats it, a dict gives KEY=VALUE pairs (``offset={"b.pcap": "-90us"}``)."""
    args: List[str] = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, dict):
            for key, item in value.items():
                args += [flag, f"{_value(key)}={_value(item)}"]
        elif isinstance(value, (list, tuple)):
            for item in value:
                args += [flag, _value(item)]
        elif name in ("since", "until"):
            args += [flag, _time(value)]
        else:
            args += [flag, _value(value)]
    return args


def packets(
    path_or_paths: Union[Paths, InMemory],
    filter: Optional[str] = None,
    fields: Optional[Sequence[str]] = None,
    since: Optional[Time] = None,
    until: Optional[Time] = None,
    threads: Optional[int] = None,
) -> _pa.RecordBatchReader:
    """The frames of one or more captures as ``export``'s ``packets`` table, streamed.

    Columns and types are those of ``rdmadump export``'s ``packets/`` dataset
    (docs/export-schema.md): ``ts`` a UTC timestamp in microseconds, ``ts_ns`` the integer
    nanoseconds. Several captures are read one after the other, each with its own
    ``capture`` name and frame numbers, as ``export`` writes them. A capture already in
    memory (``bytes``, a ``pyarrow.Buffer``, a ``bytearray`` or ``memoryview``, which are
    copied once) is read in place, named ``memory`` in the ``capture`` column.

    ``filter`` is the ``-Y`` language (``'bth.opcode == 0x0a && icrc.status == "bad"'``);
    ``fields`` picks columns by name; ``since``/``until`` bound the time as ``--since``
    and ``--until`` do (a datetime, epoch seconds, a timedelta after each capture's first
    packet, or the command line's text); ``threads`` as ``--threads`` (default: one per
    core).

    Batches are decoded on a thread of their own, a few ahead of the reader, without the
    GIL; memory does not grow with the capture. A damaged capture raises ``CaptureError``
    after the batches read before the damage; a bad filter raises ``FilterError`` at once.
    """
    args: List[str] = []
    if filter is not None:
        args += ["--filter", filter]
    for name, bound in (("--since", since), ("--until", until)):
        if bound is not None:
            args += [name, _time(bound)]
    if threads is not None:
        args += ["--threads", str(int(threads))]
    data = _in_memory(path_or_paths)
    args += ["--", *([_IN_MEMORY_NAME] if data is not None else _paths(path_or_paths))]
    batches = _rdmadump.packets(args, list(fields or ()), data)
    return _pa.RecordBatchReader.from_batches(batches.schema, batches)


class Analysis:
    """What ``analyze`` found: ``report`` (the dict of ``analyze --json``), the
    ``connections`` and ``events`` tables (``export``'s schemas) and ``html(path)``."""

    def __init__(self, core: Any):
        self._core = core

    @_functools.cached_property
    def report(self) -> Dict[str, Any]:
        """The document ``analyze --json`` writes, as a dict (made when first read)."""
        return self._core.report()

    @_functools.cached_property
    def connections(self) -> _pa.Table:
        """Both directions of every connection, then the datagram flows, one row each."""
        return self._core.connections()

    @_functools.cached_property
    def events(self) -> _pa.Table:
        """The ``events`` table ``rdmadump export`` writes for each capture, one after the
        other: every anomaly (the report lists only the first ``max_anomalies``), the runs
        of PSNs the capture missed, the row of a capture cut short. Like export's, it
        describes every frame whatever ``filter``, ``since``, ``until`` or ``qp`` select; a
        pass of its own over the captures makes it, when first read."""
        return self._core.events()

    def html(self, path: Union[str, "_os.PathLike[str]"]) -> None:
        """Writes the page ``analyze --html`` writes to ``path``; a second pass over the
        captures records its charts, which ``analyze()`` leaves out to keep its speed."""
        page = self._core.html()
        with open(path, "w", encoding="utf-8") as out:
            out.write(page)

    def __repr__(self) -> str:
        summary = self.report.get("summary", {})
        return f"<rdmadump.Analysis of {self.report.get('capture', {}).get('files')} {summary}>"


_NOT_OPTIONS = {"json", "html", "color", "all"}


def analyze(path_or_paths: Paths, **options: Any) -> Analysis:
    """Analyses one or more captures as ``rdmadump analyze`` does.

    Every keyword is the ``analyze`` option of the same name: ``pmtu=4096``,
    ``single_point=True``, ``interval="1ms"`` (or a timedelta), ``stall="5ms"``,
    ``memory="2G"``, ``filter='bth.dest_qp == 0xb01'``, ``since``/``until``, ``qp``,
    ``offset={"b.pcap": "-90us"}``, ``threads``... Several captures are capture points of
    the same traffic unless ``single_point=True``.

    Raises ``CaptureError`` when an input could not be read (to its end), ``FilterError``
    for a bad filter, ``ValueError`` for an option the command line refuses.
    """
    refused = _NOT_OPTIONS.intersection(options)
    if refused:
        raise TypeError(
            f"analyze() takes no {', '.join(sorted(refused))}: the Analysis has the report"
            " as a dict (.report) and writes the HTML page (.html(path))"
        )
    args = _options(options) + ["--", *_paths(path_or_paths)]
    return Analysis(_rdmadump.analyze(args))


def info(path: Union[str, "_os.PathLike[str]"]) -> Dict[str, Any]:
    """What ``info --json`` says of one capture: ``{"files": [{...}]}``."""
    return _json.loads(_rdmadump.info(_os.fspath(path)))
