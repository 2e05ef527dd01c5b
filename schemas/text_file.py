"""Read a small text file a user names (a config, a redaction rules file), refusing what
is not one: a device (`/dev/zero` read forever until MemoryError), a FIFO (open() waits
for a writer forever), a file too large for a config, bytes that are not UTF-8. Each is
one line for the caller to prefix with the file and option."""

from __future__ import annotations

from pathlib import Path

from tracesim.schemas.duckdb_file import not_a_file

__all__ = ["MAX_TEXT_FILE_BYTES", "TextFileError", "read_text_file"]

MAX_TEXT_FILE_BYTES = 16 << 20
"""The largest config or rules file read (16 MiB: far past any hand-written one)."""


class TextFileError(ValueError):
    """The file cannot be read as a small text file; `str()` says why, without the path."""


def read_text_file(path: str | Path, *, limit: int = MAX_TEXT_FILE_BYTES) -> str:
    """The UTF-8 text of regular file `path`. FileNotFoundError when missing (the caller
    says so in its words); TextFileError for anything else that makes it no text file."""
    kind = not_a_file(path)
    if kind is not None:
        raise TextFileError(f"is {kind}, not a file")
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise TextFileError(f"cannot be read: {error.strerror}") from None
    if len(data) > limit:
        raise TextFileError(f"holds more than {limit >> 20} MiB: not a config file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TextFileError(f"is not UTF-8 text (byte {error.start})") from None
