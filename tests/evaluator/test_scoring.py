"""Turn success, final score formula, status boundaries, clamping, gates and exit codes."""

from __future__ import annotations

import pytest
from tracesim.evaluator.scoring.gates import (
    EvalConfigError,
    ExitCode,
    check_gate_names,
    evaluate_gates,
    exit_code_for,
)
from tracesim.evaluator.scoring.scoring import clamp, conversation_scores, status_of, turn_success
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig


def _r(name: str, value: float | None, passed: bool | None = None) -> MetricResult:
    return MetricResult(name=name, value=value, passed=passed)


def _turn(value: float | None) -> MetricResult:
    return MetricResult(
        name="turn_success", value=value, passed=None if value is None else value == 1.0
    )


def test_turn_success_needs_every_deciding_result() -> None:
    assert (
        turn_success("ok", [_r("helpfulness", 0.75, True), _r("trajectory", 1.0, True)]).value
        == 1.0
    )
    failed = turn_success("ok", [_r("helpfulness", 0.75, True), _r("trajectory", 0.0, False)])
    assert failed.value == 0.0 and failed.passed is False and "trajectory" in failed.reason
    # not graded and informational results do not decide
    assert (
        turn_success("ok", [_r("helpfulness", None), _r("tool_latency", 12.0, None)]).value is None
    )
    assert turn_success("ok", [_r("x", None), _r("y", 1.0, True)]).value == 1.0


@pytest.mark.parametrize("status", ["error", "timeout"])
def test_errored_or_timed_out_turn_is_not_graded(status: str) -> None:
    """No answer to grade: neither a success nor an agent mistake."""
    result = turn_success(status, [_r("helpfulness", 1.0, True)])
    assert result.value is None and result.passed is None and status in result.reason


def test_final_score_formula() -> None:
    turns = [_turn(1.0), _turn(1.0), _turn(0.0), _turn(1.0)]
    ratio, final = conversation_scores(turns, _r("goal_completion", 0.6))
    assert ratio.value == 0.75
    assert final.value == pytest.approx(0.75 * 0.75 + 0.25 * 0.6)
    assert final.label == "Partial Failure"


def test_ungraded_turns_leave_the_ratio() -> None:
    ratio, final = conversation_scores([_turn(1.0), _turn(None)], None)
    assert ratio.value == 1.0 and ratio.details["graded_turns"] == 1
    assert final.value == 1.0 and final.label == "Done"
    assert "goal completion not graded" in final.reason


def test_goal_only_and_nothing_graded() -> None:
    _, final = conversation_scores([_turn(None)], _r("goal_completion", 0.5))
    assert final.value == 0.5 and "no turn graded" in final.reason and final.label == "Failed"
    ratio, final = conversation_scores([], None)
    assert ratio.value is None and final.value is None and final.label == "Not graded"


def test_custom_weight() -> None:
    _, final = conversation_scores(
        [_turn(1.0)], _r("goal_completion", 0.0), goal_completion_weight=0.6
    )
    assert final.value == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("score", "status"),
    [
        (1.0, "Done"),
        (0.9999, "Partial Failure"),
        (0.6, "Partial Failure"),
        (0.5999, "Failed"),
        (0.0, "Failed"),
        (None, "Not graded"),
    ],
)
def test_status_boundaries(score: float | None, status: str) -> None:
    assert status_of(score) == status


def test_values_are_clamped() -> None:
    assert clamp(1.7) == 1.0 and clamp(-0.2) == 0.0 and clamp(None) is None
    _, final = conversation_scores([_turn(1.0)], _r("goal_completion", 3.0))
    assert final.value == 1.0 and final.details["goal_completion"] == 1.0


def test_gates_on_the_mean_and_on_each_value() -> None:
    values = {"final_score": [1.0, 0.6], "tool_error_rate": [0.0, 0.3]}
    mean = EvalConfig(thresholds={"final_score": 0.7}, max_thresholds={"tool_error_rate": 0.2})
    gates = {g.metric: g for g in evaluate_gates(values, mean)}
    assert gates["final_score"].passed is True and gates["final_score"].observed == pytest.approx(
        0.8
    )
    assert gates["tool_error_rate"].passed is True
    each = mean.model_copy(update={"gate_scope": "each"})
    gates = {g.metric: g for g in evaluate_gates(values, each)}
    assert gates["final_score"].passed is False and gates["final_score"].failing == 1
    assert gates["tool_error_rate"].passed is False
    assert exit_code_for(list(gates.values())) == ExitCode.GATE_FAILED == 1


def test_ungraded_gate_is_skipped_unless_strict() -> None:
    config = EvalConfig(thresholds={"helpfulness": 0.5})
    (gate,) = evaluate_gates({}, config)
    assert gate.passed is None and "skipped" in gate.reason
    assert exit_code_for([gate]) == ExitCode.OK == 0
    (gate,) = evaluate_gates({}, config.model_copy(update={"fail_ungraded_gates": True}))
    assert gate.passed is False and exit_code_for([gate]) == 1


def test_gate_names_are_checked() -> None:
    check_gate_names(EvalConfig(thresholds={"final_score": 0.7, "tool_call_args": 1.0}))
    check_gate_names(EvalConfig(thresholds={"polite": 0.5}), extra=["polite"])
    with pytest.raises(EvalConfigError, match=r"evaluation.max_thresholds.nope: unknown metric"):
        check_gate_names(EvalConfig(max_thresholds={"nope": 0.5}))
    assert (ExitCode.BAD_CONFIG, ExitCode.INTERNAL_ERROR) == (2, 3)


def test_eval_config_rejects_unknown_keys_and_judges() -> None:
    with pytest.raises(ValueError, match="metric"):
        EvalConfig.model_validate({"metric": ["helpfulness"]})
    with pytest.raises(ValueError):
        EvalConfig.model_validate({"metrics": ["politeness"]})
    with pytest.raises(ValueError, match="twice"):
        EvalConfig.model_validate({"metrics": ["coherence", "coherence"]})


def test_tallies_merged_in_order_count_what_one_tally_counts() -> None:
    from tracesim.evaluator.scoring.tally import MetricTally

    config = EvalConfig(
        thresholds={"a": 0.5}, max_thresholds={"a": 0.8}, failure_labels={"b": ["bad"]}
    )
    values = [("a", 0.2, None), ("a", 0.9, None), ("b", 1.0, "bad"), ("a", 0.6, None)]
    whole, merged = MetricTally(config), MetricTally(config)
    for chunk in (values[:2], values[2:]):  # one tally per chunk, as worker processes keep
        part = MetricTally(config)
        for name, value, label in chunk:
            whole.add(name, value)
            whole.add_label(name, label)
            part.add(name, value)
            part.add_label(name, label)
        merged.merge(part)
    assert merged.counts == whole.counts == {"a": 3, "b": 1}
    assert merged.sums == whole.sums and merged.label_hits == whole.label_hits == {"b": 1}
    for bound in ("min", "max"):
        assert merged.gate_stats("a", bound) == whole.gate_stats("a", bound)
    assert merged.gate_stats("a", "min").failing == 1 and merged.gate_stats("a", "max").failing == 1
