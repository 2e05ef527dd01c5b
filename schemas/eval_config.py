"""`evaluation`: which metrics run, their thresholds and the quality gates.

Owned by the evaluator; the run config embeds it as its `evaluation` key.
Every field has a default, so an empty `evaluation:` (or none at all) runs the
deterministic tool checks and reports the LLM judges as not run unless an
`llm` is configured.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from tracesim.schemas.llm_config import LLMConfig
from tracesim.schemas.prices import ModelPrice
from tracesim.schemas.verdict_config import BaselineConfig, TrialPassRule

__all__ = [
    "CONVERSATION_JUDGES",
    "DEFAULT_JUDGES",
    "DERIVED_METRICS",
    "RUN_USAGE_METRICS",
    "USAGE_METRICS",
    "EvalConfig",
    "JUDGE_NAMES",
    "JudgeName",
    "TOOL_JUDGES",
    "TURN_JUDGES",
]

JudgeName = Literal[
    "goal_completion",
    "helpfulness",
    "coherence",
    "relevance",
    "faithfulness",
    "verbosity",
    "agent_behavior_failure",
    "tool_call_behavior_failure",
    "tool_use",
    "trajectory_accuracy",
    "tool_call_efficiency",
    "tool_selection",
    "tool_invocation",
    "tool_result_handling",
]
"""The built-in LLM-judged metrics."""

TURN_JUDGES: tuple[str, ...] = (
    "helpfulness",
    "coherence",
    "relevance",
    "faithfulness",
    "verbosity",
    "agent_behavior_failure",
    "tool_call_behavior_failure",
    "tool_use",
    "tool_call_efficiency",
    "tool_selection",
    "tool_invocation",
    "tool_result_handling",
)
"""Judges graded once per turn."""

CONVERSATION_JUDGES: tuple[str, ...] = ("goal_completion", "trajectory_accuracy")
"""Judges graded once per conversation."""

JUDGE_NAMES: tuple[str, ...] = CONVERSATION_JUDGES + TURN_JUDGES
"""Every built-in judge name."""

TOOL_JUDGES: tuple[str, ...] = (
    "tool_use",
    "tool_call_behavior_failure",
    "trajectory_accuracy",
    "tool_call_efficiency",
    "tool_selection",
    "tool_invocation",
    "tool_result_handling",
)
"""Opt-in judges of tool use (one more request per turn or conversation each)."""

DEFAULT_JUDGES: tuple[str, ...] = tuple(name for name in JUDGE_NAMES if name not in TOOL_JUDGES)
"""arksim's seven default metrics; the tool judges (`tool_use`, `tool_call_behavior_failure`, ...)
are opt-in (one more request per turn or conversation each)."""

DERIVED_METRICS: tuple[str, ...] = ("final_score", "turn_success", "turn_success_ratio")
"""Metrics computed by scoring (not configurable, but usable in `thresholds`)."""

USAGE_METRICS: tuple[str, ...] = (
    "agent_input_tokens",
    "agent_output_tokens",
    "agent_tokens",
    "agent_cost_usd",
    "num_turns",
    "num_tool_calls",
)
"""Per-conversation usage of the agent (budgets: gate them with `max_thresholds`)."""

RUN_USAGE_METRICS: tuple[str, ...] = tuple(f"run_{name}" for name in USAGE_METRICS)
"""The same summed over the run (`max_thresholds: {run_agent_cost_usd: 5}`)."""


BOOTSTRAP_SEED = 20
"""The default `evaluation.seed`: fixed, so intervals are reproducible run to run."""


class EvalConfig(BaseModel):
    """Evaluation settings: the `evaluation:` key of config.yaml."""

    model_config = ConfigDict(extra="forbid")

    metrics: list[JudgeName] = Field(default_factory=lambda: list(DEFAULT_JUDGES))
    """LLM judges to run. Default: arksim's seven (all but `tool_use` and
    `tool_call_behavior_failure`). `[]` runs no judge."""
    thresholds: dict[str, float] = Field(default_factory=dict)
    """Quality gates, lower bounds: metric name -> minimum (e.g. `final_score: 0.7`,
    `tool_call_args: 1.0`). Applied to the mean of the metric's graded values over
    the run (or to each value, see `gate_scope`). Any metric name may be gated:
    judges, tool checks, custom metrics, `final_score`, `turn_success_ratio`."""
    max_thresholds: dict[str, float] = Field(default_factory=dict)
    """Quality gates, upper bounds, for lower-is-better metrics (e.g. `tool_error_rate: 0.1`)."""
    html_report: bool = True
    """Write `report.html` beside `results.json` (arksim's `generate_html_report`)."""
    failure_labels: dict[str, list[str]] = Field(default_factory=dict)
    """Quality gates on labels (arksim's `qualitative_failure_labels`): metric name -> labels;
    the gate fails when any graded value of the metric has one of them (e.g.
    `agent_behavior_failure: [false information, unsafe action]`)."""
    gate_scope: Literal["mean", "each"] = "mean"
    """`mean`: a gate compares the run mean of the metric's graded values;
    `each`: every graded value (each turn or conversation) must meet it."""
    fail_ungraded_gates: bool = False
    """When true, a gate whose metric has no graded value fails (default: it is skipped
    and reported as such, e.g. judges not run without an API key)."""
    tool_checks: bool = True
    """Run the deterministic tool-call checks of every scenario that has `assertions`."""
    custom_metrics_file_paths: list[str] = Field(default_factory=list)
    """Python files defining custom metrics (`@metric` or `CustomMetric`), relative to the
    config file."""
    llm: LLMConfig | None = None
    """Judge model; None uses the run config's top-level `llm`. No model at all, or no
    API key and no `base_url`, reports every judge as not run (value None, never 0)."""
    judge_rubrics: dict[str, str] = Field(default_factory=dict)
    """Extra rubric text per judge name, appended to its instructions (e.g. what a correct
    trajectory looks like for this agent); changes the cache key, so answers are re-asked."""
    turn_success_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """A graded judge value at or above this passes its turn (0.5 = 3 on the 1-5 scale)."""
    turn_thresholds: dict[str, float] = Field(default_factory=dict)
    """Per-metric override of `turn_success_threshold` (also gives custom metrics that
    return a bare float a pass/fail, so they count toward turn success)."""
    goal_completion_weight: float = Field(default=0.25, ge=0.0, le=1.0)
    """Weight of goal completion in the final score; the turn success ratio gets the rest."""
    partial_failure_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    """Final score at or above which a conversation is `Partial Failure` rather than `Failed`."""
    max_context_chars: int = Field(default=24_000, ge=1_000)
    """Longest conversation transcript sent to a judge; older turns are cut first."""
    trial_pass: TrialPassRule = Field(default_factory=TrialPassRule)
    """When one trial (conversation) of a scenario passes; default: its status is `Done`."""
    baseline: BaselineConfig | None = None
    """An earlier evaluation to compare with at the end (`{db, ref, alpha}`)."""
    fail_on_regression: bool = False
    """Exit 1 when a scenario regressed against `baseline` (significantly fewer passes)."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Model -> `{input_per_mtok, output_per_mtok}` USD, over the built-in table
    (`tracesim.schemas.prices`), for the agent's own cost (`agent_cost_usd`)."""
    seed: int = BOOTSTRAP_SEED
    """Seed of the bootstrap intervals over scenarios (the trials roll-up's `metric_ci` and
    the baseline comparison's metric changes): the same results and seed give the same
    intervals; change it to see how much an interval owes to resampling."""
    max_judge_cost: float | None = Field(default=None, ge=0)
    """Judge budget in USD (from the model's `*_cost_per_mtok`): once spent, the remaining
    judges of the evaluation are reported not run ("judge budget reached"); the
    deterministic checks and scoring go on. None: no budget."""
    policies: list[dict[str, Any]] = Field(default_factory=list)
    """Policy rules checked on every conversation, with or without a scenario (production
    data): each `{never, at_most, exactly, before, only_after, turn}` like a scenario's
    `{"type": "policy"}` assertion."""
    tool_validity: bool | list[dict[str, Any]] = False
    """Check every call against tool definitions on every conversation: true uses the
    scenario's `tools`, else the tools the spans offered the model; a list gives them."""

    @field_validator("thresholds", "max_thresholds", "turn_thresholds", "failure_labels")
    @classmethod
    def _names_not_empty(cls, value: dict[str, float]) -> dict[str, float]:
        for name in value:
            if not name.strip():
                raise ValueError("metric names must not be empty")
        return value

    @model_validator(mode="after")
    def _rubrics_name_judges(self) -> EvalConfig:
        for name in self.judge_rubrics:
            if name not in JUDGE_NAMES:
                raise ValueError(
                    f"judge_rubrics: {name!r} is not a judge; one of {', '.join(JUDGE_NAMES)}"
                )
        return self

    @model_validator(mode="after")
    def _no_duplicate_judges(self) -> EvalConfig:
        seen: set[str] = set()
        for name in self.metrics:
            if name in seen:
                raise ValueError(f"metric {name!r} is listed twice in `metrics`")
            seen.add(name)
        return self
