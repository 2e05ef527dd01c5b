"""The one error of the trace-file readers: which file, line and field, and what to do."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["TraceFileError", "shape_errors"]


class TraceFileError(ValueError):
    """A trace file that cannot be imported as a whole.

    `line` is 1-based (None when the format has no lines, e.g. protobuf); `field` is the
    JSON path or protobuf message of the bad value (None when the whole file is unreadable).
    """

    def __init__(
        self, path: str, message: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.reason = message
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


@contextmanager
def shape_errors(path: str, where: str, fmt: str, *, line: int | None = None) -> Iterator[None]:
    """Inside: a value of the wrong type or range (a number where a list is expected, an
    id past 128 bits, ...) is a TraceFileError naming `where`, never a traceback."""
    try:
        yield
    except TraceFileError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError, IndexError, OverflowError) as error:
        raise TraceFileError(
            path,
            f"a value of the wrong type or range ({error}); expected {fmt} there",
            line=line,
            field=where,
        ) from None
