"""The writing side: writer threads, replay of spooled records, and the DuckDB store.

Public names are imported on first use (the decoder process needs none of DuckDB).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "COLUMN_TYPES": "tracesim.collector.store.columns",
    "table_of": "tracesim.collector.store.columns",
    "replay_item": "tracesim.collector.store.replay",
    "replay_items": "tracesim.collector.store.replay",
    "DEFAULT_CHECKPOINT_THRESHOLD": "tracesim.collector.store.store",
    "DEFAULT_MEMORY_LIMIT": "tracesim.collector.store.store",
    "PreparedBatch": "tracesim.collector.store.store",
    "Store": "tracesim.collector.store.store",
    "check_size": "tracesim.collector.store.store",
    "prepare": "tracesim.collector.store.store",
    "KIND_LOGS": "tracesim.collector.store.writer",
    "KIND_TRACES": "tracesim.collector.store.writer",
    "Item": "tracesim.collector.store.writer",
    "Writer": "tracesim.collector.store.writer",
    "WriterStats": "tracesim.collector.store.writer",
    "DATA_ERRORS": "tracesim.collector.store.writer_batches",
    "concat": "tracesim.collector.store.writer_batches",
    "marks": "tracesim.collector.store.writer_batches",
    "rollback": "tracesim.collector.store.writer_batches",
}

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

def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
