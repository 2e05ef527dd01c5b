"""Each conversation's outcome in one evaluation, as CI outputs report it.

Read from the DuckDB file (the `scores` of the evaluation, the simulator's
`conversations` and `turns`), so the JUnit file and the Markdown summary
say the same as the report: which checks failed, why, and the expected and
actual calls from the failed check's `details`.

Verdicts: `error` (an errored or timed-out turn, a failing simulated user,
an interrupted run: ungradeable, with the error's source), `failure` (a
check failed or the final status is not Done), `skipped` (nothing could be
graded), `passed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from tracesim.evaluator.report.why import describe_details
from tracesim.schemas.error_source import split_error

__all__ = [
    "DERIVED_METRICS",
    "ConversationOutcome",
    "FailedCheck",
    "describe_details",
    "load_outcomes",
]

DERIVED_METRICS = frozenset({"turn_success", "turn_success_ratio", "final_score"})
"""Scores computed from the others: they say a turn failed, the checks say why."""


@dataclass
class FailedCheck:
    """One failed result: metric, turn (None: the conversation), reason, details."""

    metric: str
    turn_id: int | None
    reason: str
    details: dict[str, Any]
    label: str | None = None
    """A judge's label (`false information`), None for a check without one."""

    @property
    def where(self) -> str:
        """`trajectory (turn 0)` or `goal_completion (conversation)`."""
        scope = "conversation" if self.turn_id is None else f"turn {self.turn_id}"
        return f"{self.metric} ({scope})"


@dataclass
class ConversationOutcome:
    """One conversation's verdict and what explains it."""

    chat_id: str
    scenario_id: str | None
    repetition: int | None
    final_score: float | None
    status: str | None
    """Done | Partial Failure | Failed | Not graded (the final_score label)."""
    seconds: float
    error: str | None
    """What ended the conversation ungradeable: the agent's error or timeout, ..."""
    failed: list[FailedCheck] = field(default_factory=list)
    error_source: str | None = None
    """Whose error: agent | simulated user | judge | tracesim | run stopped."""

    @property
    def name(self) -> str:
        """`scenario #repetition` (the chat id when there is no scenario)."""
        if self.scenario_id is None:
            return self.chat_id
        return f"{self.scenario_id} #{self.repetition or 0}"

    @property
    def verdict(self) -> str:
        """error | failure | skipped | passed."""
        if self.error or self.status in ("Error", "Interrupted"):
            return "error"
        if self.failed or self.status in ("Failed", "Partial Failure"):
            return "failure"
        if self.status in (None, "Not graded"):
            return "skipped"
        return "passed"

    def message(self) -> str:
        """One line: which checks failed and why (or the error)."""
        if self.error or self.verdict == "error":
            error = self.error or f"final status {self.status}"
            return f"{self.error_source}: {error}" if self.error_source else error
        if not self.failed:
            return f"final status {self.status} (score {_score(self.final_score)})"
        parts = [f"{check.where}: {check.reason}" for check in self.failed]
        return f"{len(self.failed)} check(s) failed: " + "; ".join(parts)


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


_OUTCOMES = """
WITH chats AS (SELECT DISTINCT chat_id FROM scores WHERE eval_id = $eval_id
               AND chat_id IS NOT NULL),
final AS (SELECT DISTINCT ON (chat_id) chat_id, value, label,
                 json_extract_string(details, '$.error_source') AS source FROM scores
          WHERE eval_id = $eval_id AND metric = 'final_score' AND turn_id IS NULL)
SELECT ch.chat_id, c.scenario_id, c.conversation_index, f.value, f.label, f.source,
       coalesce(c.duration_ms, 0) / 1000.0,
       coalesce(c.error, (SELECT 'turn ' || t.turn_id || ' ' || t.status
                                 || coalesce(': ' || t.error, '')
                          FROM turns t WHERE t.chat_id = ch.chat_id
                            AND t.status IN ('error', 'timeout')
                          ORDER BY t.turn_id LIMIT 1))
FROM chats ch LEFT JOIN conversations c USING (chat_id) LEFT JOIN final f USING (chat_id)
ORDER BY c.start_time NULLS LAST, c.scenario_id, c.conversation_index, ch.chat_id
"""
_FAILED = """
SELECT chat_id, turn_id, metric, coalesce(reason, ''), details, label FROM scores
WHERE eval_id = $eval_id AND passed = false AND chat_id IS NOT NULL
  AND metric NOT IN ('turn_success', 'turn_success_ratio', 'final_score')
ORDER BY chat_id, turn_id NULLS LAST, metric
"""


def _number_repeats(outcomes: list[ConversationOutcome]) -> None:
    """An evaluation of several runs (`--all-runs`) holds `order-status #0` once per run:
    JUnit readers merge testcases of one name, so a scenario's conversations are then
    numbered 0.. in run order, each name once."""
    names = [(o.scenario_id, o.repetition) for o in outcomes if o.scenario_id is not None]
    if len(names) == len(set(names)):
        return
    seen: dict[str, int] = {}
    for outcome in outcomes:  # in run order (the query's)
        if outcome.scenario_id is not None:
            outcome.repetition = seen.get(outcome.scenario_id, 0)
            seen[outcome.scenario_id] = outcome.repetition + 1


def load_outcomes(store: Any, eval_id: str) -> list[ConversationOutcome]:
    """Every conversation the evaluation `eval_id` scored, in run order, from `store` (an
    open `EvalStore`, or a `--db` value opened read-only here)."""
    from tracesim.evaluator.store import EvalStore, open_store

    if not isinstance(store, EvalStore):
        with open_store(store, read_only=True) as opened:
            return load_outcomes(opened, eval_id)
    with store.report_connection(eval_id) as con:
        rows = con.execute(_OUTCOMES, {"eval_id": eval_id}).fetchall()
        failed = con.execute(_FAILED, {"eval_id": eval_id}).fetchall()
    outcomes = {}
    for chat_id, scenario, index, value, label, source, seconds, error in rows:
        found, message = split_error(error) if error else (None, None)
        outcomes[chat_id] = ConversationOutcome(
            chat_id=chat_id,
            scenario_id=scenario,
            repetition=index,
            final_score=value,
            status=label,
            seconds=float(seconds or 0),
            error=message,
            error_source=source or found,
        )
    _number_repeats(list(outcomes.values()))
    for chat_id, turn_id, metric, reason, details, label in failed:
        outcome = outcomes.get(chat_id)
        if outcome is None:
            continue
        try:
            parsed = orjson.loads(details) if details else {}
        except orjson.JSONDecodeError:
            parsed = {}
        outcome.failed.append(
            FailedCheck(metric, turn_id, reason, parsed if isinstance(parsed, dict) else {}, label)
        )
    return list(outcomes.values())
