"""Turn success, final score and status (arksim's formula, made precise).

Turn success (metric `turn_success`, one per turn):
- a turn whose status is `error` or `timeout` is not graded (None): the
  agent did not answer, so nothing can be said of its answer; the
  conversation it ended is an error (`evaluator.scoring.errors`);
- otherwise it counts the turn's *deciding* results: graded (value not None)
  and with a pass/fail (`passed` not None). Judges pass at
  `turn_success_threshold` (per-metric `turn_thresholds`), label judges by
  label (`agent_behavior_failure`: only `no failure`), tool checks by their own
  assertion, custom metrics by their `passed`/`threshold`;
- the turn succeeds (1.0) when every deciding result passed, fails (0.0) when
  one did not, and is not graded (None) when it has no deciding result (no
  judge ran and no assertion or custom metric targets it).

Conversation (metrics `turn_success_ratio` and `final_score`):
- turn success ratio r = successful turns / graded turns (None if no graded
  turn; a conversation of zero turns has none: not graded, where arksim says 1.0);
- goal completion g = the `goal_completion` judge's value (None if not graded);
- final score = (1 - w) * r + w * g with w = `goal_completion_weight` (0.25,
  arksim's weights 0.75 / 0.25); r alone when g is not graded, g alone when r
  is not graded (the reason says which); None when neither is graded;
- conversation-level checks (tool assertions, custom metrics with a
  pass/fail) cap it: final score = min(formula, share of them that passed),
  or that share alone when the formula has nothing; so one failed check
  fails the conversation;
- a conversation ended by an error or interrupted is ungradeable: final
  score None, status `Error` or `Interrupted`;
- every value is clamped to [0, 1];
- status: `Done` when the final score is 1.0, `Partial Failure` when it is
  >= `partial_failure_threshold` (0.6), `Failed` below, `Not graded` when None.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracesim.schemas.results import MetricResult

__all__ = [
    "ARKSIM_STATUS",
    "FAILED_TURN_STATUSES",
    "STATUS_DONE",
    "STATUS_ERROR",
    "STATUS_FAILED",
    "STATUS_INTERRUPTED",
    "STATUS_NOT_GRADED",
    "STATUS_PARTIAL",
    "clamp",
    "conversation_scores",
    "status_of",
    "turn_success",
]

STATUS_DONE = "Done"
STATUS_PARTIAL = "Partial Failure"
STATUS_FAILED = "Failed"
STATUS_NOT_GRADED = "Not graded"
STATUS_ERROR = "Error"
"""Ended by an error (the agent's, the simulated user's, ...): ungradeable."""
STATUS_INTERRUPTED = "Interrupted"
"""The run was stopped before the conversation ended: ungradeable."""
ARKSIM_STATUS: dict[str, str] = {
    STATUS_NOT_GRADED: "Evaluation Failed",
    STATUS_ERROR: "Evaluation Failed",
    STATUS_INTERRUPTED: "Evaluation Failed",
}
"""tracesim status -> arksim's word where they differ (`details["arksim_status"]`)."""
FAILED_TURN_STATUSES = frozenset({"error", "timeout"})
"""Turn statuses that make the turn ungradeable (and its conversation an error)."""

_EPS = 1e-9


def clamp(value: float | None) -> float | None:
    """Clamp to [0, 1]; None stays None."""
    if value is None:
        return None
    return min(1.0, max(0.0, float(value)))


def status_of(final_score: float | None, *, partial_failure_threshold: float = 0.6) -> str:
    """`Done` (1.0), `Partial Failure` (>= threshold), `Failed`, or `Not graded` (None)."""
    if final_score is None:
        return STATUS_NOT_GRADED
    if final_score >= 1.0 - _EPS:
        return STATUS_DONE
    if final_score >= partial_failure_threshold - _EPS:
        return STATUS_PARTIAL
    return STATUS_FAILED


def turn_success(status: str | None, results: Sequence[MetricResult]) -> MetricResult:
    """Whether one turn succeeded, from its status and its turn-level results."""
    details: dict = {"kind": "score"}
    if status in FAILED_TURN_STATUSES:
        return MetricResult(
            name="turn_success",
            label="not_graded",
            reason=f"not graded: the turn ended with status {status} (no answer to grade)",
            details={**details, "turn_status": status},
        )
    deciding = [r for r in results if r.value is not None and r.passed is not None]
    if not deciding:
        return MetricResult(
            name="turn_success",
            reason="no graded metric with a pass/fail on this turn",
            details=details,
        )
    failed = sorted({r.name for r in deciding if not r.passed})
    details["metrics"] = sorted({r.name for r in deciding})
    if failed:
        details["failed"] = failed
        return MetricResult(
            name="turn_success",
            value=0.0,
            passed=False,
            reason="failed: " + ", ".join(failed),
            details=details,
        )
    return MetricResult(
        name="turn_success",
        value=1.0,
        passed=True,
        reason=f"all {len(deciding)} deciding result(s) passed",
        details=details,
    )


def conversation_scores(
    turn_results: Sequence[MetricResult],
    goal: MetricResult | None,
    *,
    goal_completion_weight: float = 0.25,
    partial_failure_threshold: float = 0.6,
    checks: Sequence[MetricResult] = (),
    ended: tuple[str, str] | None = None,
) -> tuple[MetricResult, MetricResult]:
    """(`turn_success_ratio`, `final_score`) of one conversation; the status is the final
    score's label. `checks`: its conversation-level results with a pass/fail (they cap the
    score); `ended`: (status, why) when an error or an interruption made it ungradeable."""
    graded = [r for r in turn_results if r.value is not None]
    successes = sum(1 for r in graded if r.value and r.value >= 1.0 - _EPS)
    ratio = clamp(successes / len(graded)) if graded else None
    ratio_result = MetricResult(
        name="turn_success_ratio",
        value=ratio,
        reason=(
            f"{successes} of {len(graded)} graded turn(s) succeeded"
            if graded
            else "no turn could be graded"
        ),
        details={
            "kind": "score",
            "successes": successes,
            "graded_turns": len(graded),
            "turns": len(turn_results),
        },
    )
    g = clamp(goal.value) if goal is not None else None
    w = goal_completion_weight
    if ratio is not None and g is not None:
        final = clamp((1 - w) * ratio + w * g)
        reason = f"{1 - w:g} x turn success ratio {ratio:.3f} + {w:g} x goal completion {g:.3f}"
    elif ratio is not None:
        final = ratio
        reason = f"goal completion not graded: final score = turn success ratio {ratio:.3f}"
    elif g is not None:
        final = g
        reason = f"no turn graded: final score = goal completion {g:.3f}"
    else:
        final = None
        reason = "neither turn success nor goal completion could be graded"
    deciding = [r for r in checks if r.value is not None and r.passed is not None]
    if deciding:
        share = sum(1 for r in deciding if r.passed) / len(deciding)
        failed = sorted({r.name for r in deciding if not r.passed})
        if final is None or share < final:
            formula = f"; {reason}" if final is not None else ""
            final = share
            reason = (
                f"{len(deciding) - len(failed)} of {len(deciding)} conversation-level check(s) "
                "passed" + (f" (failed: {', '.join(failed)})" if failed else "") + formula
            )
    if ended is not None:
        final = None
        reason = f"not graded: {ended[1]}"
    status = (
        ended[0]
        if ended is not None
        else status_of(final, partial_failure_threshold=partial_failure_threshold)
    )
    final_result = MetricResult(
        name="final_score",
        value=final,
        label=status,
        reason=reason,
        details={
            "kind": "score",
            "turn_success_ratio": ratio,
            "goal_completion": g,
            "goal_completion_weight": w,
            "status": status,
            "arksim_status": ARKSIM_STATUS.get(status, status),
        },
    )
    return ratio_result, final_result
