"""Shape single records for embedding in the report: clipped text, compact lists.

Pure functions, no I/O: one tool call, one score, one turn's span tree.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

import orjson

__all__ = ["MAX_SPANS_PER_TURN", "MAX_TEXT", "call_entry", "clip", "score_entry", "span_tree"]

MAX_TEXT = 4000
"""Longest message / tool result / reason embedded per field (the rest is cut, marked)."""
MAX_SPANS_PER_TURN = 300
"""Spans drawn per turn waterfall; the rest is counted, not embedded."""


def clip(text: Any, limit: int = MAX_TEXT) -> str | None:
    """Text cut to `limit` characters, saying how much was cut."""
    if text is None:
        return None
    text = text if isinstance(text, str) else orjson.dumps(text, default=str).decode()
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def score_entry(s: dict[str, Any]) -> list[Any]:
    """A score as embedded in the page: [metric, value, passed, label, reason]."""
    return [s["metric"], s["value"], s["passed"], s["label"], clip(s["reason"], 600)]


def span_tree(spans: list[dict[str, Any]]) -> list[list[Any]]:
    """Spans in tree order (parents before children, siblings by start) with their depth.

    Each entry: [name, start offset ms, duration ms, depth, status code,
    service name, operation, tool name, model, input tokens, output
    tokens, status message], trailing nulls dropped.
    """
    if not spans:
        return []
    ids = {s["span_id"] for s in spans}
    children: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for s in spans:
        parent = s["parent_span_id"] if s["parent_span_id"] in ids else None
        children[parent].append(s)
    for group in children.values():
        group.sort(key=lambda s: (s["start_time"] or datetime.min, s["span_id"]))
    t0 = min((s["start_time"] for s in spans if s["start_time"]), default=None)
    out: list[list[Any]] = []
    stack = [(s, 0) for s in reversed(children[None])]
    seen: set[str] = set()
    while stack and len(out) < MAX_SPANS_PER_TURN:
        span, depth = stack.pop()
        if span["span_id"] in seen:
            continue
        seen.add(span["span_id"])
        offset = (
            (span["start_time"] - t0).total_seconds() * 1000 if t0 and span["start_time"] else 0
        )
        entry = [
            span["name"],
            round(offset, 3),
            round(span["duration_ms"] or 0.0, 3),
            depth,
            span["status_code"],
            span["service_name"],
            span["operation"],
            span["tool_name"],
            span["model"],
            span["input_tokens"],
            span["output_tokens"],
            clip(span["status_message"], 300),
        ]
        while entry[-1] is None:  # trailing nulls cost bytes at 30k spans
            entry.pop()
        out.append(entry)
        stack.extend((c, depth + 1) for c in reversed(children.get(span["span_id"], [])))
    return out


def call_entry(c: dict[str, Any]) -> dict[str, Any]:
    """A `tool_calls` row as embedded in the page, with how it was observed.

    `observed`: `explicit` (the agent reported it, no span matched), `traced`
    (from spans only), `both` (reported explicitly and matched to a span).
    """
    explicit = c["source"] not in (None, "tracing_processor")
    observed = "both" if explicit and c["traced"] else "explicit" if explicit else "traced"
    return {
        "seq": c["seq"],
        "id": c["id"] or "",
        "name": c["name"],
        "arguments": clip(c["arguments"]),
        "result": clip(c["result"]),
        "error": clip(c["error"]),
        "source": c["source"],
        "observed": observed,
        "ms": round(c["duration_ms"], 3) if c["duration_ms"] is not None else None,
        "span_id": c["span_id"],
    }
