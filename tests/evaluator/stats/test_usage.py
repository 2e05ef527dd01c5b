"""The agent's usage and cost, the price table, the trial rule and budgets as gates."""

from __future__ import annotations

import pytest
from tracesim.evaluator.metrics.usage import agent_usage
from tracesim.evaluator.output.results_model import ConversationResult
from tracesim.evaluator.output.trials import add_run_totals, trial_outcome
from tracesim.evaluator.scoring.gates import evaluate_gates
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.prices import ModelPrice, price_for
from tracesim.schemas.verdict_config import TrialPassRule


def test_prices_match_exactly_by_dated_name_and_after_a_provider_prefix() -> None:
    assert price_for("gpt-4o") == ModelPrice(input_per_mtok=2.5, output_per_mtok=10.0)
    assert price_for("gpt-4o-2024-08-06") == price_for("gpt-4o")
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini") != price_for("gpt-4o")
    assert price_for("openai/GPT-4o-mini") == price_for("gpt-4o-mini")
    assert price_for("gpt-4o1") is None  # a prefix must end at a separator
    assert price_for("local-rules-v1") is None
    assert price_for(None) is None
    mine = {"local-rules-v1": ModelPrice(input_per_mtok=1, output_per_mtok=2)}
    assert price_for("local-rules-v1", mine) == mine["local-rules-v1"]
    cheap = {"gpt-4o": ModelPrice(input_per_mtok=0, output_per_mtok=0)}
    assert price_for("gpt-4o-2024-08-06", cheap) == cheap["gpt-4o"]


def _span(span_id: str, parent: str | None, **fields: object) -> dict[str, object]:
    return {"span_id": span_id, "parent_span_id": parent, **fields}


def test_aggregate_spans_are_not_counted_twice() -> None:
    spans = [
        _span("a", None, model=None, input_tokens=300, output_tokens=100),  # agent: the sum
        _span("c1", "a", model="gpt-4o", input_tokens=100, output_tokens=40),
        _span("t", "a", name="execute_tool lookup"),
        _span("c2", "t", model="gpt-4o-2024-08-06", input_tokens=200, output_tokens=60),
    ]
    results = {r.name: r for r in agent_usage(spans)}
    assert results["agent_input_tokens"].value == 300
    assert results["agent_output_tokens"].value == 100
    assert results["agent_tokens"].value == 400
    # 100 + 200 input at $2.50/M, 40 + 60 output at $10/M.
    assert results["agent_cost_usd"].value == pytest.approx((300 * 2.5 + 100 * 10) / 1e6)


def test_an_unknown_model_is_not_guessed() -> None:
    spans = [
        _span("c1", None, model="gpt-4o", input_tokens=10, output_tokens=5),
        _span("c2", None, model="my-finetune", input_tokens=10, output_tokens=5),
    ]
    cost = next(r for r in agent_usage(spans) if r.name == "agent_cost_usd")
    assert cost.value is None
    assert "my-finetune" in cost.reason and "evaluation.prices" in cost.reason
    priced = agent_usage(
        spans, prices={"my-finetune": ModelPrice(input_per_mtok=1, output_per_mtok=1)}
    )
    assert next(r for r in priced if r.name == "agent_cost_usd").value == pytest.approx(
        (10 * 2.5 + 5 * 10 + 15) / 1e6
    )


def test_no_token_counts_means_no_usage_result() -> None:
    assert agent_usage([_span("a", None, name="execute_tool x")]) == []


def _conversation(status: str, **means: float) -> ConversationResult:
    conv = ConversationResult(
        chat_id="c",
        run_id="r",
        scenario_id="s",
        num_turns=1,
        num_tool_calls=0,
        final_score=None,
        status=status,
        turn_success_ratio=None,
        goal_completion=None,
        assertions_passed=0,
        assertions_total=0,
        reason="",
    )
    conv.metric_means = dict(means)
    return conv


def test_the_trial_rule() -> None:
    default = TrialPassRule()
    assert trial_outcome(_conversation("Done"), default) is True
    assert trial_outcome(_conversation("Partial Failure"), default) is False
    assert trial_outcome(_conversation("Not graded"), default) is None
    lenient = TrialPassRule(
        statuses=["Done", "Partial Failure"],
        min_metrics={"tool_call_args": 1.0},
        max_metrics={"agent_cost_usd": 0.01},
    )
    ok = _conversation("Partial Failure", tool_call_args=1.0, agent_cost_usd=0.005)
    assert trial_outcome(ok, lenient) is True
    assert (
        trial_outcome(_conversation("Done", tool_call_args=0.5, agent_cost_usd=0), lenient) is False
    )
    assert (
        trial_outcome(_conversation("Done", tool_call_args=1.0, agent_cost_usd=0.02), lenient)
        is False
    )
    assert trial_outcome(_conversation("Done", tool_call_args=1.0), lenient) is False  # ungraded
    with pytest.raises(ValueError, match="not a status"):
        TrialPassRule(statuses=["Passed"])


def test_run_budgets_gate_the_total_and_conversation_budgets_the_mean() -> None:
    config = EvalConfig(
        metrics=[],
        max_thresholds={"run_agent_cost_usd": 0.5, "agent_cost_usd": 0.4, "run_num_turns": 10},
    )
    tally = MetricTally(config)
    for cost in (0.3, 0.3):
        tally.add("agent_cost_usd", cost)
    add_run_totals(tally, config)
    gates = {g.metric: g for g in evaluate_gates(tally, config)}
    assert gates["run_agent_cost_usd"].observed == pytest.approx(0.6)
    assert gates["run_agent_cost_usd"].passed is False
    assert gates["agent_cost_usd"].passed is True  # mean 0.3 per conversation
    assert gates["run_num_turns"].passed is None  # never measured: skipped, not passed
