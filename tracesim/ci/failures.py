"""The failing conversations, worst first, each with its first reason: one text for every output.

The terminal (after `tracesim run` and `tracesim evaluate`), the GitHub step
summary and the JUnit messages list the same conversations in the same
order with the same first reason: the error and whose it is, the expected
vs actual call of the first failed check, or the judge's label.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracesim.ci.outcomes import ConversationOutcome
from tracesim.evaluator.report.why import why_line

__all__ = ["TERMINAL_LIMIT", "failure_lines", "first_reason", "worst_first"]

TERMINAL_LIMIT = 10
"""Failing conversations the terminal lists; the rest are counted (`and N more`)."""

_RANK = {"Interrupted": 0, "Error": 1}


def worst_first(outcomes: Sequence[ConversationOutcome]) -> list[ConversationOutcome]:
    """The failing (`failure`, `error`) outcomes, worst first: interrupted, errored, then by
    final score (lowest first), then by name (a stable order for equal scores)."""
    failing = [o for o in outcomes if o.verdict in ("failure", "error")]
    return sorted(
        failing,
        key=lambda o: (
            _RANK.get(o.status or "", 2 if o.verdict == "error" else 3),
            o.final_score if o.final_score is not None else -1.0,
            o.name,
        ),
    )


def _one_line(text: str, limit: int = 240) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def first_reason(outcome: ConversationOutcome) -> str:
    """Why the conversation did not pass, in one line."""
    if outcome.verdict == "error":
        return _one_line(outcome.message())
    if outcome.failed:
        check = outcome.failed[0]
        calls = why_line(check.details)
        if calls:
            why = calls
        elif check.label and check.label not in (check.reason or ""):
            why = f"label {check.label!r}" + (f": {check.reason}" if check.reason else "")
        else:
            why = check.reason or "failed"
        more = f" (+{len(outcome.failed) - 1} more check(s))" if len(outcome.failed) > 1 else ""
        return _one_line(f"{check.where}: {why}{more}")
    return _one_line(outcome.message())


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def failure_lines(
    outcomes: Sequence[ConversationOutcome], *, limit: int = TERMINAL_LIMIT
) -> list[str]:
    """`Failing conversations (N, worst first):` then one line each, at most `limit`, then
    `... and N more (see the report)`; empty when every conversation passed."""
    failing = worst_first(outcomes)
    if not failing:
        return []
    lines = [f"Failing conversations ({len(failing)}, worst first):"]
    for outcome in failing[:limit]:
        status = outcome.status or outcome.verdict
        if outcome.final_score is not None:
            status += f" {_score(outcome.final_score)}"
        lines.append(f"  {outcome.name}  [{status}]  {first_reason(outcome)}")
    if len(failing) > limit:
        lines.append(f"  ... and {len(failing) - limit} more (see the report)")
    return lines
