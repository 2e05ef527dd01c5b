"""The shape of `results.json`: one evaluation, as a tree of pydantic models.

`EvaluationReport` is written by the pipeline and read back by anything that
wants the numbers without SQL (CI, dashboards). The same values are in the
`scores` and `runs` tables of the DuckDB file, keyed by `eval_id`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from evaluator.gates import GateResult
from evaluator.llm_client import LLMUsage
from schemas.results import MetricResult

__all__ = ["ConversationResult", "EvaluationReport", "RunSummary", "TurnResult"]

RESULTS_SCHEMA_VERSION = 1


class TurnResult(BaseModel):
    """One turn's outcome."""

    turn_id: int
    """Zero-based turn number."""
    status: str | None
    """The turn's recorded status: ok | error | timeout."""
    success: bool | None
    """Turn success (see evaluator.scoring); None when nothing graded it."""
    num_tool_calls: int
    """Merged tool calls of the turn."""
    metrics: list[MetricResult] = Field(default_factory=list)
    """Every turn-level result: judges, tool checks, custom metrics, `turn_success`."""


class ConversationResult(BaseModel):
    """One conversation's outcome."""

    chat_id: str
    """The conversation's id."""
    run_id: str | None
    """The run it belongs to."""
    scenario_id: str | None
    """The scenario it played."""
    num_turns: int
    """Turns recorded."""
    num_tool_calls: int
    """Merged tool calls over all turns."""
    final_score: float | None
    """0.75 x turn success ratio + 0.25 x goal completion (see evaluator.scoring)."""
    status: str
    """Done | Partial Failure | Failed | Not graded."""
    turn_success_ratio: float | None
    """Successful turns / graded turns."""
    goal_completion: float | None
    """The goal_completion judge's value."""
    assertions_passed: int
    """Graded tool checks (turn and conversation level) that passed."""
    assertions_total: int
    """Graded tool checks."""
    reason: str
    """How the final score was computed."""
    metrics: list[MetricResult] = Field(default_factory=list)
    """Conversation-level results: goal completion, tool checks, custom metrics, scores."""
    turns: list[TurnResult] = Field(default_factory=list)
    """Per-turn results, in turn order."""


class RunSummary(BaseModel):
    """Aggregates over every evaluated conversation."""

    num_conversations: int
    num_turns: int
    num_tool_calls: int
    mean_final_score: float | None
    """Mean of the graded final scores."""
    status: str
    """Status of the mean final score (Done | Partial Failure | Failed | Not graded)."""
    status_counts: dict[str, int]
    """Conversations per status."""
    turn_success_ratio: float | None
    """Successful turns / graded turns over the whole run."""
    assertions_passed: int
    assertions_total: int
    metric_means: dict[str, float | None]
    """Mean graded value of every metric (None when never graded)."""
    metric_graded: dict[str, int]
    """How many graded values each metric had."""


class EvaluationReport(BaseModel):
    """The whole `results.json`."""

    schema_version: int = RESULTS_SCHEMA_VERSION
    eval_id: str
    """This evaluation's id (`runs.eval_id`, `scores.eval_id`)."""
    run_id: str | None
    """The evaluated run (None when the file holds several and none was chosen)."""
    kind: str
    """`run` (end of tracesim run) or `evaluate` (tracesim evaluate)."""
    created_at: datetime
    db_path: str
    config: dict[str, Any]
    """The EvalConfig used."""
    summary: RunSummary
    gates: list[GateResult]
    gates_passed: bool
    """False when any gate failed (skipped gates do not fail)."""
    exit_code: int
    """0 ok, 1 gate failed (2 bad config and 3 internal error never write a report)."""
    llm_usage: LLMUsage
    """Judge requests, cache hits, tokens and cost."""
    custom_metrics: list[str] = Field(default_factory=list)
    """Names of the custom metrics loaded."""
    conversations: list[ConversationResult] = Field(default_factory=list)
