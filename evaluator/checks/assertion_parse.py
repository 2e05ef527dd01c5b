"""Scenario assertions on tool calls, parsed and validated before a run (checked by
`checks.assertions`).

A scenario lists assertions in arksim's form, plus tracesim's metric
criteria:

    {"type": "tool_calls", "expected": [{"name": ..., "args": {...},
     "arg_match_mode": "exact"}], "match_mode": "contains",
     "arg_match_mode": "exact", "turn": 0, "forbidden": ["delete_account"]}
    {"type": "tool_call_args" | "tool_call_order" | "tool_call_count" |
     "tool_call_output" | "tool_error_rate" | "tool_latency",
     "expected": ..., "strict": false, "subset": false, "turn": 1,
     "threshold": 0.5}

`tool_calls` is arksim's assertion and keeps arksim's verdicts (README,
"Coming from arksim"); it runs the `trajectory` metric. Its `match_mode`
accepts our names and the usual aliases (exact -> strict, any_order ->
unordered, superset -> contains, subset -> within, ordered/subsequence ->
in_order); the default is `unordered`. As in arksim:
- `arg_match_mode` (per expected call, or for the whole assertion) defaults
  to `ignore`: arguments written without a mode are not compared;
  `partial` (arksim's word) means `subset` (expected args within actual);
- an empty `expected` asserts nothing about the calls (passes), and with
  `forbidden` checks only that no forbidden tool was called;
- `within` asks that every actual call be one of the expected calls: the
  same expected call may be repeated (membership, not a matching).
Where SPEC §7 differs from arksim, SPEC wins: matching is optimal, never
greedy, and `subset` compares nested objects deeply.

`turn` (zero-based) checks that turn's calls; without it the assertion sees
the calls of every turn, concatenated in turn order.

The shared vocabulary (`evaluator.metrics.vocabulary`) is accepted too:
`order` (alias of `match_mode`), `arg_mode` (alias of `arg_match_mode`,
also for tool_call_args), `all_or_nothing` (for `strict`), `arg_matchers`
(per-tool argument matchers); types `tool_call_f1` and `tool_call_stats`
(informational). `tool_calls` without `expected` checks only `forbidden`.

`policy` (never, at_most, exactly, before, only_after) and `tool_validity`
(calls against tool definitions) are deterministic rules: `checks.rules`.

`threshold`: for tool_error_rate the highest acceptable rate, for
tool_latency the highest acceptable duration in ms (its `max_ms`), for the
others the lowest acceptable value (passed = value >= threshold; without a
threshold a metric passes only on a full match).

`parse_assertions` validates everything before a run starts and raises
`AssertionConfigError` naming the place, the field and the allowed values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.checks.arksim_verdicts import ARKSIM_ARG_MODES, MATCH_MODES
from tracesim.evaluator.checks.arksim_verdicts import arksim_call as _arksim_call
from tracesim.evaluator.checks.policy import POLICY_KEYS
from tracesim.evaluator.checks.rules import parse_rule
from tracesim.evaluator.metrics.argmatch import ArgMatcherError, compile_matchers
from tracesim.evaluator.metrics.count import parse_count_spec
from tracesim.evaluator.metrics.expected import ExpectedCallError, expected_calls
from tracesim.evaluator.metrics.vocabulary import (
    VocabularyError,
    resolve_arg_mode,
    resolve_order,
)

__all__ = [
    "ASSERTION_TYPES",
    "Assertion",
    "AssertionConfigError",
    "RULE_TYPES",
    "parse_assertions",
]

_CALL_LIST_TYPES = (
    "tool_calls",
    "tool_call_args",
    "tool_call_order",
    "tool_call_output",
    "tool_call_f1",
)
ASSERTION_TYPES = (
    *_CALL_LIST_TYPES,
    "tool_call_count",
    "tool_error_rate",
    "tool_latency",
    "tool_call_stats",
    "policy",
    "tool_validity",
)

RULE_TYPES = ("policy", "tool_validity")
"""Assertions decided on the conversation's facts (`checks.rules`), not only on its calls."""

_COMMON_KEYS = {"type", "turn", "threshold", "description", "name"}
_VOCABULARY = {"order", "arg_mode", "all_or_nothing", "arg_matchers"}
_KEYS: dict[str, set[str]] = {
    "tool_calls": {"expected", "match_mode", "arg_match_mode", "forbidden"} | _VOCABULARY,
    "tool_call_args": {"expected", "strict", "subset"} | _VOCABULARY - {"order", "match_mode"},
    "tool_call_order": {"expected", "strict", "order", "all_or_nothing"},
    "tool_call_count": {"expected", "strict", "all_or_nothing"},
    "tool_call_output": {"expected", "strict", "all_or_nothing"},
    "tool_call_f1": {"expected", "arg_mode", "arg_matchers"},
    "tool_error_rate": set(),
    "tool_latency": set(),
    "tool_call_stats": set(),
    "policy": set(POLICY_KEYS),
    "tool_validity": {"tools"},
}


class AssertionConfigError(ValueError):
    """An assertion in a scenario file is invalid; the message says where and why."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        self.problem = problem
        super().__init__(f"{where}, {field}: {problem}")


@dataclass(frozen=True)
class Assertion:
    """One validated assertion."""

    type: str
    """One of ASSERTION_TYPES."""
    index: int
    """Position in the scenario's assertion list (for reports)."""
    expected: Any = None
    """Expected calls (list of ExpectedCall) or counts (mapping); None for rate/latency."""
    match_mode: str = "unordered"
    """Trajectory mode (tool_calls only), already mapped to our names."""
    arg_match_mode: str = "ignore"
    """Trajectory argument mode (tool_calls only; arksim's default `ignore`)."""
    forbidden: tuple[str, ...] = field(default_factory=tuple)
    """Tools that must not be called (tool_calls only)."""
    strict: bool = False
    subset: bool = False
    all_or_nothing: bool = False
    """Value 1.0 only when everything matched (the vocabulary's name for `strict`)."""
    arg_mode: str | None = None
    """Argument mode of tool_call_args / tool_call_f1 (None: the metric's default)."""
    order: str | None = None
    """tool_call_order's order (in_order or strict); None: from `strict`."""
    arg_matchers: Any = None
    """Per-tool argument matchers, validated at parse time."""
    turn: int | None = None
    """Zero-based turn to check; None = the whole conversation."""
    threshold: float | None = None


def _choice(value: Any, allowed: Sequence[str], fail: Any, name: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        fail(name, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def _parse_one(raw: Any, index: int, where: str) -> Assertion:
    def fail(name: str, problem: str) -> None:
        raise AssertionConfigError(
            where, f"assertions[{index}].{name}" if name else f"assertions[{index}]", problem
        )

    if not isinstance(raw, Mapping):
        fail("", f"must be an object, got {type(raw).__name__}")
    kind = _choice(raw.get("type"), ASSERTION_TYPES, fail, "type")
    allowed = _COMMON_KEYS | _KEYS[kind]
    unknown = sorted(set(raw) - allowed)
    if unknown:
        fail(unknown[0], f"unknown field for type {kind!r}; allowed: {', '.join(sorted(allowed))}")

    values: dict[str, Any] = {"type": kind, "index": index}
    if kind in ("policy", "tool_validity"):
        values["expected"] = parse_rule(raw, kind, fail)
    turn = raw.get("turn")
    if turn is not None:
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
            fail("turn", f"must be a zero-based turn number, got {turn!r}")
        values["turn"] = turn
    for flag in ("strict", "subset", "all_or_nothing"):
        if flag in raw:
            if not isinstance(raw[flag], bool):
                fail(flag, f"must be true or false, got {raw[flag]!r}")
            values[flag] = raw[flag]
    threshold = raw.get("threshold")
    if threshold is not None:
        if not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
            fail("threshold", f"must be a number, got {threshold!r}")
        if kind == "tool_call_stats":
            fail("threshold", "tool_call_stats is informational (a count, never pass/fail)")
        if kind == "tool_latency":
            if threshold <= 0:
                fail(
                    "threshold",
                    f"is the highest acceptable latency in ms: must be > 0, got {threshold}",
                )
        elif not 0 <= threshold <= 1:
            fail("threshold", f"must be between 0 and 1, got {threshold}")
        values["threshold"] = float(threshold)

    _parse_vocabulary(raw, kind, values, fail)
    expected = raw.get("expected")
    if kind == "tool_calls" and expected is None:
        values["expected"] = None  # only `forbidden` is checked
    elif kind in _CALL_LIST_TYPES:
        if not isinstance(expected, list):
            fail("expected", 'must be a list of tool calls ({"name": ..., "args": {...}})')
        items = [
            {"name": e} if kind == "tool_call_order" and isinstance(e, str) else e for e in expected
        ]
        if kind == "tool_calls":
            items = [_arksim_call(e) for e in items]
        try:
            values["expected"] = expected_calls(items)  # normalised once, checked per turn
        except ExpectedCallError as exc:
            fail("expected", str(exc))
    elif kind == "tool_call_count":
        try:
            parse_count_spec(expected)
        except ValueError as exc:
            fail("expected", str(exc))
        values["expected"] = dict(expected)

    if kind == "tool_calls":
        if "order" in raw:
            try:
                values["match_mode"] = resolve_order(raw["order"])
            except VocabularyError as exc:
                fail("order", str(exc))
        else:
            values["match_mode"] = MATCH_MODES[
                _choice(raw.get("match_mode", "unordered"), tuple(MATCH_MODES), fail, "match_mode")
            ]
        arg_key = "arg_mode" if "arg_mode" in raw else "arg_match_mode"
        raw_mode = raw.get(arg_key, "ignore")  # arksim: names only unless a mode is given
        try:
            values["arg_match_mode"] = resolve_arg_mode(ARKSIM_ARG_MODES.get(raw_mode, raw_mode))
        except VocabularyError as exc:
            fail(arg_key, str(exc))
        forbidden = raw.get("forbidden", [])
        if not isinstance(forbidden, list) or not all(isinstance(f, str) and f for f in forbidden):
            fail("forbidden", "must be a list of tool names")
        values["forbidden"] = tuple(forbidden)
    return Assertion(**values)


def _parse_vocabulary(raw: Mapping[str, Any], kind: str, values: dict[str, Any], fail: Any) -> None:
    """`arg_mode`, `order`, `arg_matchers` of the shared metric vocabulary, checked now."""
    if "arg_mode" in raw and kind != "tool_calls":
        try:
            values["arg_mode"] = resolve_arg_mode(raw["arg_mode"])
        except VocabularyError as exc:
            fail("arg_mode", str(exc))
    if "order" in raw and kind == "tool_call_order":
        try:
            values["order"] = resolve_order(raw["order"])
        except VocabularyError as exc:
            fail("order", str(exc))
    if raw.get("arg_matchers") is not None:
        try:
            compile_matchers(raw["arg_matchers"])
        except ArgMatcherError as exc:
            fail("arg_matchers", str(exc))
        values["arg_matchers"] = raw["arg_matchers"]


def parse_assertions(raw: list, *, where: str) -> list[Assertion]:
    """Validate a scenario's assertion list; raises AssertionConfigError naming `where`."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise AssertionConfigError(where, "assertions", f"must be a list, got {type(raw).__name__}")
    return [_parse_one(item, index, where) for index, item in enumerate(raw)]
