"""The arksim metric adapter's edges (`checks.arksim_metrics`): what a metric is handed,
and what it may hand back, without a run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tracesim.evaluator.checks.arksim_api import QuantitativeMetric, QuantResult, ScoreInput
from tracesim.evaluator.checks.arksim_metrics import ArksimMetric
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.checks.custom import CustomMetricError, load_custom_metrics
from tracesim.schemas import ToolCall

TURNS = [
    {"turn_id": 0, "user_message": "hi", "agent_message": "hello"},
    {"turn_id": 1, "user_message": "order A1?", "agent_message": "shipped"},
]


def _ctx(turn: int | None) -> MetricContext:
    calls = [[], [ToolCall(name="lookup", arguments={"id": "A1"})]]
    return MetricContext(
        chat_id="c",
        conversation={},
        scenario={"goal": "track A1", "user_profile": {"name": "Dana"}, "knowledge": ["A1"]},
        turns=TURNS,
        turn_tool_calls=calls,
        turn=None if turn is None else TURNS[turn],
        tool_calls=calls[turn] if turn is not None else [c for t in calls for c in t],
    )


class Echo(QuantitativeMetric):
    seen: list[ScoreInput] = []

    def __init__(self) -> None:
        super().__init__(name="echo", score_range=(0, 10), additional_input={"strict": True})

    def score(self, score_input: ScoreInput) -> QuantResult:
        Echo.seen.append(score_input)
        return QuantResult(
            name=self.name, value=float("nan") if score_input.knowledge == "x" else 7
        )


def test_the_score_input_is_arksims_view_of_the_turn() -> None:
    metric = ArksimMetric(Echo(), quantitative=True)
    assert metric.threshold == 6.0  # 60% of the range's maximum
    result = metric.score(_ctx(0))
    assert result.value == 7.0
    seen = Echo.seen[-1]
    assert [(m.role, m.content) for m in seen.chat_history] == [
        ("user", "hi"),
        ("assistant", "hello"),
    ]  # up to and including the graded turn, not beyond
    assert seen.model_extra == {"strict": True}  # additional_input, as arksim passes it
    assert seen.user_goal == "track A1" and seen.profile == "name: Dana"
    assert seen.knowledge == "Knowledge 1:\nA1"
    metric.score(_ctx(1))
    assert [c.name for c in Echo.seen[-1].tool_calls] == ["lookup"]
    assert [m.content for m in Echo.seen[-1].current_turn] == ["order A1?", "shipped"]


def test_a_value_that_is_not_a_number_is_not_graded() -> None:
    metric = ArksimMetric(Echo(), quantitative=True)
    ctx = _ctx(0)
    ctx = MetricContext(**{**ctx.__dict__, "scenario": {"knowledge": "x"}})
    result = metric.score(ctx)
    assert result.value is None and "not a number" in result.reason


def test_a_class_that_needs_arguments_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from arksim.evaluator import QuantitativeMetric, QuantResult\n"
        "class NeedsArgs(QuantitativeMetric):\n"
        "    def __init__(self, name):\n"
        "        super().__init__(name=name)\n"
        "    def score(self, score_input):\n"
        "        return QuantResult(name=self.name, value=1)\n"
    )
    with pytest.raises(CustomMetricError, match="NeedsArgs .* cannot be created without"):
        load_custom_metrics(["m.py"], base_dir=tmp_path)
    assert "arksim" not in sys.modules  # the stand-in is gone once the file is loaded
