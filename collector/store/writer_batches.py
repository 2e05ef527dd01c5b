"""Helpers of the writer for batches that go wrong: which errors are the rows' fault,
merging per-request batches, and rolling back a half-decoded request. Pure."""

from __future__ import annotations

import duckdb
import pyarrow as pa
from tracesim.collector.decode.decode import SpanBatch
from tracesim.collector.decode.decode_logs import LogBatch
from tracesim.collector.store.store import TABLE_FIELDS, PreparedBatch

__all__ = ["DATA_ERRORS", "concat", "marks", "rollback"]

DATA_ERRORS = (
    duckdb.DataError,
    duckdb.IntegrityError,
    duckdb.InvalidInputException,
    pa.ArrowException,
    OverflowError,
    TypeError,
    ValueError,
    UnicodeError,
)
"""Failures caused by the rows themselves: the batch is split to isolate them. Any other
failure (disk full, out of memory) is the machine's: the batch stays in the spool."""


def concat(first: PreparedBatch, second: PreparedBatch) -> PreparedBatch:
    """Both batches' rows in one (tables concatenated, `second` after `first`)."""
    merged = PreparedBatch(
        nulled=first.nulled + second.nulled, duplicates=first.duplicates + second.duplicates
    )
    for name in TABLE_FIELDS:  # every table: a name left out here was dropped silently
        a, b = getattr(first, name), getattr(second, name)
        both = [t for t in (a, b) if t is not None]
        setattr(merged, name, pa.concat_tables(both) if len(both) > 1 else (both or [None])[0])
    return merged


def marks(spans: SpanBatch, logs: LogBatch) -> tuple[int, int, int, int]:
    """Lengths to roll a batch back to when a request fails half-decoded."""
    return len(spans.rules), len(spans.turns), len(spans.conversations), len(logs.rules)


def rollback(spans: SpanBatch, logs: LogBatch, marks: tuple[int, int, int, int]) -> None:
    """Truncate every column list of both batches to `marks`."""
    span_rows, turns, conversations, log_rows = marks
    for values in spans.columns.values():
        del values[span_rows:]
    del spans.rules[span_rows:], spans.turns[turns:], spans.conversations[conversations:]
    for values in logs.columns.values():
        del values[log_rows:]
    del logs.rules[log_rows:]
