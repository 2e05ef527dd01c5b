"""Rows of the fixture DuckDB file, collected per table and loaded through Arrow.

Shared by `fixture_spans.py` and `fixture_scores.py`; `fixture_db.py` loads them.
"""

from __future__ import annotations

import random
from typing import Any

import duckdb
import orjson
import pyarrow as pa

__all__ = ["Rows", "hex_id", "to_json"]


def hex_id(rng: random.Random, n: int) -> str:
    """`n` random hex digits (trace and span ids)."""
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


class Rows:
    """Column lists per table (loaded as Arrow: fast at 1,000 conversations)."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, list[Any]]] = {}

    def add(self, table: str, **row: Any) -> None:
        """Append one row to `table` (the first row of a table fixes its columns)."""
        cols = self.tables.setdefault(table, {})
        if not cols:
            for key in row:
                cols[key] = []
        for key, col in cols.items():
            col.append(row.get(key))

    def load(self, con: duckdb.DuckDBPyConnection) -> None:
        """Insert every table's rows into `con` (the tables must exist)."""
        for table, cols in self.tables.items():
            arrow = pa.table(cols)  # noqa: F841 (read by DuckDB's replacement scan)
            names = ", ".join(cols)
            con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM arrow")


def to_json(value: Any) -> str:
    """`value` as JSON text (the JSON columns)."""
    return orjson.dumps(value).decode()
