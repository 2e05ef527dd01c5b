"""Text from spans shown on a terminal: control characters made harmless.

Span names, conversation ids, service and tool names are whatever an exporter sent: an
escape sequence in one (`ESC ] 0 ; title BEL`, `ESC [ 2 J`) printed as is retitles or
clears the user's terminal, or hides lines. `printable` replaces every C0/C1 control
character but newline and tab with U+FFFD; `SafeConsole` is a Rich console doing so
for everything it prints (its own styling and cursor codes are untouched).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment

__all__ = ["REPLACEMENT", "SafeConsole", "printable"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
REPLACEMENT = "\ufffd"
"""What a control character is shown as."""


def printable(text: str) -> str:
    """`text` with its control characters (but newline and tab) shown as U+FFFD."""
    return _CONTROL.sub(REPLACEMENT, text)


class SafeConsole(Console):
    """A Rich console whose printed text never carries a control character from data:
    only the codes Rich itself writes (colours, cursor moves) reach the terminal."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(_printable_segments(buffer))


def _printable_segments(buffer: Iterable[Segment]) -> Iterable[Segment]:
    for segment in buffer:
        if segment.control or not _CONTROL.search(segment.text):
            yield segment
        else:
            yield Segment(printable(segment.text), segment.style, segment.control)
