"""Bound the values a query builds from a number: `repeat('x', 1000000000)`, `range(50000000)`.

DuckDB's memory limit covers its buffers (sorts, hash tables, aggregates: `list()` over
200M rows fails cleanly), not a scalar function's result: one `repeat` or `range` call
allocated 1-10 GB in the collector's process. The functions whose result size is set by
an argument rather than by their input are listed here; through the query endpoint
their size arguments must be numbers written in the query, and the product of the
sizes of all such calls in one query (they nest, and run once per row of a 2,048-row
vector) stays under `MAX_BUILT_SIZE`. Growth by other means (a recursive CTE doubling a
string) is left to the memory watch (`query_memory`).
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "AMPLIFIERS",
    "CONCATENATORS",
    "MAX_BUILT_SIZE",
    "MAX_STEP_COPIES",
    "TooLargeValue",
    "built_size",
    "copies",
]

MAX_BUILT_SIZE = 100_000
"""Most elements or characters the size-setting calls of one query may build (per row)."""

AMPLIFIERS = frozenset(
    {
        "repeat",
        "lpad",
        "rpad",
        "range",
        "generate_series",
        "list_resize",
        "array_resize",
        "bar",
        "printf",
        "format",
    }
)
"""Scalar functions whose result size is set by an argument (not bounded by their input)."""

CONCATENATORS = frozenset(
    {"||", "concat", "list_concat", "list_cat", "array_concat", "array_cat", "concat_ws"}
)
"""Functions whose result holds each argument whole: a recursive CTE repeating one column in
them multiplies that value by the repeats at every step."""
MAX_STEP_COPIES = 2
"""Most copies of one column a concatenation may hold in a recursive query: a step at most
doubles what it holds, which the memory watch's half-limit trip leaves room for."""

_NUMBER = re.compile(r"\d+")
_NESTED_FIELD = re.compile(r"\{[^{}]*\{")
"""A `format` field whose spec holds another field (`{:>{}}`): a width from the arguments."""


class TooLargeValue(ValueError):
    """A size-setting call the endpoint refuses; the message says which and the fix."""


def built_size(node: dict[str, Any]) -> int:
    """Elements or characters one call of an `AMPLIFIERS` function may build."""
    name = str(node.get("function_name", "")).lower()
    args = [entry.get("expression") for entry in node.get("arguments") or ()]
    if name == "repeat":
        text = _literal(name, args, 0, kind="a text or list written in the query")
        return max(1, len(text)) * _count(name, args, 1)
    if name in ("lpad", "rpad", "list_resize", "array_resize"):
        return _count(name, args, 1)
    if name in ("range", "generate_series"):
        numbers = [_count(name, args, index, signed=True) for index in range(len(args))]
        start, stop, step = 0, 0, 1
        if len(numbers) == 1:
            stop = numbers[0]
        elif numbers:
            start, stop = numbers[0], numbers[1]
            step = numbers[2] if len(numbers) > 2 else 1
        return max(1, math.ceil(abs(stop - start) / max(1, abs(step))) + 1)
    if name == "bar":
        return _count(name, args, 3) if len(args) > 3 else 80
    if name in ("printf", "format"):
        template = _literal(name, args, 0, kind="a format text written in the query")
        widths = [int(number) for number in _NUMBER.findall(template)]
        if "*" in template or _NESTED_FIELD.search(template):  # a width from the arguments
            for index in range(1, len(args)):  # each written in the query; numbers count
                text = _literal(name, args, index, kind="written in the query")
                widths += [int(text)] if text.isdigit() else []
        return max([1, *widths])
    return 1


def _literal(name: str, args: list[Any], index: int, *, kind: str) -> str:
    """The text of argument `index` when it is a constant; TooLargeValue otherwise."""
    node = args[index] if index < len(args) else None
    if isinstance(node, dict) and node.get("class") == "CONSTANT":
        return str((node.get("literal") or {}).get("text", ""))
    raise TooLargeValue(
        f"{name}(): through the collector's query endpoint its argument {index + 1} must be "
        f"{kind} (its result size is checked before the query runs); use `tracesim sql "
        "--db FILE` with the collector stopped for anything else"
    )


def _count(name: str, args: list[Any], index: int, *, signed: bool = False) -> int:
    """A size argument as an int (a constant, possibly negated)."""
    node = args[index] if index < len(args) else None
    negate = False
    if (
        isinstance(node, dict)
        and node.get("function_name") == "-"
        and len(node.get("arguments") or ()) == 1
    ):
        negate, node = True, node["arguments"][0].get("expression")
    text = _literal(name, [node], 0, kind="a number written in the query")
    try:
        value = int(float(text))
    except ValueError:
        raise TooLargeValue(
            f"{name}(): argument {index + 1} must be a number, not {text!r}"
        ) from None
    value = -value if negate else value
    return value if signed else max(0, value)


def copies(node: dict[str, Any], flattened: set[int]) -> int:
    """The most times one column appears among the leaves of the concatenation rooted at
    `node` (nested concatenations flattened: `(s || s) || (s || s)` holds 4 copies of s).
    The nested ones are added to `flattened`, so a chain is counted once, not once per link."""
    counts: dict[str, int] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        if current.get("class") == "COLUMN_REF":
            names = current.get("column_names") or [""]
            name = str(names[-1]).lower()
            counts[name] = counts.get(name, 0) + 1
        elif str(current.get("function_name", "")).lower() in CONCATENATORS:
            flattened.add(id(current))
            stack.extend(entry.get("expression") for entry in current.get("arguments") or ())
    return max(counts.values(), default=0)
