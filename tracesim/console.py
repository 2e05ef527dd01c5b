"""The consoles the CLI prints through: stored text is never markup, pipes are never wrapped.

Rich reads `[...]` as markup, `:name:` as emoji and colours numbers and
paths by itself. Everything tracesim prints comes from a console made here:
no emoji, no automatic highlighting, and when the output is not a terminal
(a CI log, `| tee`) a width wide enough that no line is wrapped or cut.
Values from the database or the user (scenario ids, SQL cells, messages)
go into tables as `Text` (`plain`), which Rich never parses.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from tracesim.schemas.terminal_text import SafeConsole

__all__ = ["PIPE_WIDTH", "make_console", "plain"]

PIPE_WIDTH = 4000
"""Width of a console writing to a pipe or file: lines are never wrapped there."""


def make_console(*, stderr: bool = False, **kwargs: Any) -> Console:
    """A console without emoji or auto-highlighting; unwrapped when not a terminal."""
    probe = Console(stderr=stderr)
    options: dict[str, Any] = {"emoji": False, "highlight": False, "stderr": stderr}
    if not probe.is_terminal:
        options["width"] = PIPE_WIDTH
    options.update(kwargs)
    return SafeConsole(**options)  # text from spans never drives the terminal


def plain(value: Any, *, style: str = "") -> Text:
    """`value` as text Rich shows verbatim (no markup, no emoji)."""
    return Text("" if value is None else str(value), style=style)
