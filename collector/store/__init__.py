"""The writing side: writer threads, replay of spooled records, and the DuckDB store."""

from tracesim.collector.store.columns import COLUMN_TYPES, table_of
from tracesim.collector.store.replay import replay_item, replay_items
from tracesim.collector.store.store import (
    DEFAULT_CHECKPOINT_THRESHOLD,
    DEFAULT_MEMORY_LIMIT,
    PreparedBatch,
    Store,
    check_size,
    prepare,
)
from tracesim.collector.store.writer import KIND_LOGS, KIND_TRACES, Item, Writer, WriterStats
from tracesim.collector.store.writer_batches import DATA_ERRORS, concat, marks, rollback

__all__ = [
    "COLUMN_TYPES",
    "DATA_ERRORS",
    "DEFAULT_CHECKPOINT_THRESHOLD",
    "DEFAULT_MEMORY_LIMIT",
    "Item",
    "KIND_LOGS",
    "KIND_TRACES",
    "PreparedBatch",
    "Store",
    "Writer",
    "WriterStats",
    "check_size",
    "concat",
    "marks",
    "prepare",
    "replay_item",
    "replay_items",
    "rollback",
    "table_of",
]
