"""A DuckDB-shaped connection whose queries run in a running collector (`/tracesim/arrow`),
so the evaluator's DuckDB readers (`plan_chunks`, `fetch_chunk`, `inspect_db`) work
unchanged on a file the collector holds. Tables a caller `register`s are sent along
with each query that names them; only reads pass (the collector guards every query)."""

from __future__ import annotations

import decimal
import re
from typing import Any

import pyarrow as pa
from tracesim.evaluator.store.live_client import CollectorClient

__all__ = ["RemoteConnection", "RemoteResult"]


def _python(table: pa.Table) -> list[tuple[Any, ...]]:
    """Rows as DuckDB's `fetchall` gives them (a whole-number DECIMAL, e.g. a HUGEINT sum,
    as int)."""
    columns = []
    for column in table.columns:
        values = column.to_pylist()
        if pa.types.is_decimal(column.type) and column.type.scale == 0:
            values = [int(v) if isinstance(v, decimal.Decimal) else v for v in values]
        columns.append(values)
    return list(zip(*columns, strict=True)) if columns else []


class RemoteResult:
    """The slice of a DuckDB result the readers use, over an Arrow table."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table
        self._rows: list[tuple[Any, ...]] | None = None
        self._at = 0
        self.description = [
            (f.name, str(f.type), None, None, None, None, None) for f in table.schema
        ]

    def _all(self) -> list[tuple[Any, ...]]:
        if self._rows is None:
            self._rows = _python(self._table)
        return self._rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._all()[self._at :]
        self._at = len(self._all())
        return rows

    def fetchone(self) -> tuple[Any, ...] | None:
        rows = self._all()
        if self._at >= len(rows):
            return None
        self._at += 1
        return rows[self._at - 1]

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        rows = self._all()[self._at : self._at + size]
        self._at += len(rows)
        return rows

    def to_arrow_table(self) -> pa.Table:
        return self._table

    arrow = fetch_arrow_table = to_arrow_table


class RemoteConnection:
    """`execute` / `sql` / `register` / `unregister`, answered by a collector."""

    def __init__(self, client: CollectorClient) -> None:
        self.client = client
        self._inputs: dict[str, pa.Table] = {}

    def register(self, name: str, table: Any) -> None:
        self._inputs[name] = table if isinstance(table, pa.Table) else pa.table(table)

    def unregister(self, name: str) -> None:
        self._inputs.pop(name, None)

    def execute(self, sql: str, params: Any = None) -> RemoteResult:
        named = {
            name: table
            for name, table in self._inputs.items()
            if re.search(rf"\b{re.escape(name)}\b", sql)
        }
        return RemoteResult(self.client.arrow(sql, params or None, named))

    sql = execute

    def close(self) -> None:
        self.client.close()
