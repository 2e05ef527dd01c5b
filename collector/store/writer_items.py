"""What flows through the writer: one request waiting to be stored (`Item`), the writer's
counters (`WriterStats`) and a prepared batch handed to the database thread (`Job`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracesim.collector.store.store import PreparedBatch

__all__ = ["Item", "Job", "WriterStats"]


@dataclass
class Item:
    """One acknowledged (or replayed) request waiting to be stored: `message` is the parsed
    request or its spooled bytes (see `Writer.takes_payload`), None once handled."""

    seq: int
    kind: int
    message: Any
    nbytes: int
    count: int


@dataclass
class WriterStats:
    """Counters of the writer (rows actually inserted, i.e. after dedup)."""

    spans_stored: int = 0
    logs_stored: int = 0
    batches: int = 0
    requests: int = 0
    failed_requests: int = 0
    committed_seq: int = 0
    nulled_values: int = 0
    duplicates: int = 0
    dead_rows: int = 0
    unreadable_items: int = 0


Job = tuple[list[Item], PreparedBatch, "tuple[int, int] | None"]
"""A prepared batch for the database thread; the last field names a retried failed batch."""
