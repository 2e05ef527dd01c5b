"""A decoded, routed batch as the Arrow tables the store writes (`prepare`), and rolling a
half-decoded request back out of the column lists. Pure, and free of DuckDB: the decoder
process imports it without loading the database engine (~50 MB and 0.3 s a start).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import pyarrow as pa
from tracesim.collector.decode.decode import SPAN_FIELDS, SpanBatch
from tracesim.collector.decode.decode_logs import LOG_FIELDS, LogBatch
from tracesim.collector.store.columns import table_of

__all__ = [
    "CONVERSATION_FIELDS",
    "COUNT_FIELDS",
    "TABLE_FIELDS",
    "TURN_FIELDS",
    "PreparedBatch",
    "marks",
    "prepare",
    "rollback",
]

TURN_FIELDS = (
    "chat_id",
    "turn_id",
    "run_id",
    "scenario_id",
    "trace_id",
    "span_id",
    "user_message",
    "agent_message",
    "explicit_tool_calls",
    "start_time",
    "end_time",
    "duration_ms",
    "status",
    "error",
)
CONVERSATION_FIELDS = (
    "chat_id",
    "run_id",
    "scenario_id",
    "conversation_index",
    "agent_type",
    "num_turns",
    "status",
    "error",
    "scenario",
    "start_time",
    "end_time",
    "duration_ms",
    "trace_id",
    "span_id",
)
_SPAN_JSON = ("attributes", "resource_attributes", "events", "links")
_LOG_JSON = ("body", "attributes", "resource_attributes")
"""JSON columns that decoding fills with orjson's output only (valid JSON by construction):
DuckDB need not parse them again (`table_of`)."""


def _keep_first(keys: list[Any]) -> list[int] | None:
    """Indexes of the first occurrence of each key, or None when all keys are distinct."""
    if len(set(keys)) == len(keys):
        return None
    seen: set[Any] = set()
    keep = []
    for index, key in enumerate(keys):
        if key not in seen:
            seen.add(key)
            keep.append(index)
    return keep


def _select(columns: dict[str, list[Any]], keep: list[int] | None) -> dict[str, list[Any]]:
    """The rows at `keep` of every column (all rows when None)."""
    if keep is None:
        return columns
    return {name: [values[i] for i in keep] for name, values in columns.items()}


@dataclass
class PreparedBatch:
    """Arrow tables of one batch, ready for `Store.write` (None where empty)."""

    spans: pa.Table | None = None
    logs: pa.Table | None = None
    turns: pa.Table | None = None
    conversations: pa.Table | None = None
    backfill: pa.Table | None = None
    session_backfill: pa.Table | None = None
    nulled: int = 0
    """Values stored as NULL because they did not fit their column (`collector.store.columns`)."""
    duplicates: int = 0
    """Spans and log records left out because the batch held their id already (the first
    is kept): counted, as an id reused with other content would otherwise vanish unsaid."""

    def tables(self) -> list[tuple[str, pa.Table]]:
        """(field name, table) of the tables present, in the order `Store.write` runs them."""
        return [
            (name, getattr(self, name)) for name in TABLE_FIELDS if getattr(self, name) is not None
        ]

    def split(self) -> list[PreparedBatch]:
        """Smaller batches holding the same rows, in write order (to isolate a bad row): one
        per table, or the two halves of a single table. [] for a batch of one row."""
        tables = self.tables()
        if len(tables) > 1:
            return [PreparedBatch(**{name: table}) for name, table in tables]
        if not tables or tables[0][1].num_rows < 2:
            return []
        name, table = tables[0]
        half = table.num_rows // 2
        return [
            PreparedBatch(**{name: table.slice(0, half)}),
            PreparedBatch(**{name: table.slice(half)}),
        ]


COUNT_FIELDS = ("nulled", "duplicates")
"""The fields of `PreparedBatch` that are counts, not tables."""
TABLE_FIELDS = tuple(f.name for f in fields(PreparedBatch) if f.name not in COUNT_FIELDS)
"""The table fields of `PreparedBatch`, in write order."""


def _latest(
    rows: list[dict[str, Any]], key: tuple[str, ...], names: tuple[str, ...]
) -> tuple[pa.Table | None, int]:
    """Turn / conversation rows as a table, the last row of each key winning."""
    if not rows:
        return None, 0
    latest = {tuple(row[k] for k in key): row for row in rows}
    return table_of({name: [row[name] for row in latest.values()] for name in names}, names)


def prepare(
    spans: SpanBatch,
    logs: LogBatch,
    backfill: list[tuple[str, str, int]],
    session_backfill: list[tuple[str, str]] | None = None,
) -> PreparedBatch:
    """Build the Arrow tables of a decoded, routed batch (deduplicated by primary key). Pure."""
    batch = PreparedBatch()
    nulled = [0, 0, 0, 0]
    if len(spans):
        cols = spans.columns
        keep = _keep_first(list(zip(cols["trace_id"], cols["span_id"], strict=True)))
        batch.duplicates += len(spans) - len(keep) if keep is not None else 0
        batch.spans, nulled[0] = table_of(_select(cols, keep), SPAN_FIELDS, json_columns=_SPAN_JSON)
    if len(logs):
        keep = _keep_first(logs.columns["log_id"])
        batch.duplicates += len(logs) - len(keep) if keep is not None else 0
        batch.logs, nulled[1] = table_of(
            _select(logs.columns, keep), LOG_FIELDS, json_columns=_LOG_JSON
        )
    batch.turns, nulled[2] = _latest(spans.turns, ("chat_id", "turn_id"), TURN_FIELDS)
    batch.conversations, nulled[3] = _latest(
        spans.conversations, ("chat_id",), CONVERSATION_FIELDS
    )
    batch.nulled = sum(nulled)
    if backfill:
        trace_ids, chats, turn_ids = (list(c) for c in zip(*backfill, strict=True))
        batch.backfill = pa.table(
            {
                "trace_id": pa.array(trace_ids, pa.string()),
                "chat_id": pa.array(chats, pa.string()),
                "turn_id": pa.array(turn_ids, pa.int32()),
            }
        )
    if session_backfill:
        trace_ids, chats = (list(c) for c in zip(*session_backfill, strict=True))
        batch.session_backfill = pa.table(
            {"trace_id": pa.array(trace_ids, pa.string()), "chat_id": pa.array(chats, pa.string())}
        )
    return batch


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
