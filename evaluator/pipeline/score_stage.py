"""The scoring stage: turn success, turn success ratio, final score and status per
conversation; its `scores` rows, tally and `results.json` entry.

Runs after checks, judges and custom metrics gave each turn and conversation its results
(`ConversationWork`). Results shared by many turns (`evaluator.output.shared`) are
recorded by reference: their rows and summaries are encoded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracesim.evaluator.metrics import tool_error_rate
from tracesim.evaluator.output.output import ScoreColumns
from tracesim.evaluator.output.results_file import summarize
from tracesim.evaluator.output.results_model import ConversationResult
from tracesim.evaluator.output.shared import freeze
from tracesim.evaluator.pipeline.stages import ConversationWork, tag
from tracesim.evaluator.pipeline.usage import metric_means, usage_results
from tracesim.evaluator.scoring.errors import conversation_end
from tracesim.evaluator.scoring.scoring import (
    FAILED_TURN_STATUSES,
    conversation_scores,
    turn_success,
)
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig

__all__ = ["score_conversation"]


_SUCCESSES: dict[tuple[tuple[str, bool], ...], MetricResult] = {}
"""`turn_success` results by their deciding (metric, passed) pairs, shared (`freeze`)."""


def _turn_success(status: str | None, results: Sequence[MetricResult]) -> MetricResult:
    """`turn_success(status, results)`, one shared result per distinct set of deciding
    outcomes (all that decides it when the turn did not fail)."""
    if status in FAILED_TURN_STATUSES:
        return turn_success(status, results)
    key = tuple((r.name, r.passed) for r in results if r.value is not None and r.passed is not None)
    success = _SUCCESSES.get(key)  # type: ignore[arg-type]
    if success is None:
        if len(_SUCCESSES) > 4096:
            _SUCCESSES.clear()
        success = _SUCCESSES[key] = freeze(turn_success(status, results))  # type: ignore[index]
    return success


def _record(
    results: list[MetricResult],
    turn_id: int | None,
    keys: tuple[str | None, str],
    scores: ScoreColumns,
    tally: MetricTally,
    skip: MetricResult | None = None,
) -> tuple[list[dict[str, Any]], int, int]:
    """Append `results` to `scores` and `tally`; return their summaries (without `skip`) and
    the (passed, total) count of graded tool checks among them."""
    run_id, chat_id = keys
    scores.add_all(run_id, chat_id, turn_id, results)
    summaries = []
    passed = total = 0
    add, add_label = tally.add, tally.add_label
    for result in results:
        value = result.value
        if value is not None:
            name = result.name
            add(name, value)
            add_label(name, result.label)
            if result.passed is not None and result.details.get("kind") == "check":
                total += 1
                passed += bool(result.passed)
        if result is not skip:
            summaries.append(summarize(result))
    return summaries, passed, total


def score_conversation(
    work: ConversationWork, config: EvalConfig, *, scores: ScoreColumns, tally: MetricTally
) -> tuple[ConversationResult, dict[str, Any]]:
    """Turn success per turn, then turn success ratio, final score and status.

    Every result is appended to `scores` and its value to `tally`. Returns the
    conversation's summary (kept in memory) and its `results.json` entry.
    """
    data = work.data
    first_turn = data.turns[0] if data.turns else {}
    run_id = data.conversation.get("run_id") or first_turn.get("run_id")
    keys = (run_id, data.chat_id)
    turns: list[dict[str, Any]] = []
    successes: list[MetricResult] = []
    flags: list[bool | None] = []
    passed = total = 0
    for index, turn in enumerate(data.turns):
        results = work.turn_results[index]
        success = _turn_success(turn.get("status"), results)
        results.append(success)
        successes.append(success)
        turn_id = int(turn["turn_id"])
        summaries, p, t = _record(results, turn_id, keys, scores, tally, skip=success)
        passed, total = passed + p, total + t
        flag = None if success.value is None else bool(success.passed)
        flags.append(flag)
        entry = {
            "turn_id": turn_id,
            "status": turn.get("status"),
            "success": flag,
            "num_tool_calls": len(work.calls[index]),
            "metrics": summaries,
        }
        if turn.get("source") == "traced":  # messages read from the spans (SPEC §14)
            entry.update(
                source="traced",
                trace_id=turn.get("trace_id"),
                user_message=turn.get("user_message"),
                agent_message=turn.get("agent_message"),
                message_convention=turn.get("message_convention"),
            )
        turns.append(entry)
    goal = next((r for r in work.conv_results if r.name == "goal_completion" and r.graded), None)
    num_calls = sum(len(calls) for calls in work.calls)
    if config.tool_checks and num_calls:
        all_calls = [c for calls in work.calls for c in calls]
        work.conv_results.append(tag(tool_error_rate(all_calls), "check_info"))
    end = conversation_end(data.conversation, data.turns)
    checks = [r for r in work.conv_results if r.details.get("kind") in ("check", "custom")]
    ratio, final = conversation_scores(
        successes,
        goal,
        goal_completion_weight=config.goal_completion_weight,
        partial_failure_threshold=config.partial_failure_threshold,
        checks=checks,
        ended=(end.status, end.text) if end is not None else None,
    )
    if end is not None:
        final.details["error_source"] = end.source
    work.conv_results.extend([ratio, final])
    work.conv_results.extend(usage_results(work, config, num_calls))
    summaries, p, t = _record(work.conv_results, None, keys, scores, tally)
    passed, total = passed + p, total + t
    conversation = ConversationResult(
        chat_id=data.chat_id,
        run_id=run_id,
        scenario_id=data.conversation.get("scenario_id")
        or first_turn.get("scenario_id")
        or data.scenario.get("scenario_id"),
        num_turns=len(data.turns),
        num_tool_calls=num_calls,
        final_score=final.value,
        status=final.label or "",
        turn_success_ratio=ratio.value,
        goal_completion=goal.value if goal else None,
        assertions_passed=passed,
        assertions_total=total,
        reason=final.reason,
        turn_success=flags,
        error=end.message if end is not None else None,
        error_source=end.source if end is not None else None,
    )
    if conversation.scenario_id is not None:  # a trial of its scenario (evaluator.stats)
        conversation.metric_means = metric_means(work)
    entry = conversation.model_dump(exclude={"metrics", "turns", "metric_means"})
    entry["metrics"] = summaries
    entry["turns"] = turns
    return conversation, entry
