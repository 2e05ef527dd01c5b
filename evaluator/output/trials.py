"""An evaluation's scenarios as trials, its run roll-up, and the agent's usage totals.

Each conversation of a scenario is one trial; `trial_outcome` applies the
config's rule (`evaluation.trial_pass`, default: status `Done`). Conversations
with no scenario (production traces) are not trials. Run totals of the usage
metrics (`run_agent_cost_usd`, ...) are added to the tally when a gate names
them, so `max_thresholds` gates them like any metric (one value: the total).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from tracesim.evaluator.output.results_model import ConversationResult
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.evaluator.stats.trials import (
    ScenarioTrials,
    TrialOutcome,
    TrialRollup,
    roll_up,
    scenario_trials,
)
from tracesim.schemas.eval_config import USAGE_METRICS, EvalConfig
from tracesim.schemas.verdict_config import TrialPassRule

__all__ = [
    "AgentUsage",
    "add_run_totals",
    "agent_usage_totals",
    "run_trials",
    "scenario_results",
    "trial_outcome",
]

NOT_GRADED = "Not graded"


class AgentUsage(BaseModel):
    """The agent's own model usage over the run (the judges' is `llm_usage`)."""

    conversations: int = 0
    """Conversations whose spans carried token counts."""
    input_tokens: int = 0
    output_tokens: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    """Summed over the priced conversations (None when none was priced)."""
    unpriced_conversations: int = 0
    """Conversations with a model of unknown price (their cost is not in `cost_usd`)."""


def trial_outcome(conversation: ConversationResult, rule: TrialPassRule) -> TrialOutcome:
    """True / False by the rule; None when the conversation could not be graded."""
    if conversation.status == NOT_GRADED or not conversation.status:
        return None
    if conversation.status not in rule.statuses:
        return False
    means = conversation.metric_means
    for name, bound in rule.min_metrics.items():
        if name not in means or means[name] < bound:
            return False
    for name, bound in rule.max_metrics.items():
        if name not in means or means[name] > bound:
            return False
    return True


def scenario_results(
    conversations: Sequence[ConversationResult], rule: TrialPassRule
) -> list[ScenarioTrials]:
    """One `ScenarioTrials` per scenario, in scenario id order."""
    by_scenario: dict[str, list[ConversationResult]] = {}
    for conv in conversations:
        if conv.scenario_id is not None:
            by_scenario.setdefault(conv.scenario_id, []).append(conv)
    return [
        scenario_trials(
            scenario_id,
            [trial_outcome(c, rule) for c in convs],
            [c.metric_means for c in convs],
        )
        for scenario_id, convs in sorted(by_scenario.items())
    ]


def run_trials(scenarios: Sequence[ScenarioTrials], *, seed: int | None = None) -> TrialRollup:
    """The run's roll-up (bootstrap seeded by `evaluation.seed`, else the fixed default)."""
    return roll_up(scenarios, seed=seed)


def agent_usage_totals(tally: MetricTally) -> AgentUsage:
    """The run's agent usage, from the tallied per-conversation usage metrics."""
    counts, sums = tally.counts, tally.sums
    priced = counts.get("agent_cost_usd", 0)
    with_tokens = counts.get("agent_tokens", 0)
    return AgentUsage(
        conversations=with_tokens,
        input_tokens=int(sums.get("agent_input_tokens", 0)),
        output_tokens=int(sums.get("agent_output_tokens", 0)),
        tokens=int(sums.get("agent_tokens", 0)),
        cost_usd=sums.get("agent_cost_usd") if priced else None,
        unpriced_conversations=with_tokens - priced,
    )


def add_run_totals(tally: MetricTally, config: EvalConfig) -> None:
    """Tally the run total of each usage metric a gate names as `run_<metric>` (one value)."""
    gated = {*config.thresholds, *config.max_thresholds}
    for name in USAGE_METRICS:
        if f"run_{name}" in gated and tally.counts.get(name):
            tally.add(f"run_{name}", tally.sums[name])
