"""Helpers of the writer for batches that go wrong: which errors are the rows' fault,
merging per-request batches, and rolling back a half-decoded request. Pure."""

from __future__ import annotations

import duckdb
import pyarrow as pa
from tracesim.collector.store.prepared import TABLE_FIELDS, PreparedBatch, marks, rollback

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
