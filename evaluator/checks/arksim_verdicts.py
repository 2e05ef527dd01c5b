"""arksim's `tool_calls` assertion: its mode words, verdicts and failure labels.

Kept apart from `evaluator.checks.assertions` (parsing and dispatch) because
this is the arksim-specific translation layer (SPEC §7 wins where they differ):
`match_mode` aliases, arksim's `partial` argument mode, the `tool_calls`
verdict on top of `trajectory` and arksim's behaviour-failure labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tracesim.evaluator.metrics import trajectory
from tracesim.evaluator.metrics.expected import describe
from tracesim.evaluator.metrics.vocabulary import names_match
from tracesim.schemas import MetricResult, ToolCall

if TYPE_CHECKING:
    from tracesim.evaluator.checks.assertion_parse import Assertion

__all__ = [
    "ARKSIM_ARG_MODES",
    "FAILURE_SEVERITY",
    "MATCH_MODES",
    "arksim_call",
    "failure_label",
    "tool_calls_verdict",
]

MATCH_MODES: dict[str, str] = {
    "strict": "strict",
    "exact": "strict",
    "unordered": "unordered",
    "any_order": "unordered",
    "contains": "contains",
    "superset": "contains",
    "within": "within",
    "subset": "within",
    "in_order": "in_order",
    "ordered": "in_order",
    "subsequence": "in_order",
}
"""Accepted `match_mode` values -> trajectory modes."""

ARKSIM_ARG_MODES: dict[str, str] = {"partial": "subset"}
"""arksim's argument-mode words that differ from ours (arksim's `partial` is our `subset`)."""

FAILURE_SEVERITY: dict[str, str] = {
    "disobey user request": "high",
    "false information": "critical",
    "lack of specific information": "medium",
    "repetition": "low",
}
"""Severity of the failure labels a `tool_calls` assertion gives (arksim's mapping)."""


def arksim_call(item: Any) -> Any:
    """An expected call with arksim's `arg_match_mode: partial` spelled `subset`."""
    if isinstance(item, Mapping) and item.get("arg_match_mode") in ARKSIM_ARG_MODES:
        return {**item, "arg_match_mode": ARKSIM_ARG_MODES[item["arg_match_mode"]]}
    return item


def tool_calls_verdict(assertion: Assertion, calls: list[ToolCall]) -> MetricResult:
    """arksim's `tool_calls` verdicts on top of the `trajectory` metric (see module doc)."""
    expected, banned = list(assertion.expected or []), set(assertion.forbidden)
    if not expected:
        hits = [
            describe(c.name, c.arguments)
            for c in calls
            if any(names_match(b, c.name) for b in banned)
        ]
        if hits:
            reason = f"forbidden tools called: {', '.join(hits)}"
        elif banned:
            reason = f"no forbidden tool called ({', '.join(sorted(banned))})"
        else:
            reason = "no expected tool calls defined"
        return MetricResult(
            name="trajectory",
            value=0.0 if hits else 1.0,
            passed=not hits,
            reason=reason,
            details={"mode": assertion.match_mode, "forbidden": hits, "expected": []},
        )
    if assertion.match_mode == "within" and len(calls) > 1:
        # Membership: any expected call may stand for several actual calls.
        result = trajectory(
            calls,
            expected * len(calls),
            order="within",
            arg_mode=assertion.arg_match_mode,
            forbidden=assertion.forbidden,
            all_or_nothing=assertion.all_or_nothing,
            arg_matchers=assertion.arg_matchers,
        )
        result.details["missing"] = []
        return result
    return trajectory(
        calls,
        expected,
        order=assertion.match_mode,
        arg_mode=assertion.arg_match_mode,
        forbidden=assertion.forbidden,
        all_or_nothing=assertion.all_or_nothing,
        arg_matchers=assertion.arg_matchers,
    )


def failure_label(assertion: Assertion, calls: list[ToolCall], result: MetricResult) -> str:
    """arksim's behaviour-failure label for a failed `tool_calls` assertion.

    Missing calls or tools outside the expected set: `disobey user request`;
    only extra calls of expected tools: `repetition`; strict order with the
    right tools but wrong arguments: `false information` (`lack of specific
    information` when every argument mode was `subset`).
    """
    expected = list(assertion.expected or [])
    pairs = result.details.get("pairs")
    if result.details.get("forbidden") or not isinstance(pairs, list):
        return "disobey user request"
    mode, size = assertion.match_mode, len(expected)
    wanted_names = [e.name for e in expected]
    if mode == "strict":
        if [c.name for c in calls] == wanted_names:
            modes = {e.arg_match_mode or assertion.arg_match_mode for e in expected}
            return "false information" if modes - {"subset"} else "lack of specific information"
        if len(calls) == size:
            return "disobey user request"
        missing_count = Counter(wanted_names) - Counter(c.name for c in calls)
        extra = list((Counter(c.name for c in calls) - Counter(wanted_names)).elements())
        missing = list(missing_count.elements())
    else:
        got_e = {p["expected_index"] % max(size, 1) for p in pairs if "expected_index" in p}
        got_a = {p["actual_index"] for p in pairs if "actual_index" in p}
        missing = (
            [] if mode == "within" else [n for i, n in enumerate(wanted_names) if i not in got_e]
        )
        extra = (
            [] if mode == "contains" else [c.name for j, c in enumerate(calls) if j not in got_a]
        )
    if extra and not missing and all(name in wanted_names for name in extra):
        return "repetition"
    return "disobey user request"
