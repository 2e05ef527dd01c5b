"""Review regression: an assertion about a turn missing between stored turns is not graded."""

from __future__ import annotations

from tracesim.evaluator.checks.assertions import check_assertions, parse_assertions
from tracesim.evaluator.load.load import ConversationData
from tracesim.evaluator.pipeline.check_stage import tool_checks
from tracesim.evaluator.pipeline.stages import ConversationWork
from tracesim.schemas import ToolCall


def test_assertion_on_a_turn_missing_between_stored_turns_is_not_graded() -> None:
    assertion = {"type": "tool_calls", "expected": [{"name": "refund"}], "turn": 1}
    data = ConversationData(
        "c", {}, {"assertions": [assertion]}, turns=[{"turn_id": 0}, {"turn_id": 2}]
    )
    work = ConversationWork(data, calls=[[ToolCall(name="x")], []], turn_results=[[], []])
    tool_checks(work)
    [result] = work.conv_results
    assert result.value is None and result.label == "not_run"


def test_check_assertions_reads_none_as_a_turn_not_run() -> None:
    parsed = parse_assertions([{"type": "tool_calls", "expected": [], "turn": 0}], where="s")
    [(turn_id, result)] = check_assertions(parsed, [None])
    assert turn_id == 0 and result.value is None
