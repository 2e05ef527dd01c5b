"""Roll per-item results up: assertion counts and the run summary.

Pure functions: the pipeline tallies every graded value as it goes
(`evaluator.scoring.tally.MetricTally`) and keeps one small `ConversationResult`
per conversation; the run summary is computed from those.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tracesim.evaluator.output.results_model import ConversationResult, RunSummary
from tracesim.evaluator.scoring.scoring import (
    STATUS_DONE,
    STATUS_ERROR,
    STATUS_FAILED,
    STATUS_INTERRUPTED,
    STATUS_NOT_GRADED,
    STATUS_PARTIAL,
    status_of,
)
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.schemas.results import MetricResult

__all__ = ["assertion_counts", "run_summary"]


def assertion_counts(results: Iterable[MetricResult]) -> tuple[int, int]:
    """(passed, total) of the graded tool checks among `results`."""
    passed = total = 0
    for result in results:
        if result.details.get("kind") == "check" and result.graded and result.passed is not None:
            total += 1
            passed += bool(result.passed)
    return passed, total


def run_summary(
    conversations: Sequence[ConversationResult],
    *,
    tally: MetricTally,
    all_metric_names: Iterable[str],
    partial_failure_threshold: float,
) -> RunSummary:
    """Aggregates over the run, from the conversations' summaries and the tally of values."""
    finals = [c.final_score for c in conversations if c.final_score is not None]
    mean_final = sum(finals) / len(finals) if finals else None
    counts = {
        STATUS_DONE: 0,
        STATUS_PARTIAL: 0,
        STATUS_FAILED: 0,
        STATUS_NOT_GRADED: 0,
        STATUS_ERROR: 0,
        STATUS_INTERRUPTED: 0,
    }
    for conv in conversations:
        counts[conv.status] = counts.get(conv.status, 0) + 1
    names = sorted({*all_metric_names, *tally.counts})
    return RunSummary(
        num_conversations=len(conversations),
        num_turns=sum(c.num_turns for c in conversations),
        num_tool_calls=sum(c.num_tool_calls for c in conversations),
        mean_final_score=mean_final,
        status=status_of(mean_final, partial_failure_threshold=partial_failure_threshold),
        status_counts=counts,
        turn_success_ratio=tally.mean("turn_success"),
        assertions_passed=sum(c.assertions_passed for c in conversations),
        assertions_total=sum(c.assertions_total for c in conversations),
        metric_means={n: tally.mean(n) for n in names},
        metric_graded={n: tally.counts.get(n, 0) for n in names},
    )
