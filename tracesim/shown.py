"""Names and messages printed one to a line: a file name may hold a newline or any other
control character, and printed raw it would split the line (or forge one) in the output a
user or a script reads. `shown` quotes such a name with its characters escaped; `one_line`
escapes them in a whole message (bad-input errors are one line, whatever they name)."""

from __future__ import annotations

import os
import re
from pathlib import PurePath

__all__ = ["one_line", "shown"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""Characters that break or rewrite a terminal line: C0 and C1 controls, DEL, and the
Unicode line and paragraph separators."""


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if char in named:
        return named[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(name: str | os.PathLike[str] | PurePath) -> str:
    """`name` as printed: unchanged when it holds no control character, else quoted with
    them escaped (`'a\\nb.json'`), so it stays on its line and reads as one name."""
    text = os.fspath(name) if not isinstance(name, str) else name
    if not _CONTROL.search(text):
        return text
    return "'" + _CONTROL.sub(_escape, text.replace("\\", "\\\\").replace("'", "\\'")) + "'"


def one_line(message: str) -> str:
    """`message` with every control character escaped (a newline becomes `\\n`)."""
    return _CONTROL.sub(_escape, message)
