"""Scenario assertions on tool calls, checked per turn or conversation.

What an assertion may say, and how it is validated before a run, is `checks.assertion_parse`
(re-exported here); this module runs the metrics each assertion names on a turn's calls, or
on every turn's, and labels arksim's `tool_calls` failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracesim.evaluator.checks.arksim_verdicts import (
    ARKSIM_ARG_MODES,
    FAILURE_SEVERITY,
    MATCH_MODES,
)
from tracesim.evaluator.checks.arksim_verdicts import failure_label as _failure_label
from tracesim.evaluator.checks.arksim_verdicts import tool_calls_verdict as _tool_calls
from tracesim.evaluator.checks.assertion_parse import (
    ASSERTION_TYPES,
    RULE_TYPES,
    Assertion,
    AssertionConfigError,
    parse_assertions,
)
from tracesim.evaluator.checks.rules import RuleFacts, evaluate_rule
from tracesim.evaluator.metrics import (
    tool_call_args,
    tool_call_count,
    tool_call_f1,
    tool_call_order,
    tool_call_output,
    tool_call_stats,
    tool_error_rate,
    tool_latency,
)
from tracesim.evaluator.metrics.expected import not_graded
from tracesim.schemas import MetricResult, ToolCall

__all__ = [
    "ARKSIM_ARG_MODES",
    "ASSERTION_TYPES",
    "FAILURE_SEVERITY",
    "MATCH_MODES",
    "Assertion",
    "AssertionConfigError",
    "RuleFacts",
    "RULE_TYPES",
    "check_assertions",
    "check_one",
    "not_run",
    "parse_assertions",
]


def _evaluate(assertion: Assertion, calls: list[ToolCall]) -> MetricResult:
    kind, expected, threshold = assertion.type, assertion.expected, assertion.threshold
    if kind == "tool_calls":
        return _tool_calls(assertion, calls)
    whole = assertion.all_or_nothing or assertion.strict
    if kind == "tool_call_args":
        return tool_call_args(
            calls,
            expected,
            arg_mode=assertion.arg_mode or ("subset" if assertion.subset else "exact"),
            all_or_nothing=whole,
            arg_matchers=assertion.arg_matchers,
        )
    if kind == "tool_call_order":
        order = assertion.order or ("strict" if assertion.strict else "in_order")
        return tool_call_order(
            calls, expected, order=order, all_or_nothing=assertion.all_or_nothing
        )
    if kind == "tool_call_count":
        return tool_call_count(calls, expected, all_or_nothing=whole)
    if kind == "tool_call_output":
        return tool_call_output(calls, expected, all_or_nothing=whole)
    if kind == "tool_call_f1":
        return tool_call_f1(
            calls,
            expected,
            arg_mode=assertion.arg_mode or "exact",
            arg_matchers=assertion.arg_matchers,
        )
    if kind == "tool_call_stats":
        return tool_call_stats(calls)
    if kind == "tool_error_rate":
        return tool_error_rate(calls, max_rate=threshold)
    return tool_latency(calls, max_ms=threshold)


def _apply_threshold(assertion: Assertion, result: MetricResult) -> MetricResult:
    """Set `passed` from the assertion's threshold, in place (the metric's result is ours)."""
    if assertion.threshold is None or result.value is None:
        return result
    if assertion.type in ("tool_error_rate", "tool_latency"):
        return result  # the metric applied it (max rate / max ms)
    result.passed = result.value >= assertion.threshold
    return result


def check_assertions(
    assertions: Sequence[Assertion],
    turns: Sequence[Sequence[ToolCall] | None],
    *,
    facts: RuleFacts | None = None,
    kind: str | None = None,
) -> list[tuple[int | None, MetricResult]]:
    """Check each assertion; (turn_id or None for the conversation, result) in order.

    `kind`: put `details["kind"]` first, as `evaluator.pipeline.stages.tag` does, while
    the details are built anyway (one dict per result instead of two).

    `turns[i]` holds the merged tool calls of turn i, None when turn i was not
    stored (a gap between turns). An assertion about a turn that was not run
    is not graded (value None), not failed.
    """
    everything = [call for turn in turns if turn is not None for call in turn]
    results: list[tuple[int | None, MetricResult]] = []
    for assertion in assertions:
        if assertion.turn is None:
            calls = everything
        elif assertion.turn < len(turns) and turns[assertion.turn] is not None:
            calls = list(turns[assertion.turn])  # type: ignore[arg-type]
        else:
            results.append((assertion.turn, not_run(assertion, turns)))
            continue
        results.append((assertion.turn, check_one(assertion, calls, turns, facts, kind)))
    return results


def not_run(assertion: Assertion, turns: Sequence[Sequence[ToolCall] | None]) -> MetricResult:
    """The not-graded result of an assertion about a turn that was not run."""
    return not_graded(
        assertion.type,
        f"turn {assertion.turn} was not run (the conversation has "
        f"{sum(turn is not None for turn in turns)} turns)",
        label="not_run",
    )


def check_one(
    assertion: Assertion,
    calls: list[ToolCall],
    turns: Sequence[Sequence[ToolCall] | None],
    facts: RuleFacts | None,
    kind: str | None,
) -> MetricResult:
    """One assertion's result on `calls` (its turn's, or every turn's); rules see `turns`."""
    if assertion.type in RULE_TYPES:
        result = evaluate_rule(assertion, turns, facts or RuleFacts())
    else:
        result = _apply_threshold(assertion, _evaluate(assertion, calls))
    label_details: dict[str, Any] = {}
    if assertion.type == "tool_calls" and result.passed is False:
        label = _failure_label(assertion, calls, result)
        label_details = {"failure_label": label, "severity": FAILURE_SEVERITY[label]}
    details = {
        **result.details,
        **label_details,
        "assertion": {
            "index": assertion.index,
            "type": assertion.type,
            "threshold": assertion.threshold,
        },
    }
    if kind is not None and details.get("kind") != kind:
        details = {"kind": kind, **details}
    result.details = details  # in place: a copy per result is measurable at 100k turns
    return result
