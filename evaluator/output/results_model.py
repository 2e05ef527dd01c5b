"""The shape of `results.json`: one evaluation, as a tree of pydantic models.

`EvaluationReport` is written by the pipeline and read back by anything that
wants the numbers without SQL (CI, dashboards); `read_results` validates a
file against it. The full record of every result (per-call explanations of
passing checks, judge reasoning, ...) is in the `scores` table of the DuckDB
file (its `details` column), keyed by `eval_id`; `results.json` is the
digest (schema version 2):

- per conversation: final score, status, the scores' inputs, `turn_success`
  (one entry per turn), and its conversation-level results as
  `MetricSummary`s;
- per turn: status, success, tool-call count and its results as
  `MetricSummary`s (without `turn_success`, which is the turn's `success`);
- a `MetricSummary` carries name, value, passed and label; its `reason` only
  when it failed or could not be graded (a `not_run` judge's reason is
  `llm_usage.reason`, not repeated); its `details` only for a failed tool
  check, and only what failed: the calls that did not match, missing,
  extra and forbidden calls, the tools whose count was off
  (`evaluator.output.results_file.failure_details`).

Schema version 1 held every result with all its details (92 MB at 100k turns).

In memory (`EvaluationResult.report`) the conversations are summaries only:
their `metrics` and `turns` are empty, so an evaluation's memory does not
grow with the number of turns; the file written has them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from tracesim.evaluator.llm.usage import LLMUsage
from tracesim.evaluator.scoring.gates import GateResult
from tracesim.evaluator.stats.trials import ScenarioTrials, TrialRollup

__all__ = [
    "RESULTS_SCHEMA_VERSION",
    "ConversationResult",
    "EvaluationReport",
    "MetricSummary",
    "RunSummary",
    "TurnResult",
]

RESULTS_SCHEMA_VERSION = 2


class MetricSummary(BaseModel):
    """One result as `results.json` keeps it (the whole result is in the `scores` table).

    Absent keys in the file mean None.
    """

    model_config = ConfigDict(extra="ignore")

    name: str
    """The metric's name."""
    value: float | None = None
    """Score (None: not graded)."""
    passed: bool | None = None
    """Pass/fail where a threshold applies."""
    label: str | None = None
    """Categorical outcome (judge label, `not_run`, `error`, final status, ...)."""
    reason: str | None = None
    """Why, only when the result failed or could not be graded."""
    details: dict[str, Any] | None = None
    """Only for a failed tool check: the calls that did not match, missing and extra calls."""


class TurnResult(BaseModel):
    """One turn's outcome."""

    turn_id: int
    """Zero-based turn number."""
    status: str | None
    """The turn's recorded status: ok | error | timeout."""
    success: bool | None
    """Turn success (see evaluator.scoring.scoring); None when nothing graded it."""
    num_tool_calls: int
    """Merged tool calls of the turn."""
    metrics: list[MetricSummary] = Field(default_factory=list)
    """Turn-level results: judges, tool checks, custom metrics (`turn_success` is `success`)."""
    source: str | None = None
    """`traced` for a collected turn (a trace), its messages read from its spans; None for a
    simulated turn (its messages are the `turns` row's)."""
    trace_id: str | None = None
    """The trace a traced turn was cut from."""
    user_message: str | None = None
    """A traced turn's user message, from its spans (None when they carry none)."""
    agent_message: str | None = None
    """A traced turn's agent reply, from its spans."""
    message_convention: str | None = None
    """The span convention the traced turn's messages came from."""


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
    """0.75 x turn success ratio + 0.25 x goal completion (see evaluator.scoring.scoring)."""
    status: str
    """Done | Partial Failure | Failed | Not graded | Error | Interrupted."""
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
    turn_success: list[bool | None] = Field(default_factory=list)
    """Each turn's success, in turn order (None: nothing graded the turn)."""
    error: str | None = None
    """What made it ungradeable (status Error or Interrupted): `turn 2 timeout: ...`."""
    error_source: str | None = None
    """Whose error: agent | simulated user | judge | tracesim (`run stopped`: interrupted)."""
    metrics: list[MetricSummary] = Field(default_factory=list)
    """Conversation-level results: goal completion, tool checks, custom metrics, scores
    (in results.json; empty in memory)."""
    turns: list[TurnResult] = Field(default_factory=list)
    """Per-turn results, in turn order (in results.json; empty in memory)."""
    metric_means: dict[str, float] = Field(default_factory=dict, exclude=True)
    """Metric -> mean graded value in this conversation, for its scenario's trials
    (in memory only, for conversations of a scenario; see `scenarios` of the report)."""


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
    """0 passed, 1 a gate failed, 3 nothing graded or incomplete (`verdict` says which;
    2 bad input and 3 internal error never write a report)."""
    verdict: str = ""
    """The one line every output says the outcome with (`evaluator.scoring.verdict`)."""
    llm_usage: LLMUsage
    """Judge requests, cache hits, tokens and cost."""
    custom_metrics: list[str] = Field(default_factory=list)
    """Names of the custom metrics loaded."""
    trials: TrialRollup = Field(default_factory=TrialRollup)
    """The run's trials over its scenarios: pass rate and its interval clustered by scenario,
    pass@k,
    pass^k, flaky scenarios, and every metric's mean over scenarios with a bootstrap
    interval (evaluator.stats)."""
    scenarios: list[ScenarioTrials] = Field(default_factory=list)
    """Per scenario (each conversation of it is one trial): trials, passed, pass_rate,
    pass_rate_ci, pass_at_k, pass_hat_k, flaky, metric means."""
    agent_usage: dict[str, Any] = Field(default_factory=dict)
    """The agent's own tokens and cost over the run (`AgentUsage`; the judges' are
    `llm_usage`)."""
    comparison: dict[str, Any] | None = None
    """The comparison with `evaluation.baseline` (the `tracesim compare` JSON), when one
    was configured."""
    conversations: list[ConversationResult] = Field(default_factory=list)
    """Per conversation, in chat_id order (summaries only in memory, see the module)."""
    unexplained_evidence: dict[str, int] = Field(default_factory=dict)
    """Tool evidence no call explains, per kind (`evaluator.extract.audit.KINDS`: requests
    never answered, results with no call, skipped tool spans, conflicts, ignored spans);
    `tracesim inspect` lists the items."""
