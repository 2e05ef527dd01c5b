"""An index written in text (`gen_ai.prompt.3.content`, `spool-000042.log`), read safely.

`str.isdigit()` is True for superscripts (`²`) and other scripts' digits that `int()`
refuses or reads, and a key may carry thousands of digits (past `int()`'s 4,300-digit
limit): each raised ValueError where a plain index was expected, which skipped a whole
model span's calls, or stopped the collector's start on a stray spool file name. Only
ASCII digits, at most 20 of them, are an index.
"""

from __future__ import annotations

__all__ = ["MAX_INDEX_DIGITS", "ascii_index"]

MAX_INDEX_DIGITS = 20
"""Digits an index may have (an unsigned 64-bit number; spool segments use 20)."""


def ascii_index(text: str) -> int | None:
    """`text` as a non-negative int when it is 1-20 ASCII digits, else None."""
    if not text or len(text) > MAX_INDEX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)
