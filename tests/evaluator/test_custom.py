"""Custom metrics from a user's file: decorator, base class, a raising one, load errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.checks.custom import (
    CustomMetricError,
    load_custom_metrics,
    run_custom_metric,
)
from tracesim.evaluator.output.results_file import read_results
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.evaluator.scoring.gates import EvalConfigError
from tracesim.schemas import ToolCall
from tracesim.schemas.eval_config import EvalConfig

from tests.evaluator.test_pipeline import build_db

METRICS = textwrap.dedent(
    """
    from tracesim.evaluator import CustomMetric, MetricResult, metric

    @metric(name="says_refund", level="turn", threshold=1.0)
    def says_refund(ctx):
        return "refund" in (ctx.turn["agent_message"] or "").lower()

    @metric(level="turn")
    def reply_length(ctx):
        return float(len(ctx.turn["agent_message"] or ""))

    class CalledLookup(CustomMetric):
        name = "called_lookup"
        level = "conversation"

        def score(self, ctx):
            hit = any(c.name == "lookup_order" for c in ctx.tool_calls)
            return MetricResult(name="ignored", value=float(hit), passed=hit, reason=f"{len(ctx.spans)} spans")

    @metric(name="broken", level="conversation")
    def broken(ctx):
        raise RuntimeError("boom")

    @metric(name="async_metric", level="conversation")
    async def async_metric(ctx):
        return 0.5
    """
)


def _write(tmp_path: Path, text: str = METRICS, name: str = "my_metrics.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _ctx() -> MetricContext:
    turn = {"turn_id": 0, "agent_message": "Refund sent", "status": "ok"}
    return MetricContext(
        chat_id="c",
        conversation={},
        scenario={},
        turns=[turn],
        turn_tool_calls=[[ToolCall(name="lookup_order")]],
        turn=turn,
        tool_calls=[ToolCall(name="lookup_order")],
    )


def test_decorator_and_class_are_collected(tmp_path: Path) -> None:
    _write(tmp_path)
    metrics = load_custom_metrics(["my_metrics.py"], base_dir=tmp_path)
    by_name = {m.name: m for m in metrics}
    assert set(by_name) == {
        "says_refund",
        "reply_length",
        "called_lookup",
        "broken",
        "async_metric",
    }
    assert by_name["called_lookup"].level == "conversation"
    ctx = _ctx()
    says = run_custom_metric(by_name["says_refund"], ctx, thresholds={})
    assert (says.value, says.passed) == (1.0, True)
    length = run_custom_metric(by_name["reply_length"], ctx, thresholds={})
    assert length.value == 11.0 and length.passed is None  # informational: no threshold
    length = run_custom_metric(by_name["reply_length"], ctx, thresholds={"reply_length": 20})
    assert length.passed is False
    lookup = run_custom_metric(by_name["called_lookup"], ctx, thresholds={})
    assert (
        lookup.name == "called_lookup"
        and lookup.value == 1.0
        and lookup.details["kind"] == "custom"
    )
    assert run_custom_metric(by_name["async_metric"], ctx, thresholds={}).value == 0.5


def test_raising_metric_is_not_graded_with_the_error(tmp_path: Path) -> None:
    metrics = {m.name: m for m in load_custom_metrics([_write(tmp_path)])}
    result = run_custom_metric(metrics["broken"], _ctx(), thresholds={})
    assert result.value is None and result.label == "error"
    assert "RuntimeError: boom" in result.reason and "my_metrics.py" in result.reason


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(CustomMetricError, match="does not exist"):
        load_custom_metrics(["missing.py"], base_dir=tmp_path)
    with pytest.raises(CustomMetricError, match="failed to import: SyntaxError"):
        load_custom_metrics([_write(tmp_path, "def (:\n", "bad.py")])
    with pytest.raises(CustomMetricError, match="defines no metric"):
        load_custom_metrics([_write(tmp_path, "x = 1\n", "empty.py")])
    with pytest.raises(CustomMetricError, match="defined twice"):
        load_custom_metrics([_write(tmp_path), _write(tmp_path, METRICS, "copy.py")])


def test_custom_metrics_in_the_pipeline(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    _write(tmp_path)
    config = EvalConfig(
        metrics=[],
        custom_metrics_file_paths=["my_metrics.py"],
        thresholds={"called_lookup": 1.0},
    )
    result = evaluate_db(
        db, config=config, base_dir=tmp_path, output_dir=tmp_path / "o", progress=False
    )
    assert result.report.custom_metrics == [
        "says_refund",
        "reply_length",
        "called_lookup",
        "broken",
        "async_metric",
    ]
    # in memory: summaries; results.json: the conversation-level results and the turns
    (ok,) = [c for c in read_results(result.results_path).conversations if c.chat_id == "chat-ok"]
    conv = {m.name: m for m in ok.metrics}
    assert conv["called_lookup"].value == 1.0 and conv["broken"].label == "error"
    assert "RuntimeError: boom" in (conv["broken"].reason or "")
    # says_refund (threshold 1.0) decides turn success: turn 0 "Found order 42." fails it
    assert ok.turns[0].success is False and ok.turns[1].success is True
    summary = next(c for c in result.report.conversations if c.chat_id == "chat-ok")
    assert summary.turn_success == [False, True] and summary.metrics == summary.turns == []
    gate = result.gates[0]
    assert gate.metric == "called_lookup" and gate.observed == 0.5 and result.exit_code == 1


def test_bad_custom_file_is_a_config_error(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = EvalConfig(custom_metrics_file_paths=["nope.py"])
    with pytest.raises(EvalConfigError, match="nope.py does not exist"):
        evaluate_db(db, config=config, base_dir=tmp_path, progress=False)
