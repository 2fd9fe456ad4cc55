"""The package's exceptions; the extension module raises them by name."""

from typing import Optional


class Error(Exception):
    """Anything rdmadump could not do (other than a bad argument: ValueError)."""


class CaptureError(Error):
    """A capture that could not be opened, or was damaged beyond recovery.

    ``path`` is the capture, ``offset`` where in it (decompressed, for a compressed file)
    reading broke, when that is known.
    """

    def __init__(self, message: str, *, path: str = "", offset: Optional[int] = None):
        super().__init__(message)
        self.path = path
        self.offset = offset


class FilterError(Error):
    """A ``filter`` expression that does not compile; ``column`` counts from 1."""

    def __init__(self, message: str, *, column: int = 0, expression: str = ""):
        super().__init__(message)
        self.column = column
        self.expression = expression
