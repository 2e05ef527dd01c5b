"""Bounds on what the simulator puts in a span, so a turn always fits the collector's limit.

An agent may answer 20 MB; the turn span carrying that would exceed the
collector's request limit and the whole export (other conversations' spans
too) would be refused. Texts past `TURN_TEXT_LIMIT` bytes are cut at a
character boundary and end with `TRUNCATED_MARKER` and how much was dropped;
the run's own results keep the full text. Pure.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TRUNCATED_MARKER", "TURN_TEXT_LIMIT", "bounded_json", "bounded_text"]

TURN_TEXT_LIMIT = 1 << 20
"""Most bytes (UTF-8) of one text attribute of a turn span."""
TRUNCATED_MARKER = "…[truncated by tracesim:"


def bounded_text(text: str, limit: int = TURN_TEXT_LIMIT) -> str:
    """`text` when it fits `limit` bytes, else its head and a marker saying what was cut."""
    if len(text) * 4 <= limit:  # fits whatever the characters are
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    head = data[:limit].decode("utf-8", "ignore")
    return f"{head}{TRUNCATED_MARKER} {len(data) - len(head.encode())} bytes dropped]"


def _shorten(value: Any, limit: int) -> Any:
    """Every string inside `value` bounded to `limit` bytes."""
    if isinstance(value, str):
        return bounded_text(value, limit)
    if isinstance(value, list):
        return [_shorten(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: _shorten(item, limit) for key, item in value.items()}
    return value


def bounded_json(value: Any, limit: int = TURN_TEXT_LIMIT) -> str:
    """`value` as JSON within about `limit` bytes: long strings inside are truncated (with
    the marker) until it fits, so the document stays valid JSON."""
    text = json.dumps(value)
    per_string = limit
    while len(text.encode()) > limit and per_string > 64:
        per_string //= 4
        text = json.dumps(_shorten(value, per_string))
    return text
