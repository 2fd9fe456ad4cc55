"""Type stubs for rdmadump: RDMA captures (InfiniBand, RoCE) as Arrow tables."""

import datetime
import os
from typing import Any, Dict, Iterable, Optional, Sequence, Union

import pyarrow

Path = Union[str, "os.PathLike[str]"]
Paths = Union[Path, Iterable[Path]]
Time = Union[str, int, float, datetime.datetime, datetime.timedelta]
InMemory = Union[bytes, bytearray, memoryview, pyarrow.Buffer]
"""A capture itself: bytes and pyarrow Buffers are read in place, the others copied once."""

class Error(Exception):
    """Anything rdmadump could not do (other than a bad argument: ValueError)."""

class CaptureError(Error):
    """A capture that could not be opened, or was damaged beyond recovery."""

    path: str
    """The capture, as given."""
    offset: Optional[int]
    """Where in the file (decompressed, for a compressed one) reading broke, if known."""
    def __init__(self, message: str, *, path: str = ..., offset: Optional[int] = ...) -> None: ...

class FilterError(Error):
    """A filter expression that does not compile."""

    column: int
    """The column of the expression, counted from 1, where it went wrong."""
    expression: str
    def __init__(self, message: str, *, column: int = ..., expression: str = ...) -> None: ...

def packets(
    path_or_paths: Union[Paths, InMemory],
    filter: Optional[str] = None,
    fields: Optional[Sequence[str]] = None,
    since: Optional[Time] = None,
    until: Optional[Time] = None,
    threads: Optional[int] = None,
) -> pyarrow.RecordBatchReader:
    """The frames of one or more captures as export's packets table, streamed in batches.

    A capture in memory (bytes, a pyarrow.Buffer...) is read in place, named "memory" in the
    capture column. filter is the -Y language; fields picks columns; since/until bound the time (a
    datetime, epoch seconds, a timedelta after the first packet, or the command line's
    text); threads is --threads. Raises FilterError, CaptureError (after the batches read
    before the damage), ValueError.
    """

class Analysis:
    """What analyze found."""

    @property
    def report(self) -> Dict[str, Any]:
        """The document analyze --json writes."""
    @property
    def connections(self) -> pyarrow.Table:
        """export's connections table: both directions of every connection, then flows."""
    @property
    def events(self) -> pyarrow.Table:
        """export's events table of each capture: every anomaly, the capture's misses."""
    def html(self, path: Path) -> None:
        """Writes the page analyze --html writes (a second pass records its charts)."""

def analyze(path_or_paths: Paths, **options: Any) -> Analysis:
    """Analyses captures as rdmadump analyze does; each keyword is the option of the same
    name (pmtu=4096, single_point=True, interval="1ms", stall="5ms", memory="2G",
    filter=..., offset={"b.pcap": "-90us"}...). Raises CaptureError, FilterError,
    ValueError."""

def info(path: Path) -> Dict[str, Any]:
    """The document info --json writes for one capture."""
