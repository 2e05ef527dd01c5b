"""Choosing conversations: deterministic samples, recent and not-yet-evaluated chats."""

from tracesim.evaluator.select.sampling import (
    Sample,
    choose,
    parse_sample,
    parse_since,
    sample_key,
)
from tracesim.evaluator.select.selection import (
    Selection,
    SelectionReport,
    apply_selection,
    chat_last_seen,
)

__all__ = [
    "Sample",
    "Selection",
    "SelectionReport",
    "apply_selection",
    "chat_last_seen",
    "choose",
    "parse_sample",
    "parse_since",
    "sample_key",
]
