"""Is a path a DuckDB database? DuckDB itself opens a `.json` or `.csv` path as an
in-memory database with the file as a view, so both the collector (which would acknowledge
spans and keep them nowhere) and the readers check the header before connecting.

Only regular files are opened: opening a FIFO blocks until a writer comes (a collector
started on one hung, deaf to SIGTERM), and a device such as `/dev/zero` is no database."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["looks_like_duckdb", "not_a_file"]

_MAGIC = b"DUCK"
"""DuckDB's storage header: these bytes at offset 8 of every database file."""


def not_a_file(path: str | Path) -> str | None:
    """What `path` is when it exists and is not a regular file ("a directory", "a FIFO
    (named pipe)", "a character device", ...); None when missing or a regular file."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def looks_like_duckdb(path: str | Path) -> bool:
    """True for a missing or empty regular file (DuckDB creates the database there) or one
    with DuckDB's header; False for anything that is not a regular file (never opened); an
    unreadable file is left to DuckDB to explain."""
    if not_a_file(path) is not None:
        return False
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(12)
    except OSError:
        return True
    return not head or head[8:12] == _MAGIC
