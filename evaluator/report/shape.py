"""Shape records for embedding in the report: clipped text, one turn's span tree.

Pure functions, no I/O. `clip_sql` is `clip` as a SQL expression, for the
columns `details.py` shapes in SQL (tool calls, scores, messages).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import orjson

__all__ = [
    "MAX_SPANS_PER_TURN",
    "MAX_TEXT",
    "SPAN_ERROR",
    "SPAN_TOOL",
    "clip",
    "clip_sql",
    "span_tree",
]

MAX_TEXT = 4000
"""Longest message / tool result / reason embedded per field (the rest is cut, marked)."""
MAX_SPANS_PER_TURN = 300
"""Spans drawn per turn waterfall; the rest is counted, not embedded."""
SPAN_ERROR = 1
"""Span flag: its status is ERROR (drawn red, status message in the hover)."""
SPAN_TOOL = 2
"""Span flag: it executes a tool (drawn blue)."""


def clip(text: Any, limit: int = MAX_TEXT) -> str | None:
    """Text cut to `limit` characters, saying how much was cut."""
    if text is None:
        return None
    text = text if isinstance(text, str) else orjson.dumps(text, default=str).decode()
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def clip_sql(expr: str, limit: int = MAX_TEXT) -> str:
    """`clip` as a SQL expression over the VARCHAR `expr` (lengths in code points, as here)."""
    return (
        f"CASE WHEN length({expr}) <= {limit} THEN {expr} ELSE left({expr}, {limit})"
        f" || '… [' || (length({expr}) - {limit}) || ' more characters]' END"
    )


def span_tree(rows: list[tuple[Any, ...]], details: list[Any] | None = None) -> list[list[Any]]:
    """One turn's spans in tree order (parents before children) with their depth.

    `rows`: (span_id, parent_span_id, name, start offset ms, duration ms,
    flags, service name, model, input tokens, output tokens, status
    message), siblings already in start order (`details.py` sorts in SQL).
    A span whose parent is not among them is a root. Each entry holds only
    what the waterfall draws: [name, start offset ms, duration ms, depth,
    flags (`SPAN_ERROR` | `SPAN_TOOL`), service name, model, input tokens,
    output tokens, status message (of errors)], trailing nulls dropped; at
    most `MAX_SPANS_PER_TURN` entries. With `details` given, each row's last
    element is the span's inspector record (`span_detail.py`), appended to
    `details` in the same order as the entries.
    """
    ids = {r[0] for r in rows}
    children: dict[str | None, list[tuple[Any, ...]]] = defaultdict(list)
    for r in rows:
        children[r[1] if r[1] in ids else None].append(r)
    out: list[list[Any]] = []
    seen: set[str] = set()
    # roots first; then spans only reachable through a parent cycle or a self-parent (SPEC
    # §5: tolerated wherever a tree is walked), each as a root, in start order
    for root in (None, *rows):
        if root is None:
            stack = [(r, 0) for r in reversed(children[None])]
        elif root[0] in seen:
            continue
        else:
            stack = [(root, 0)]
        while stack and len(out) < MAX_SPANS_PER_TURN:
            r, depth = stack.pop()
            if r[0] in seen:
                continue
            seen.add(r[0])
            cols = r[:-1] if details is not None else r
            entry = [cols[2], cols[3], cols[4], depth, *cols[5:]]
            if details is not None:
                details.append(r[-1])
            while entry[-1] is None:  # trailing nulls cost bytes at 30k spans
                entry.pop()
            out.append(entry)
            kids = children.get(r[0])
            if kids:
                stack.extend((c, depth + 1) for c in reversed(kids))
    return out
