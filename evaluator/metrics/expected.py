"""Expected tool calls, as scenarios and callers write them.

Metrics accept expected calls as `ToolCall` objects or mappings
``{"name", "args" | "arguments", "output" | "result", "arg_match_mode"}``.
`expected_calls` normalises both into `ExpectedCall`. A mapping without
"args"/"arguments" leaves `args` None ("not specified"): `tool_call_args`
reads that as {} (UiPath semantics), trajectory then compares names only.
A mapping without "output"/"result" (or a ToolCall whose result is None)
leaves `output` unspecified: `tool_call_output` skips that call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from schemas import MetricResult, ToolCall

__all__ = [
    "ARG_MODES",
    "UNSPECIFIED",
    "ExpectedCall",
    "ExpectedCallError",
    "describe",
    "expected_calls",
    "not_graded",
]

ARG_MODES = ("ignore", "exact", "subset")
"""How a trajectory compares arguments: not at all, equal, expected a deep subset."""


class _Unspecified:
    def __repr__(self) -> str:
        return "UNSPECIFIED"


UNSPECIFIED: Any = _Unspecified()
"""Marker for an expected output that was not given (distinct from None / null)."""


class ExpectedCallError(ValueError):
    """An expected tool call is malformed (no name, args not an object, ...)."""


@dataclass(frozen=True)
class ExpectedCall:
    """One expected tool call, normalised."""

    name: str
    args: Mapping[str, Any] | None = None
    """Expected arguments (the caller's mapping, not copied: never mutate); None when not specified."""
    output: Any = UNSPECIFIED
    """Expected result; UNSPECIFIED when not given."""
    arg_match_mode: str | None = None
    """Per-call override of the trajectory's `arg_mode`."""


def _from_mapping(item: Mapping[str, Any], index: int) -> ExpectedCall:
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise ExpectedCallError(f"expected[{index}]: 'name' must be a non-empty string")
    args = item.get("args")
    if args is None:
        args = item.get("arguments")
    if args is not None and type(args) is not dict and not isinstance(args, Mapping):
        raise ExpectedCallError(
            f"expected[{index}] ({name}): 'args' must be an object, got {type(args).__name__}"
        )
    output = item.get("output", UNSPECIFIED)
    if output is UNSPECIFIED:
        output = item.get("result", UNSPECIFIED)
    mode = item.get("arg_match_mode")
    if mode is not None and mode not in ARG_MODES:
        raise ExpectedCallError(
            f"expected[{index}] ({name}): arg_match_mode {mode!r} is not one of {', '.join(ARG_MODES)}"
        )
    return ExpectedCall(
        name=name,
        args=args,
        output=output,
        arg_match_mode=mode,
    )


def expected_calls(items: Iterable[ToolCall | Mapping[str, Any]] | None) -> list[ExpectedCall]:
    """Normalise expected calls; raises ExpectedCallError naming the bad item.

    A list that is already normalised is returned as it is: callers that
    check many turns against one scenario normalise once.
    """
    if type(items) is list and all(type(item) is ExpectedCall for item in items):
        return items
    calls: list[ExpectedCall] = []
    for index, item in enumerate(items or ()):
        kind = type(item)
        if kind is dict or (kind is not ToolCall and isinstance(item, Mapping)):
            calls.append(_from_mapping(item, index))
        elif kind is ExpectedCall:
            calls.append(item)
        elif isinstance(item, ToolCall):
            output = item.result if item.result is not None else UNSPECIFIED
            calls.append(ExpectedCall(item.name, item.arguments, output))
        else:
            raise ExpectedCallError(
                f"expected[{index}]: a ToolCall or an object, got {type(item).__name__}"
            )
    return calls


def describe(name: str, args: Mapping[str, Any] | None) -> str:
    """`name({"a": 1})`: a short, stable text for reasons and details."""
    if args is None:
        return f"{name}(...)"
    text = orjson.dumps(args, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return f"{name}({text.decode()})"


def not_graded(name: str, reason: str, *, label: str = "not_graded") -> MetricResult:
    """A result that says the metric could not grade (value None, never 0)."""
    return MetricResult(name=name, value=None, passed=None, reason=reason, label=label)
