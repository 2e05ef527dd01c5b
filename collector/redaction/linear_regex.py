"""Linear-time matching for redaction: every rule runs on RE2 (google-re2), never on `re`.

Python's `re` backtracks: the e-mail preset took 36 s on 100 KB without a top-level
domain, on the receiving thread, and a user's `(a+)+$` never ends. RE2 matches in time
linear in the text whatever the pattern, by refusing what cannot (look-arounds,
backreferences). The presets need a look-behind or look-ahead at their edges; a `Part`
folds those into its pattern as characters matched around the match (group 1), so one
RE2 search finds each viable match and Python does one step per match found. Text is
encoded to UTF-8 once per rule, so each search costs only what it scans (RE2's own `str`
path re-encodes the whole text on every call). The edge classes are RE2's Unicode
classes (`\\p{Nd}`, `\\p{L}`), as the patterns' own `\\d` and `\\w` are: they differ from
Python's `str.isdecimal`/`isalnum` only on characters newer than Python's Unicode tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from re import _parser as _re_parser  # type: ignore[attr-defined] - widths, as `re` knows them
from typing import Any

try:  # a declared dependency; without it pattern rules are refused, never run on `re`
    import re2
except ImportError:  # pragma: no cover - exercised only on a broken install
    re2 = None

__all__ = [
    "ENGINE",
    "LinearRegexError",
    "MAX_PROGRAM",
    "MAX_WIDTH",
    "Part",
    "char_at",
    "char_before",
    "compile_linear",
    "costly_pattern",
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


MAX_PROGRAM = 30_000
"""RE2 instructions a pattern rule may compile to. RE2 is linear in the text, but its
constant grows with the program once its DFA cache overflows (then every byte steps every
live thread): `\\w{100}` (134k instructions, `\\w` being every script's letters) cost
1.2 CPU s/MB, `\\pL{1000}` 4.3; the presets stay under 5k, `\\w{20,}` is 27k."""
MAX_WIDTH = 1_000
"""Characters every match of a pattern rule may at least span: a long mandatory run keeps
that many threads alive on text repeating it (a 3,000-character literal cost 20 CPU s/MB
on text of its own letter), however small its program."""


def costly_pattern(pattern: str, regex: Any) -> str | None:
    """Why a pattern rule would scan at a cost far above the presets' (None: it does not)."""
    size = regex.programsize
    if size > MAX_PROGRAM:
        return (
            f"the pattern compiles to {size:,} RE2 instructions, more than {MAX_PROGRAM:,}: "
            "on hostile text each byte would cost up to that many steps and stall ingest. "
            "\\w and \\d match every script's letters and digits (hundreds of instructions "
            "each): repeat them fewer times, or use ASCII classes such as [A-Za-z0-9_]{48}"
        )
    try:
        shortest = _re_parser.parse(pattern).getwidth()[0]
    except Exception:  # noqa: BLE001 - RE2 syntax Python's parser lacks (\pL): not measured
        return None
    if shortest > MAX_WIDTH:
        return (
            f"every match spans at least {shortest:,} characters, more than {MAX_WIDTH:,}: "
            "text repeating it would cost that many steps a byte and stall ingest; match a "
            "shorter distinctive prefix instead"
        )
    return None


def char_before(data: bytes, at: int) -> str:
    """The character ending at byte `at` of UTF-8 `data` ("" at the start)."""
    if at <= 0:
        return ""
    return data[_char_start(data, at) : at].decode("utf-8", "replace")


def char_at(data: bytes, at: int) -> str:
    """The character starting at byte `at` of UTF-8 `data` ("" past the end)."""
    if at >= len(data):
        return ""
    lead = data[at]
    size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return data[at : at + size].decode("utf-8", "replace")


def _char_start(data: bytes, at: int) -> int:
    """The byte where the character ending at byte `at` starts (`at` > 0)."""
    first = at - 1
    while first > 0 and at - first < 4 and 0x80 <= data[first] < 0xC0:
        first -= 1
    return first


@dataclass(frozen=True)
class Part:
    """One linear pattern with the edges a look-around would have checked, folded into it.

    `before`: the body of a character class the character before a match may not be in
    (`\\d.` for `(?<![\\d.])`); `after`: a pattern of what may follow a match (`$|\\D` for
    `(?!\\d)`). Both are matched (consumed) around the match itself, which is group 1, so
    one RE2 search finds the next viable match: RE2 picks the match a backtracking engine
    would (leftmost-first), so a greedy match whose end fails is shortened exactly as
    Python's `re` would, with no retries in Python (each used to cost a search: ~0.5 s/MB
    on "1 1 1 ..."). `check(text)`: False keeps a match as it is (Luhn, never-issued SSNs).
    The pattern is compiled on first use, so importing the presets needs no engine.
    """

    pattern: str
    before: str | None = None
    after: str | None = None
    check: Callable[[str], bool] | None = None

    @cached_property
    def folded(self) -> str:
        """The pattern with its edges: the match itself is group 1 when it has edges."""
        if self.before is None and self.after is None:
            return self.pattern
        head = f"(?:^|[^{self.before}])" if self.before is not None else ""
        tail = f"(?:{self.after})" if self.after is not None else ""
        return f"{head}({self.pattern}){tail}"

    @cached_property
    def regex(self) -> Any:
        """The compiled pattern, edges included (LinearRegexError when RE2 cannot run it)."""
        return compile_linear(self.folded)

    @cached_property
    def group(self) -> int:
        """Which span of a match is the text to redact."""
        return 0 if self.folded is self.pattern else 1

    @classmethod
    def of(
        cls,
        pattern: str,
        *,
        before: str | None = None,
        after: str | None = None,
        check: Callable[[str], bool] | None = None,
    ) -> Part:
        """A part from a pattern and its edge rules."""
        return cls(pattern, before, after, check)

    def find(self, data: bytes, at: int) -> tuple[int, int] | None:
        """(start, end) in bytes of the first match starting at or after `at`, or None.
        One call into RE2, whose raw `Match` is used: the wrapper's generator and match
        objects cost more than the search itself."""
        size = len(data)
        if at > size:
            return None
        # the character before `at` is the look-behind's: the search starts on it
        origin = _char_start(data, at) if at > 0 and self.before is not None else at
        spans = self.regex._regexp.Match(_UNANCHORED, data, origin, size)
        span = spans[self.group]
        return None if span[0] < 0 else span


_UNANCHORED = re2._Anchor.UNANCHORED if re2 is not None else None


def substitute(parts: tuple[Part, ...], text: str, replacement: str) -> str:
    """`text` with every accepted match replaced; the parts are the alternatives of one
    pattern (`a|b`): at each point the leftmost viable match wins, the earlier part on a
    tie, all read on the original text. `text` itself (the same object) when nothing was
    replaced. One RE2 search per match found (and per part, once passed): linear."""
    data = text.encode("utf-8", "surrogatepass")
    put = replacement.encode("utf-8", "surrogatepass")
    scan = _one if len(parts) == 1 else _alternatives
    pieces, done = scan(parts, data, put)
    if not pieces:
        return text
    pieces.append(data[done:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def _one(parts: tuple[Part, ...], data: bytes, put: bytes) -> tuple[list[bytes], int]:
    """The kept and replaced pieces of `data` for one part, and where the rest starts."""
    find, check = parts[0].find, parts[0].check
    pieces: list[bytes] = []
    done = at = 0
    end_of_data = len(data)
    while at <= end_of_data:
        span = find(data, at)
        if span is None:
            break
        start, end = span
        if check is None or check(data[start:end].decode("utf-8", "replace")):
            pieces.append(data[done:start])
            pieces.append(put)
            done = end
        at = end if end > start else end + 1
    return pieces, done


def _alternatives(parts: tuple[Part, ...], data: bytes, put: bytes) -> tuple[list[bytes], int]:
    """`_one` for several parts: the leftmost match of any wins, the earlier on a tie."""
    pieces: list[bytes] = []
    done = at = 0
    end_of_data = len(data)
    found: list[tuple[int, int] | None] = [None] * len(parts)
    gone = [False] * len(parts)  # this part has no match left
    while at <= end_of_data:
        best = -1
        for index, part in enumerate(parts):
            if gone[index]:
                continue
            span = found[index]
            if span is None or span[0] < at:  # recomputed only once passed: linear
                span = found[index] = part.find(data, at)
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
    return pieces, done
