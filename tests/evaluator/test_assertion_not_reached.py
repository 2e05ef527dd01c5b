"""An assertion on a turn the agent's error kept from happening is not graded (issue 23
item 2: an error is not the agent's mistake; the conversation is an error instead)."""

from __future__ import annotations

from tracesim.evaluator.load.load import ConversationData
from tracesim.evaluator.pipeline.check_stage import tool_checks
from tracesim.evaluator.pipeline.stages import ConversationWork
from tracesim.schemas import ToolCall

_ASSERTION = {"type": "tool_calls", "expected": [{"name": "refund"}], "turn": 1}


def _work(turn_status: str, conversation_status: str) -> ConversationWork:
    data = ConversationData(
        "c",
        {"status": conversation_status, "error": "turn 0 error: ValueError: boom"},
        {"assertions": [_ASSERTION]},
        turns=[{"turn_id": 0, "status": turn_status}],
    )
    return ConversationWork(data, calls=[[ToolCall(name="x")]], turn_results=[[]])


def test_a_turn_after_an_agent_error_is_not_graded() -> None:
    work = _work("error", "error")
    tool_checks(work)
    [result] = work.conv_results
    assert result.value is None and result.passed is None and result.label == "not_reached"
    assert result.name == "trajectory" and result.details["missing"] == ["refund(...)"]
    assert "turn 1 was never reached" in result.reason and "error" in result.reason


def test_a_conversation_that_simply_ended_leaves_the_turn_not_graded() -> None:
    work = _work("ok", "completed")
    tool_checks(work)
    [result] = work.conv_results
    assert result.value is None and result.label == "not_run"
