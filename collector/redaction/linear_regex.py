"""Linear-time matching for redaction: every rule runs on RE2 (google-re2), never on `re`.

Python's `re` backtracks: the e-mail preset took 36 s on 100 KB without a top-level
domain, on the receiving thread, and a user's `(a+)+$` never ends. RE2 matches in time
linear in the text whatever the pattern, by refusing what cannot (look-arounds,
backreferences). The presets need a look-behind or look-ahead at their edges; a `Part`
carries those as checks of the bytes around a match: a match whose end fails is shortened
(as backtracking would), one whose start fails is retried one character further on, and
every such part's matches are bounded in length, so the scan stays linear. Text is encoded to UTF-8 once per rule, so each search costs only what it
scans (RE2's own `str` path re-encodes the whole text on every call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

try:  # a declared dependency; without it pattern rules are refused, never run on `re`
    import re2
except ImportError:  # pragma: no cover - exercised only on a broken install
    re2 = None

__all__ = [
    "ENGINE",
    "LinearRegexError",
    "Part",
    "char_at",
    "char_before",
    "compile_linear",
    "python_classes",
    "substitute",
]

ENGINE = "re2"
"""The engine every pattern rule and preset runs on."""


class LinearRegexError(ValueError):
    """A pattern RE2 cannot run (a look-around, a backreference, ...); says what and why."""


_OUTSIDE = {"d": r"\p{Nd}", "D": r"\P{Nd}", "w": r"[\p{L}\p{N}_]", "W": r"[^\p{L}\p{N}_]"}
_INSIDE = {"d": r"\p{Nd}", "w": r"\p{L}\p{N}_"}


def python_classes(pattern: str) -> str:
    """`pattern` with `\\d` and `\\w` meaning what they mean in Python's `re` on text (any
    script's digits and letters), where RE2 means ASCII only."""
    out: list[str] = []
    in_class = False
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "\\" and index + 1 < size:
            letter = pattern[index + 1]
            table = _INSIDE if in_class else _OUTSIDE
            out.append(table.get(letter, char + letter))
            index += 2
            continue
        out.append(char)
        index += 1
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("^", index):  # [^ ... and a ] first is a literal
                out.append("^")
                index += 1
            if pattern.startswith("]", index):
                out.append("]")
                index += 1
    return "".join(out)


def compile_linear(pattern: str) -> Any:
    """`pattern` compiled by RE2 (linear-time matching); LinearRegexError when it cannot be.
    `\\d` and `\\w` keep their Python meaning (`python_classes`)."""
    if re2 is None:
        raise LinearRegexError(
            "pattern rules need the linear-time regex engine: pip install google-re2"
        )
    pattern = python_classes(pattern)
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 32 << 20
    try:
        return re2.compile(pattern, options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise LinearRegexError(
            f"{reason}: redaction patterns run on RE2 (linear time whatever the text), which "
            "has no look-arounds or backreferences; match the edges explicitly instead"
        ) from None


def char_before(data: bytes, at: int) -> str:
    """The character ending at byte `at` of UTF-8 `data` ("" at the start)."""
    if at <= 0:
        return ""
    first = at - 1
    while first > 0 and at - first < 4 and 0x80 <= data[first] < 0xC0:
        first -= 1
    return data[first:at].decode("utf-8", "replace")


def char_at(data: bytes, at: int) -> str:
    """The character starting at byte `at` of UTF-8 `data` ("" past the end)."""
    if at >= len(data):
        return ""
    lead = data[at]
    size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return data[at : at + size].decode("utf-8", "replace")


@dataclass(frozen=True)
class Part:
    """One linear pattern with the edge checks a look-around would have made.

    `before(char)`: True when the character before a match rules it out (a look-behind);
    `after(data, end)`: True when the text after a match rules it out (a look-ahead);
    `check(text)`: False keeps a match as it is (a Luhn check, excluded number ranges).
    `before_run`: a character class of what `before` rejects (`[\\d.]`): where a match's
    start fails, none can start inside a run of those either, so the scan jumps past it
    (a million digits cost one search, not a million).
    The pattern is compiled on first use, so importing the presets needs no engine.
    """

    pattern: str
    before: Callable[[str], bool] | None = None
    after: Callable[[bytes, int], bool] | None = None
    check: Callable[[str], bool] | None = None
    before_run: str | None = None

    @cached_property
    def regex(self) -> Any:
        """The compiled pattern (LinearRegexError when RE2 cannot run it)."""
        return compile_linear(self.pattern)

    @cached_property
    def skip(self) -> Any:
        """A run of characters no match may follow (None without `before_run`)."""
        return compile_linear(self.before_run + "+") if self.before_run else None

    @classmethod
    def of(
        cls,
        pattern: str,
        *,
        before: Callable[[str], bool] | None = None,
        after: Callable[[bytes, int], bool] | None = None,
        check: Callable[[str], bool] | None = None,
        before_run: str | None = None,
    ) -> Part:
        """A part from a pattern and its edge rules."""
        return cls(pattern, before, after, check, before_run)


def substitute(parts: tuple[Part, ...], text: str, replacement: str) -> str:
    """`text` with every accepted match replaced; the parts are the alternatives of one
    pattern (`a|b`): at each point the leftmost viable match wins, the earlier part on a
    tie, all read on the original text. `text` itself (the same object) when nothing was
    replaced."""
    data = text.encode("utf-8", "surrogatepass")
    put = replacement.encode("utf-8", "surrogatepass")
    pieces: list[bytes] = []
    done = at = 0
    end_of_data = len(data)
    found: list[tuple[int, int] | None] = [None] * len(parts)
    gone = [False] * len(parts)  # this part has no viable match left
    while at <= end_of_data:
        best = -1
        for index, part in enumerate(parts):
            if gone[index]:
                continue
            span = found[index]
            if span is None or span[0] < at:  # recomputed only once passed: linear
                span = found[index] = _first_viable(part, data, at)
                if span is None:
                    gone[index] = True
                    continue
            if best < 0 or span[0] < found[best][0]:  # type: ignore[index]
                best = index
        if best < 0:
            break
        start, end = found[best]  # type: ignore[misc]
        check = parts[best].check
        if check is None or check(data[start:end].decode("utf-8", "replace")):
            pieces.append(data[done:start])
            pieces.append(put)
            done = end
        at = end if end > start else end + 1
    if not pieces:
        return text
    pieces.append(data[done:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def _first_viable(part: Part, data: bytes, at: int) -> tuple[int, int] | None:
    """(start, end) of the first match of `part` at or after `at` whose edges pass."""
    search = part.regex.search
    before, after, skip = part.before, part.after, part.skip
    end_of_data = len(data)
    while at <= end_of_data:
        match = search(data, at)
        if match is None:
            return None
        start, end = match.span()
        if before is not None and before(char_before(data, start)):
            at = start + 1  # the edge rules it out: a match may still start further on,
            if skip is not None:  # but not right after a character `before` rejects
                run = skip.match(data, start)
                if run is not None:
                    at = run.end() + 1
            continue
        if after is not None and after(data, end):
            shorter = _shorter_match(part, data, start, end)
            if shorter is None:
                at = start + 1
                continue
            end = shorter
        return start, end
    return None


def _shorter_match(part: Part, data: bytes, start: int, end: int) -> int | None:
    """The end of the longest match at `start` shorter than `end` that the look-ahead
    accepts (what a backtracking engine would settle on), or None. Only parts with edge
    checks get here, and their matches are a few dozen bytes at most: constant work."""
    after = part.after
    assert after is not None
    match_at = part.regex.match
    limit = end - 1
    while limit > start:
        match = match_at(data, start, limit)
        if match is None:
            return None
        end = match.end()
        if not after(data, end):
            return end
        limit = end - 1
    return None
