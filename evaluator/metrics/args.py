"""`tool_call_args`: were the expected tools called with the expected arguments?

UiPath's Tool Call Args semantics, with its greedy pairing fixed (SPEC §7):
expected and actual calls of the same name are paired so that the most
pairs match (maximum bipartite matching, each actual call used once).

- ``subset=False``: arguments must be canonically equal (`1 == 1.0`,
  `"1" != 1`, `True != 1`); empty expected args match only empty actual
  args.
- ``subset=True``: the expected arguments must be a deep subset of the
  actual ones (extra actual arguments allowed, at any depth).
- ``strict=True``: 1.0 when every expected call matched, else 0.0;
  ``strict=False``: matched / expected.

Not graded (value None) when there are no expected calls: there is nothing
to check arguments against. An expected mapping without "args" expects {}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.canonical import args_equal, is_deep_subset
from evaluator.matching import max_matching
from evaluator.metrics.expected import ExpectedCallError, describe, expected_calls, not_graded
from schemas import MetricResult, ToolCall

__all__ = ["tool_call_args"]

NAME = "tool_call_args"


def tool_call_args(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any]],
    *,
    strict: bool = False,
    subset: bool = False,
) -> MetricResult:
    """Score how many expected calls were made with matching arguments."""
    try:
        wanted = expected_calls(expected)
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")
    if not wanted:
        return not_graded(NAME, "no expected tool calls: nothing to compare arguments against")

    def args_fit(i: int, j: int) -> bool:
        call, want = actual[j], wanted[i]
        if call.name != want.name:
            return False
        if subset:
            return is_deep_subset(want.args or {}, call.arguments)
        return args_equal(want.args or {}, call.arguments)

    pairs = max_matching(len(wanted), len(actual), args_fit)
    matched_to = dict(pairs)
    used = set(matched_to.values())
    # For explanations only: pair each unmatched expected call with a left-over
    # actual call of the same name, to show which arguments differed.
    unmatched = [i for i in range(len(wanted)) if i not in matched_to]
    spare = [j for j in range(len(actual)) if j not in used]
    near = (
        {}
        if not unmatched
        else {
            unmatched[a]: spare[b]
            for a, b in max_matching(
                len(unmatched),
                len(spare),
                lambda a, b: actual[spare[b]].name == wanted[unmatched[a]].name,
            )
        }
    )

    calls: list[dict[str, Any]] = []
    for i, want in enumerate(wanted):
        expected_text = describe(want.name, want.args or {})
        if i in matched_to:
            j = matched_to[i]
            calls.append(
                {
                    "expected": expected_text,
                    "actual": describe(actual[j].name, actual[j].arguments),
                    "actual_index": j,
                    "matched": True,
                    "explanation": "arguments match",
                }
            )
        elif i in near:
            j = near[i]
            relation = "are not a superset of" if subset else "differ from"
            calls.append(
                {
                    "expected": expected_text,
                    "actual": describe(actual[j].name, actual[j].arguments),
                    "actual_index": j,
                    "matched": False,
                    "explanation": f"actual arguments {relation} the expected ones",
                }
            )
        else:
            calls.append(
                {
                    "expected": expected_text,
                    "actual": None,
                    "actual_index": None,
                    "matched": False,
                    "explanation": f"{want.name} was not called (or every call was used)",
                }
            )

    matched, total = len(pairs), len(wanted)
    complete = matched == total
    value = (1.0 if complete else 0.0) if strict else matched / total
    comparison = (
        "with expected arguments a subset of the actual" if subset else "with equal arguments"
    )
    return MetricResult(
        name=NAME,
        value=min(1.0, max(0.0, value)),
        passed=complete,
        reason=f"{matched} of {total} expected tool calls matched {comparison}"
        + (" (strict: all or nothing)" if strict else ""),
        details={
            "matched": matched,
            "expected": total,
            "strict": strict,
            "subset": subset,
            "calls": calls,
            "missing": [calls[i]["expected"] for i in unmatched],
            "extra": [
                describe(actual[j].name, actual[j].arguments)
                for j in range(len(actual))
                if j not in used
            ],
        },
    )
