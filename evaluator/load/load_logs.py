"""OTLP log records of a span, read as that span's events (SPEC §5: tool calls and results
carried in log records are evidence like span events).

OTel GenAI instrumentations in event mode put the messages of a model call in log
records linked to its span (`gen_ai.choice`, `gen_ai.assistant.message`,
`gen_ai.tool.message`, `gen_ai.client.inference.operation.details` with
`gen_ai.input.messages` / `gen_ai.output.messages`). Each record becomes an event
`{"name": event_name, "attributes": attributes + body}` appended to its span's
`events`, so extraction reads spans and logs the same way. The event name is the record's
`event_name`, else its `event.name` attribute (the JS SDKs and older Python ones set only
that). Only records that may carry a model's messages are read (`EVIDENCE_SQL`): an
application's own logs never are. One query per chunk, and none when the file holds no
such record linked to a span.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import pyarrow as pa

__all__ = [
    "EVENT_NAME_ATTRIBUTE",
    "EVIDENCE_SQL",
    "apply_logs",
    "attach_logs",
    "has_span_logs",
    "span_log_rows",
]

_TABLE = "_tracesim_chunk_log_keys"
EVENT_NAME_ATTRIBUTE = "event.name"
"""Where a log record names its event when its `event_name` field is empty."""

EVIDENCE_SQL = (
    "(coalesce(l.event_name, '') LIKE 'gen_ai.%' "
    "OR CAST(l.attributes AS VARCHAR) LIKE '%\"event.name\":\"gen_ai.%' "
    "OR CAST(l.attributes AS VARCHAR) LIKE '%\"gen_ai.input.messages\"%' "
    "OR CAST(l.attributes AS VARCHAR) LIKE '%\"gen_ai.output.messages\"%')"
)
"""DuckDB predicate on `logs l`: a record that may carry a model's messages (a `gen_ai.*`
event, by field or `event.name` attribute, or the message attributes themselves)."""


def has_span_logs(con: Any) -> bool:
    """True when some log record linked to a span may carry tool evidence (worth reading
    per chunk)."""
    rows = con.execute(
        f"SELECT EXISTS (SELECT 1 FROM logs l WHERE l.span_id IS NOT NULL AND {EVIDENCE_SQL})"
    ).fetchall()
    return bool(rows and rows[0][0])


def _event(name: Any, body: Any, attributes: Any) -> dict[str, Any]:
    attrs = orjson.loads(attributes) if isinstance(attributes, str) and attributes else {}
    attrs = attrs if isinstance(attrs, dict) else {}
    if isinstance(body, str) and body:
        try:
            decoded = orjson.loads(body)
        except orjson.JSONDecodeError:
            decoded = body
        if isinstance(decoded, dict):
            attrs = {**attrs, **decoded}
        elif decoded is not None:
            attrs = {**attrs, "body": decoded}
    return {"name": name or attrs.get(EVENT_NAME_ATTRIBUTE) or "log", "attributes": attrs}


def attach_logs(con: Any, spans: Sequence[dict[str, Any]]) -> None:
    """Append the log records of `spans` (rows with trace_id, span_id, events) to their
    `events`, in place, ordered by time."""
    if not spans:
        return
    keys = pa.table(
        {
            "trace_id": pa.array([s["trace_id"] for s in spans], pa.string()),
            "span_id": pa.array([s["span_id"] for s in spans], pa.string()),
        }
    )
    apply_logs(spans, span_log_rows(con, keys))


def span_log_rows(con: Any, keys: pa.Table) -> list[tuple[Any, ...]]:
    """The log records of the spans `keys` (a table of trace_id, span_id) that may carry
    tool evidence, ordered by time: (trace_id, span_id, event_name, body, attributes) rows
    for `apply_logs`."""
    if not keys.num_rows:
        return []
    con.register(_TABLE, keys)
    try:
        return con.execute(
            f"SELECT l.trace_id, l.span_id, l.event_name, l.body, l.attributes FROM logs l "
            f"JOIN {_TABLE} k USING (trace_id, span_id) WHERE {EVIDENCE_SQL} "
            "ORDER BY l.time NULLS LAST, l.log_id"
        ).fetchall()
    finally:
        con.unregister(_TABLE)


def apply_logs(spans: Sequence[dict[str, Any]], rows: Sequence[tuple[Any, ...]]) -> None:
    """Append log `rows` (`span_log_rows`) to the `events` of their spans, in place."""
    if not rows:
        return
    by_span: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for trace_id, span_id, name, body, attributes in rows:
        by_span.setdefault((trace_id, span_id), []).append(_event(name, body, attributes))
    for span in spans:
        extra = by_span.get((span["trace_id"], span["span_id"]))
        if not extra:
            continue
        events = span.get("events")
        if isinstance(events, (str, bytes)):
            events = orjson.loads(events) if events else []
        events = list(events or []) + extra
        span["events"] = orjson.dumps(events).decode()
