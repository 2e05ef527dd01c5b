"""Is a path a DuckDB database? DuckDB itself opens a `.json` or `.csv` path as an
in-memory database with the file as a view, so both the collector (which would acknowledge
spans and keep them nowhere) and the readers check the header before connecting."""

from __future__ import annotations

from pathlib import Path

__all__ = ["looks_like_duckdb"]

_MAGIC = b"DUCK"
"""DuckDB's storage header: these bytes at offset 8 of every database file."""


def looks_like_duckdb(path: str | Path) -> bool:
    """True for a missing or empty file (DuckDB creates the database there) or one with
    DuckDB's header; an unreadable file is left to DuckDB to explain."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(12)
    except OSError:
        return True
    return not head or head[8:12] == _MAGIC
