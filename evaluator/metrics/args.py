"""`tool_call_args`: were the expected tools called with the expected arguments?

UiPath's Tool Call Args semantics, with its greedy pairing fixed (SPEC §7):
expected and actual calls of the same tool (names compared after
`normalize_name`; by call id when the expected call gives one) are paired
so that the most pairs match (maximum bipartite matching, each actual call
used once; under ``partial_credit`` the highest total score).

- ``arg_mode="exact"`` (old ``subset=False``): arguments canonically equal
  (`1 == 1.0`, `"1" != 1`, `True != 1`); empty expected args match only
  empty actual args.
- ``arg_mode="subset"`` (old ``subset=True``): the expected arguments are a
  deep subset of the actual ones (extra actual arguments allowed).
- ``arg_mode="superset"``: the actual arguments are within the expected ones.
- ``arg_mode="partial_credit"``: each expected call earns the share of its
  expected arguments matched (ADK, ragas); no expected args earn 1.0.
- ``arg_matchers``: per-tool matchers (`evaluator.metrics.argmatch`).
- ``all_or_nothing=True`` (old ``strict=True``): 1.0 only if all match else
  0.0; otherwise matched / expected.

`expected=None`: not graded (nothing to compare against); ``[]``: passes
only when no tool was called. An expected mapping without "args" expects {}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracesim.evaluator.calls.matching import max_matching
from tracesim.evaluator.metrics.argmatch import ArgMatcherError
from tracesim.evaluator.metrics.expected import (
    ExpectedCallError,
    describe,
    expect_no_calls,
    expected_calls,
    not_graded,
)
from tracesim.evaluator.metrics.pairing import CallScorer, pair_calls, plain_fits
from tracesim.evaluator.metrics.vocabulary import ARG_MODES, VocabularyError, resolve_arg_mode
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["tool_call_args"]

NAME = "tool_call_args"

_RELATION = {"subset": "are not a superset of", "superset": "are not within"}
_COMPARISON = {
    "subset": "with expected arguments a subset of the actual",
    "superset": "with actual arguments within the expected",
    "ignore": "by name",
    "partial_credit": "with equal arguments (partial credit per argument)",
}


def tool_call_args(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any] | str] | None,
    *,
    arg_mode: str | None = None,
    all_or_nothing: bool | None = None,
    arg_matchers: Mapping[str, Any] | None = None,
    strict: bool | None = None,
    subset: bool | None = None,
) -> MetricResult:
    """Score how many expected calls were made with matching arguments.

    `strict` and `subset` are the deprecated spellings of `all_or_nothing`
    and ``arg_mode="subset"``.
    """
    try:
        mode = arg_mode or ("subset" if subset else "exact")
        if mode not in ARG_MODES:
            mode = resolve_arg_mode(mode)
        scorer = CallScorer.for_mode(mode, arg_matchers)
    except (VocabularyError, ArgMatcherError) as exc:
        return not_graded(NAME, str(exc), label="invalid_expected")
    whole = bool(all_or_nothing if all_or_nothing is not None else strict)
    if expected is None:
        return not_graded(
            NAME, "no expected tool calls given: nothing to compare arguments against"
        )
    try:
        wanted = expected_calls(expected)
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")
    if not wanted:
        return expect_no_calls(NAME, actual)

    if scorer.plain and not scorer.uses_weights(wanted):  # the common case, kept lean
        pairs = max_matching(len(wanted), len(actual), plain_fits(wanted, actual, mode, True))
        matched_to = dict(pairs)
        score_of: dict[int, float] = {}
        full: Any = matched_to
    else:
        pairs, scores, _ = pair_calls(wanted, actual, scorer, order="unordered", default_args=True)
        matched_to = dict(pairs)
        score_of = dict(zip(matched_to, scores, strict=True))
        full = {i for i, score in score_of.items() if score >= 1.0}
    used = set(matched_to.values())
    # For explanations only: pair each unmatched expected call with a left-over
    # actual call of the same name, to show which arguments differed.
    unmatched = [i for i in range(len(wanted)) if i not in matched_to]
    spare = [j for j in range(len(actual)) if j not in used]
    near = {}
    if unmatched and spare:
        fits_name = scorer.fits_name
        near = {
            unmatched[a]: spare[b]
            for a, b in max_matching(
                len(unmatched),
                len(spare),
                lambda a, b: fits_name(wanted[unmatched[a]], actual[spare[b]]),
            )
        }

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
                    "matched": i in full,
                    "score": score_of.get(i, 1.0),
                    "explanation": "arguments match"
                    if i in full
                    else f"{score_of[i]:.0%} of the expected arguments match",
                }
            )
        elif i in near:
            j = near[i]
            relation = _RELATION.get(mode, "differ from")
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

    matched, total = len(full), len(wanted)
    complete = matched == total
    credit = sum(score_of.values()) if score_of else matched
    value = (1.0 if complete else 0.0) if whole else credit / total
    comparison = _COMPARISON.get(mode, "with equal arguments")
    return MetricResult(
        name=NAME,
        value=min(1.0, max(0.0, value)),
        passed=complete,
        reason=f"{matched} of {total} expected tool calls matched {comparison}"
        + (" (all or nothing)" if whole else ""),
        details={
            "matched": matched,
            "expected": total,
            "arg_mode": mode,
            "all_or_nothing": whole,
            "strict": whole,
            "subset": mode == "subset",
            "calls": calls,
            "missing": [calls[i]["expected"] for i in range(total) if i not in full],
            "extra": [
                describe(actual[j].name, actual[j].arguments)
                for j in range(len(actual))
                if j not in used
            ],
        },
    )
