"""Roll per-item results up: turn results, conversation results, the run summary, gate inputs.

Pure functions over `MetricResult`s; the pipeline feeds them and writes what
they return.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from evaluator.results_model import ConversationResult, RunSummary, TurnResult
from evaluator.scoring import (
    STATUS_DONE,
    STATUS_FAILED,
    STATUS_NOT_GRADED,
    STATUS_PARTIAL,
    status_of,
)
from schemas.results import MetricResult

__all__ = ["assertion_counts", "metric_values", "run_summary", "turn_result"]


def assertion_counts(results: Iterable[MetricResult]) -> tuple[int, int]:
    """(passed, total) of the graded tool checks among `results`."""
    passed = total = 0
    for result in results:
        if result.details.get("kind") == "check" and result.graded and result.passed is not None:
            total += 1
            passed += bool(result.passed)
    return passed, total


def metric_values(conversations: Sequence[ConversationResult]) -> dict[str, list[float]]:
    """Every graded value of every metric (turn and conversation level), by metric name."""
    values: dict[str, list[float]] = defaultdict(list)
    for conv in conversations:
        for result in conv.metrics:
            if result.value is not None:
                values[result.name].append(result.value)
        for turn in conv.turns:
            for result in turn.metrics:
                if result.value is not None:
                    values[result.name].append(result.value)
    return dict(values)


def run_summary(
    conversations: Sequence[ConversationResult],
    *,
    all_metric_names: Iterable[str],
    partial_failure_threshold: float,
) -> RunSummary:
    """Aggregates over the run."""
    values = metric_values(conversations)
    finals = [c.final_score for c in conversations if c.final_score is not None]
    mean_final = sum(finals) / len(finals) if finals else None
    counts = {STATUS_DONE: 0, STATUS_PARTIAL: 0, STATUS_FAILED: 0, STATUS_NOT_GRADED: 0}
    for conv in conversations:
        counts[conv.status] = counts.get(conv.status, 0) + 1
    turn_values = values.get("turn_success", [])
    names = sorted({*all_metric_names, *values})
    return RunSummary(
        num_conversations=len(conversations),
        num_turns=sum(c.num_turns for c in conversations),
        num_tool_calls=sum(c.num_tool_calls for c in conversations),
        mean_final_score=mean_final,
        status=status_of(mean_final, partial_failure_threshold=partial_failure_threshold),
        status_counts=counts,
        turn_success_ratio=(sum(turn_values) / len(turn_values)) if turn_values else None,
        assertions_passed=sum(c.assertions_passed for c in conversations),
        assertions_total=sum(c.assertions_total for c in conversations),
        metric_means={
            n: (sum(values[n]) / len(values[n]) if values.get(n) else None) for n in names
        },
        metric_graded={n: len(values.get(n, [])) for n in names},
    )


def turn_result(turn: dict, metrics: list[MetricResult], num_tool_calls: int) -> TurnResult:
    """One TurnResult from its row and results (the last result is `turn_success`)."""
    success = next((m for m in metrics if m.name == "turn_success"), None)
    return TurnResult(
        turn_id=int(turn["turn_id"]),
        status=turn.get("status"),
        success=None if success is None or success.value is None else bool(success.passed),
        num_tool_calls=num_tool_calls,
        metrics=metrics,
    )
