"""The terminal summary with many scenarios: worst first and capped, never 200 rows."""

from __future__ import annotations

import io
from datetime import datetime

from rich.console import Console
from tracesim.evaluator.output.results_model import (
    ConversationResult,
    EvaluationReport,
    LLMUsage,
    RunSummary,
)
from tracesim.evaluator.output.summary import MAX_SCENARIO_ROWS, print_summary


def _conversation(i: int, scenario: str, status: str, score: float) -> ConversationResult:
    return ConversationResult(
        chat_id=f"chat-{i:04d}",
        run_id="r",
        scenario_id=scenario,
        num_turns=1,
        num_tool_calls=1,
        final_score=score,
        status=status,
        turn_success_ratio=score,
        goal_completion=None,
        assertions_passed=0,
        assertions_total=0,
        reason="",
    )


def _report(conversations: list[ConversationResult]) -> EvaluationReport:
    counts: dict[str, int] = {}
    for c in conversations:
        counts[c.status] = counts.get(c.status, 0) + 1
    summary = RunSummary(
        num_conversations=len(conversations),
        num_turns=len(conversations),
        num_tool_calls=len(conversations),
        mean_final_score=0.9,
        status="Partial Failure",
        status_counts=counts,
        turn_success_ratio=0.9,
        assertions_passed=0,
        assertions_total=0,
        metric_means={},
        metric_graded={},
    )
    return EvaluationReport(
        eval_id="e",
        run_id="r",
        kind="run",
        created_at=datetime(2026, 1, 1),
        db_path="x",
        config={},
        summary=summary,
        gates=[],
        gates_passed=True,
        exit_code=0,
        llm_usage=LLMUsage(reason="no API key"),
        conversations=conversations,
    )


def _printed(report: EvaluationReport) -> str:
    out = io.StringIO()
    print_summary(report, console=Console(file=out, width=200))
    return out.getvalue()


def test_200_scenarios_print_the_failing_ones_first_and_a_count_of_the_rest() -> None:
    convs = [_conversation(i, f"scenario-{i:03d}", "Done", 1.0) for i in range(200)]
    bad = {17: ("Failed", 0.1), 140: ("Failed", 0.3), 66: ("Partial Failure", 0.7)}
    for i, (status, score) in bad.items():
        convs[i] = _conversation(i, f"scenario-{i:03d}", status, score)
    text = _printed(_report(convs))
    rows = [line for line in text.splitlines() if "scenario-" in line]
    assert len(rows) == MAX_SCENARIO_ROWS  # capped: not 200 rows
    assert [r.split()[1] for r in rows[:3]] == ["scenario-017", "scenario-140", "scenario-066"]
    assert f"and {200 - MAX_SCENARIO_ROWS} more scenario(s), 0 of them not all Done" in text


def test_few_conversations_list_failures_first() -> None:
    convs = [
        _conversation(0, "a", "Done", 1.0),
        _conversation(1, "b", "Partial Failure", 0.7),
        _conversation(2, "c", "Failed", 0.4),
        _conversation(3, "d", "Failed", 0.2),
    ]
    text = _printed(_report(convs))
    order = [
        c
        for line in text.splitlines()
        for c in ("chat-0000", "chat-0001", "chat-0002", "chat-0003")
        if c in line
    ]
    assert order == ["chat-0003", "chat-0002", "chat-0001", "chat-0000"]
