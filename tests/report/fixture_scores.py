"""Fixture evaluations: turn and conversation scores, and the quality gates of a run.

Deterministic metrics on every turn, LLM judges either run or not run
(NULL, labelled `not_run`), an agent_behavior_failure label per
conversation (some of them HTML, to check escaping), goal completion and
the final score with its status label.
"""

from __future__ import annotations

import random
from datetime import datetime

from tests.report.fixture_rows import Rows, to_json
from tests.report.fixture_spans import XSS_TEXT

__all__ = ["add_score", "add_scores", "gate"]

_BEHAVIOR_LABELS = [
    "no failure",
    "no failure",
    "no failure",
    "false information",
    "disobey user request",
    "repetition",
    "lack of specific information",
]
_SEVERITY = {  # arksim's severity of each failure label (scores.details.severity)
    "false information": "critical",
    "disobey user request": "high",
    "lack of specific information": "medium",
    "repetition": "low",
}
_DETERMINISTIC = ("tool_call_args", "tool_call_order", "tool_call_count", "trajectory")
_JUDGES = ("helpfulness", "coherence", "relevance", "faithfulness", "verbosity")


def add_score(
    rows: Rows,
    *,
    eval_id: str,
    run_id: str,
    chat_id: str,
    turn_id: int | None,
    metric: str,
    value: float | None,
    threshold: float | None = None,
    label: str | None = None,
    reason: str = "",
    created: datetime,
    details: dict | None = None,
) -> None:
    """Append one score row (passed: value >= threshold, None when either is missing)."""
    passed = None if value is None or threshold is None else value >= threshold
    rows.add(
        "scores",
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=turn_id,
        metric=metric,
        value=value,
        passed=passed,
        threshold=threshold,
        label=label,
        reason=reason,
        details=to_json({"fixture": True, **(details or {})}),
        created_at=created,
    )


def add_scores(
    rows: Rows,
    rng: random.Random,
    *,
    eval_id: str,
    run_id: str,
    chat_id: str,
    turn_calls: list[list[dict]],
    created: datetime,
    judges_run: bool,
) -> float:
    """Turn and conversation scores of one conversation; returns its final score."""
    successes = 0
    for turn_id, calls in enumerate(turn_calls):
        values = {m: rng.choice([1.0] * 20 + [0.5, 0.0]) for m in _DETERMINISTIC}
        errors = sum(1 for c in calls if c["error"])
        values["tool_error_rate"] = errors / len(calls) if calls else 0.0
        for metric, value in values.items():
            threshold = None if metric == "tool_error_rate" else 1.0
            add_score(
                rows,
                eval_id=eval_id,
                run_id=run_id,
                chat_id=chat_id,
                turn_id=turn_id,
                metric=metric,
                value=value,
                threshold=threshold,
                reason=f"{metric}: {value:.2f} for {len(calls)} call(s)",
                created=created,
            )
        for metric in _JUDGES:
            value = rng.choice([0.6, 0.8, 1.0, 0.4]) if judges_run else None
            add_score(
                rows,
                eval_id=eval_id,
                run_id=run_id,
                chat_id=chat_id,
                turn_id=turn_id,
                metric=metric,
                value=value,
                threshold=0.6,
                label=None if judges_run else "not_run",
                reason="judge reasoning" if judges_run else "no LLM configured",
                created=created,
            )
        ok = all(values[m] >= 1.0 for m in _DETERMINISTIC) and errors == 0
        successes += ok
        add_score(
            rows,
            eval_id=eval_id,
            run_id=run_id,
            chat_id=chat_id,
            turn_id=turn_id,
            metric="turn_success",
            value=1.0 if ok else 0.0,
            threshold=1.0,
            reason="all deterministic checks passed" if ok else "a tool-call check failed",
            created=created,
        )
    label = rng.choice(_BEHAVIOR_LABELS) if judges_run else "not_run"
    add_score(
        rows,
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=None,
        metric="agent_behavior_failure",
        value=(1.0 if label == "no failure" else 0.0) if judges_run else None,
        threshold=1.0,
        label=label,
        reason=f"The agent showed: {label}. {XSS_TEXT}" if judges_run else "not run",
        created=created,
        details={"severity": _SEVERITY.get(label)} if judges_run else None,
    )
    goal = rng.choice([1.0, 1.0, 0.5, 0.0]) if judges_run else None
    add_score(
        rows,
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=None,
        metric="goal_completion",
        value=goal,
        threshold=0.6,
        created=created,
        reason="goal reached" if goal else "goal missed",
    )
    ratio = successes / max(len(turn_calls), 1)
    final = 0.75 * ratio + 0.25 * (goal if goal is not None else ratio)
    status = "Done" if final >= 1.0 else "Partial Failure" if final >= 0.6 else "Failed"
    add_score(
        rows,
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=None,
        metric="final_score",
        value=final,
        threshold=0.6,
        label=status,
        reason=f"0.75 x {ratio:.2f} turn success + 0.25 x goal completion",
        created=created,
    )
    return final


def gate(metric: str, threshold: float, observed: float | None, graded: int) -> dict:
    """One quality gate as the evaluator records it (its GateResult fields)."""
    passed = None if observed is None else observed >= threshold
    return {
        "metric": metric,
        "bound": "min",
        "threshold": threshold,
        "scope": "mean",
        "observed": observed,
        "graded": graded if observed is not None else 0,
        "failing": 0 if passed else graded,
        "passed": passed,
        "reason": f"mean {metric} {observed} vs >= {threshold}"
        if observed is not None
        else f"{metric} was never graded: gate skipped",
    }
