"""`tool_call_f1`: precision, recall and F1 of the actual calls against the expected ones.

ragas' ToolCallF1, with calls compared as a multiset (a repeated call
counts each time) and pairing optimal: true positives = expected calls
paired with an actual call that fits (name after `normalize_name`, args
under `arg_mode`, default ``exact``; per-tool `arg_matchers`). Precision =
TP / actual, recall = TP / expected, value = F1 (0 when either is 0).
Passed when F1 is 1.0. `expected=None`: not graded; ``[]``: passes only
when no tool was called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracesim.evaluator.metrics.argmatch import ArgMatcherError
from tracesim.evaluator.metrics.expected import (
    ExpectedCallError,
    describe,
    expect_no_calls,
    expected_calls,
    not_graded,
)
from tracesim.evaluator.metrics.pairing import CallScorer, pair_calls
from tracesim.evaluator.metrics.vocabulary import VocabularyError, resolve_arg_mode
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["tool_call_f1"]

NAME = "tool_call_f1"


def tool_call_f1(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any] | str] | None,
    *,
    arg_mode: str = "exact",
    arg_matchers: Mapping[str, Any] | None = None,
) -> MetricResult:
    """F1 of actual against expected calls; precision and recall in details."""
    try:
        mode = resolve_arg_mode(arg_mode)
        scorer = CallScorer.for_mode(mode, arg_matchers)
    except (VocabularyError, ArgMatcherError) as exc:
        return not_graded(NAME, str(exc), label="invalid_expected")
    if expected is None:
        return not_graded(NAME, "no expected tool calls given: nothing to compare")
    try:
        wanted = expected_calls(expected)
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")
    if not wanted:
        return expect_no_calls(NAME, actual)
    pairs, scores, _ = pair_calls(wanted, actual, scorer, order="unordered")
    true_positives = sum(scores)
    precision = true_positives / len(actual) if actual else 0.0
    recall = true_positives / len(wanted)
    f1 = 0.0 if not precision or not recall else 2 * precision * recall / (precision + recall)
    matched_expected = {i for i, _ in pairs}
    matched_actual = {j for _, j in pairs}
    return MetricResult(
        name=NAME,
        value=min(1.0, max(0.0, f1)),
        passed=f1 >= 1.0,
        reason=f"F1 {f1:.2f}: precision {precision:.2f} ({true_positives:g} of {len(actual)} "
        f"actual calls expected), recall {recall:.2f} ({true_positives:g} of {len(wanted)} "
        f"expected calls made; args: {mode})",
        details={
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "true_positives": true_positives,
            "arg_mode": mode,
            "missing": [
                describe(w.name, w.args) for i, w in enumerate(wanted) if i not in matched_expected
            ],
            "extra": [
                describe(c.name, c.arguments)
                for j, c in enumerate(actual)
                if j not in matched_actual
            ],
        },
    )
