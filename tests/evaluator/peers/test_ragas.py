"""Cases ported from explodinggradients/ragas (tests/unit/test_tool_call_accuracy.py,
tests/unit/test_tool_call_f1.py).

ToolCallAccuracy = (the predicted name sequence equals the reference one)
x (the mean, over reference calls, of the share of their arguments
matched): `tool_call_order(order="strict")` times `trajectory(order="strict",
arg_mode="partial_credit")`. ToolCallF1 -> `tool_call_f1`. Their mocked
argument comparator returned per-argument exact matches, which is what
``partial_credit`` computes. Not ported: `test_metric_name` and
`test_required_columns` (ragas class introspection, no behaviour).
"""

from __future__ import annotations

import pytest
from tracesim.evaluator.metrics import tool_call_f1, tool_call_order, trajectory
from tracesim.schemas import ToolCall


def tc(name: str, **args) -> ToolCall:
    return ToolCall(name=name, args=args)


def accuracy(predicted, reference) -> float:
    aligned = tool_call_order(predicted, reference, order="strict")
    args = trajectory(predicted, reference, order="strict", arg_mode="partial_credit")
    return aligned.value * args.value


@pytest.mark.parametrize(
    ("pred", "ref", "aligned"),
    [
        (["func1", "func2", "func3"], ["func1", "func2", "func3"], True),
        (["func1", "func3", "func2"], ["func1", "func2", "func3"], False),
        (["func1", "func2"], ["func1", "func2", "func3"], False),
        ([], [], True),
    ],
    ids=["perfect", "different_order", "different_length", "empty"],
)
def test_is_sequence_aligned(pred, ref, aligned) -> None:
    result = tool_call_order([ToolCall(name=n) for n in pred], ref, order="strict")
    assert result.passed is aligned


SEARCH, FILTER = tc("search", query="python"), tc("filter", type="recent")


@pytest.mark.parametrize(
    ("pred", "ref", "score"),
    [
        ([SEARCH, FILTER], [SEARCH, FILTER], 1.0),
        ([], [SEARCH], 0.0),
        ([FILTER, SEARCH], [SEARCH, FILTER], 0.0),
        ([SEARCH, FILTER], [SEARCH], 0.0),
        ([SEARCH], [SEARCH, FILTER], 0.0),
        (
            [tc("search", query="python", limit=5), FILTER],
            [tc("search", query="python", limit=10), FILTER],
            0.75,
        ),
        ([tc("wrong_tool", query="python")], [SEARCH], 0.0),
        ([SEARCH, FILTER], [SEARCH, FILTER], 1.0),
        ([], [], 1.0),
        ([tc("unexpected")], [], 0.0),
    ],
    ids=[
        "perfect_match",
        "no_predicted_calls",
        "sequence_misalignment",
        "more_predicted",
        "fewer_predicted",
        "partial_argument_match",
        "wrong_tool_names",
        "multiple_ai_messages",
        "empty_reference_no_predictions",
        "empty_reference_with_predictions",
    ],
)
def test_tool_call_accuracy(pred, ref, score) -> None:
    assert accuracy(pred, ref) == pytest.approx(score)


def test_reference_required() -> None:
    """ragas requires `reference_tool_calls`; without one we do not grade."""
    assert trajectory([SEARCH], None).value is None


PARIS = {"location": "Paris"}


@pytest.mark.parametrize(
    ("expected", "predicted", "score"),
    [
        ([tc("WeatherForecast", **PARIS)], [tc("WeatherForecast", **PARIS)], 1.0),
        (
            [tc("WeatherForecast", **PARIS), tc("UVIndex", **PARIS)],
            [tc("WeatherForecast", **PARIS)],
            0.67,
        ),
        ([tc("WeatherForecast", **PARIS)], [tc("AirQuality", **PARIS)], 0.0),
        (
            [tc("WeatherForecast", **PARIS)],
            [tc("WeatherForecast", **PARIS), tc("AirQuality", **PARIS)],
            0.67,
        ),
    ],
    ids=["full_match", "partial_match", "no_match", "extra_call"],
)
def test_tool_call_f1(expected, predicted, score) -> None:
    assert round(tool_call_f1(predicted, expected).value, 2) == score
