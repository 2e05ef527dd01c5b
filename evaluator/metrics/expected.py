"""Expected tool calls, as scenarios and callers write them.

Metrics accept expected calls as `ToolCall` objects, plain tool names, or
mappings ``{"name", "args" | "arguments", "output" | "result", "arg_mode" |
"arg_match_mode", "id", "group"}``; any other key is an error naming it (a
misspelt ``"arg"`` must not silently grade names only). A nested list is a
parallel group (calls one model message makes, in any order):
``["plan", ["search", "lookup"], "answer"]``. `expected_calls` normalises
all of these into `ExpectedCall`. ``None`` means "no expectation given"
(not graded); ``[]`` means "this turn must call no tool" (graded, the same
in every metric: `expect_no_calls`). A mapping without
"args"/"arguments" leaves `args` None ("not specified"): `tool_call_args`
reads that as {} (UiPath semantics), trajectory then compares names only.
A mapping without "output"/"result" (or a ToolCall whose result is None)
leaves `output` unspecified: `tool_call_output` skips that call.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from tracesim.evaluator.metrics.vocabulary import ARG_MODES, VocabularyError, resolve_arg_mode
from tracesim.schemas import MetricResult, ToolCall

__all__ = [
    "ARG_MODES",
    "UNSPECIFIED",
    "ExpectedCall",
    "ExpectedCallError",
    "EXPECTED_KEYS",
    "describe",
    "expect_no_calls",
    "expected_calls",
    "not_graded",
]

EXPECTED_KEYS = frozenset(
    {"name", "args", "arguments", "output", "result", "arg_mode", "arg_match_mode", "id", "group"}
)
"""The keys an expected-call mapping may hold."""


class _Unspecified:
    def __repr__(self) -> str:
        return "UNSPECIFIED"


UNSPECIFIED: Any = _Unspecified()
"""Marker for an expected output that was not given (distinct from None / null)."""


class ExpectedCallError(ValueError):
    """An expected tool call is malformed (no name, args not an object, ...)."""


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One expected tool call, normalised."""

    name: str
    args: Mapping[str, Any] | None = None
    """Expected arguments (the caller's mapping, not copied: never mutate); None when not specified."""
    output: Any = UNSPECIFIED
    """Expected result; UNSPECIFIED when not given."""
    arg_match_mode: str | None = None
    """Per-call override of the metric's `arg_mode` (canonical name)."""
    id: str = ""
    """Tool-call id to match by (an expected call with an id fits only that call); only a
    mapping's "id" key sets it (a ToolCall's id belongs to the run that made it)."""
    group: str | None = None
    """Parallel group: calls sharing it may come in any order (strict trajectory)."""


def _unknown_key_error(key: Any, index: int, name: Any) -> ExpectedCallError:
    close = difflib.get_close_matches(str(key), sorted(EXPECTED_KEYS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ExpectedCallError(
        f"expected[{index}] ({name}): unknown key {key!r}{hint}; "
        f"allowed: {', '.join(sorted(EXPECTED_KEYS))}"
    )


def _from_mapping(item: Mapping[str, Any], index: int, group: str | None) -> ExpectedCall:
    name = item.get("name")
    for key in item:
        if key not in EXPECTED_KEYS:
            raise _unknown_key_error(key, index, name)
    call_id = item.get("id") or ""
    if not isinstance(call_id, str):
        raise ExpectedCallError(f"expected[{index}] ({name}): 'id' must be a string")
    if name is None and call_id:
        name = ""
    elif not isinstance(name, str) or not name:
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
    mode = item.get("arg_mode", item.get("arg_match_mode"))
    if mode is not None:
        try:
            mode = resolve_arg_mode(mode)
        except VocabularyError as exc:
            raise ExpectedCallError(f"expected[{index}] ({name}): {exc}") from None
    own_group = item.get("group", group)
    return ExpectedCall(
        name=name,
        args=args,
        output=output,
        arg_match_mode=mode,
        id=call_id,
        group=None if own_group is None else str(own_group),
    )


def _one(item: Any, index: int, group: str | None) -> ExpectedCall:
    kind = type(item)
    if kind is dict or (kind is not ToolCall and isinstance(item, Mapping)):
        return _from_mapping(item, index, group)
    if kind is str:
        if not item:
            raise ExpectedCallError(f"expected[{index}]: a tool name must not be empty")
        return ExpectedCall(item, group=group)
    if kind is ExpectedCall:
        return item
    if isinstance(item, ToolCall):
        output = item.result if item.result is not None else UNSPECIFIED
        # a ToolCall's id belongs to the run that made it: only an explicit "id" key
        # in a mapping asks to match by id
        return ExpectedCall(
            item.name,
            item.arguments,
            output,
            group=group if group is not None else item.group,
        )
    raise ExpectedCallError(
        f"expected[{index}]: a tool name, a ToolCall or an object, got {kind.__name__}"
    )


def expected_calls(
    items: Iterable[ToolCall | Mapping[str, Any] | str | Sequence[Any]] | None,
) -> list[ExpectedCall]:
    """Normalise expected calls; raises ExpectedCallError naming the bad item.

    A list that is already normalised is returned as it is: callers that
    check many turns against one scenario normalise once.
    """
    if type(items) is list and all(type(item) is ExpectedCall for item in items):
        return items
    calls: list[ExpectedCall] = []
    for index, item in enumerate(items or ()):
        if type(item) in (list, tuple):
            group = f"expected-group-{index}"
            calls.extend(_one(member, index, group) for member in item)
        else:
            calls.append(_one(item, index, None))
    return calls


def expect_no_calls(name: str, actual: Sequence[ToolCall]) -> MetricResult:
    """Grade an explicit empty expectation: passes only when no tool was called."""
    if not actual:
        return MetricResult(
            name=name,
            value=1.0,
            passed=True,
            reason="no tool call expected and none made",
            details={"expected": 0, "actual": 0},
        )
    made = [describe(call.name, call.arguments) for call in actual]
    return MetricResult(
        name=name,
        value=0.0,
        passed=False,
        reason=f"no tool call expected, {len(made)} made: {', '.join(made[:5])}",
        details={"expected": 0, "actual": len(made), "extra": made},
    )


def describe(name: str, args: Mapping[str, Any] | None) -> str:
    """`name({"a": 1})`: a short, stable text for reasons and details."""
    if args is None:
        return f"{name}(...)"
    text = orjson.dumps(args, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return f"{name}({text.decode()})"


def not_graded(name: str, reason: str, *, label: str = "not_graded") -> MetricResult:
    """A result that says the metric could not grade (value None, never 0)."""
    return MetricResult(name=name, value=None, passed=None, reason=reason, label=label)
