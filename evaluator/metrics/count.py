"""`tool_call_count`: was each tool called the expected number of times?

`expected` maps a tool name to a count (`{"search": 2}` means exactly 2) or
to a comparator and a count: `{"search": (">=", 1)}`, or `[">=", 1]` as
JSON gives it. Comparators: ==, = (the same), !=, >=, <=, >, <. Value =
tools satisfied / tools listed; a key may also be a tool-call id (UiPath writes counts by a
tool's id). ``all_or_nothing=True`` (old
``strict=True``): 1.0 only when all are satisfied. Tool names compare after
`normalize_name`. ``{}`` is an explicit "call no tool" (as ``[]`` in the
other metrics); not graded when `expected` is None or malformed (reason
says which).
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tracesim.evaluator.metrics.expected import expect_no_calls, not_graded
from tracesim.evaluator.metrics.vocabulary import normalize_name
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["COMPARATORS", "parse_count_spec", "tool_call_count"]

NAME = "tool_call_count"

COMPARATORS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "=": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_count_spec(expected: Mapping[str, Any]) -> dict[str, tuple[str, int]]:
    """Normalise `{"tool": 2 | (op, n) | [op, n]}` to `{"tool": (op, n)}`; ValueError if bad."""
    if not isinstance(expected, Mapping):
        raise ValueError(
            f"expected counts must be an object of tool -> count, got {type(expected).__name__}"
        )
    spec: dict[str, tuple[str, int]] = {}
    for tool, rule in expected.items():
        if _is_count(rule):
            spec[str(tool)] = ("==", rule)
        elif (
            isinstance(rule, Sequence)
            and not isinstance(rule, str)
            and len(rule) == 2
            and rule[0] in COMPARATORS
            and _is_count(rule[1])
        ):
            spec[str(tool)] = (rule[0], rule[1])
        else:
            raise ValueError(
                f"count for {tool!r} must be a non-negative integer or [comparator, count] "
                f"with comparator one of {', '.join(COMPARATORS)}; got {rule!r}"
            )
    return spec


def tool_call_count(
    actual: Sequence[ToolCall],
    expected: Mapping[str, Any] | None,
    *,
    all_or_nothing: bool | None = None,
    strict: bool | None = None,
) -> MetricResult:
    """Check per-tool call counts against comparators (`strict`: deprecated `all_or_nothing`)."""
    strict = bool(all_or_nothing if all_or_nothing is not None else strict)
    if expected is None:
        return not_graded(NAME, "no expected counts given: nothing to check")
    try:
        spec = parse_count_spec(expected)
    except ValueError as exc:
        return not_graded(NAME, f"invalid expected counts: {exc}", label="invalid_expected")
    if not spec:
        return expect_no_calls(NAME, actual)
    counts = Counter(call.name for call in actual)
    by_name: Counter[str] | None = None
    by_id: Counter[str] | None = None
    per_tool: dict[str, dict[str, Any]] = {}
    for tool, (op, count) in spec.items():
        seen = counts.get(tool, 0)
        if not seen:  # "Web Search" for Web_Search, or a call id (UiPath)
            if by_name is None:
                by_name = Counter(normalize_name(call.name) for call in actual)
                by_id = Counter(call.id for call in actual if call.id)
            seen = by_name.get(normalize_name(tool), 0) or by_id.get(tool, 0)  # type: ignore[union-attr]
        per_tool[tool] = {
            "expected": f"{op} {count}",
            "actual": seen,
            "passed": COMPARATORS[op](seen, count),
        }
    satisfied = sum(1 for item in per_tool.values() if item["passed"])
    total = len(per_tool)
    value = (1.0 if satisfied == total else 0.0) if strict else satisfied / total
    failing = [
        f"{tool}: {item['actual']} (expected {item['expected']})"
        for tool, item in per_tool.items()
        if not item["passed"]
    ]
    reason = f"{satisfied} of {total} tool counts as expected"
    if failing:
        reason += "; " + ", ".join(failing)
    return MetricResult(
        name=NAME,
        value=value,
        passed=satisfied == total,
        reason=reason,
        details={"strict": strict, "all_or_nothing": strict, "tools": per_tool},
    )
