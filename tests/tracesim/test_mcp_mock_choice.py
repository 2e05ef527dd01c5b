"""Which scenario answers an MCP call that names none (`tracesim mcp-mock` with several
scenarios): never the first in file order. The one scenario whose stubs match, or several
that answer alike; then the conversation keeps that scenario; scenarios that answer the
call differently get an error answer naming them and the fix."""

from __future__ import annotations

from tracesim.schemas.scenario import Scenario
from tracesim.simulator.stubs.mcp_mock import MockTools


def _scenarios() -> list[Scenario]:
    return [
        Scenario.model_validate(s)
        for s in (
            {"scenario_id": "lost", "turns": ["x"], "tool_stubs": [
                {"name": "lookup_order", "args": {"order_id": "A1"}, "result": {"status": "lost"}},
                {"name": "refund", "result": "refunded"},
            ]},
            {"scenario_id": "shipped", "turns": ["x"], "tool_stubs": [
                {"name": "lookup_order", "args": {"order_id": "A1"}, "result": {"status": "shipped"}},
                {"name": "lookup_order", "args": {"order_id": "B2"}, "result": {"status": "shipped"}},
            ]},
            {"scenario_id": "also-refunds", "turns": ["x"], "tool_stubs": [
                {"name": "refund", "result": "refunded"},
            ]},
        )
    ]  # fmt: skip


def test_differently_stubbed_calls_are_refused_naming_the_scenarios() -> None:
    answer = MockTools(_scenarios()).answer("lookup_order", {"order_id": "A1"}, chat_id="c1")
    assert not answer.stubbed and answer.error is not None
    assert "scenarios lost, shipped stub lookup_order" in answer.error
    assert "tracesim.scenario_id" in answer.error


def test_the_one_matching_scenario_answers_and_the_conversation_keeps_it() -> None:
    tools = MockTools(_scenarios())
    first = tools.answer("lookup_order", {"order_id": "B2"}, chat_id="c1")
    assert first.stubbed and first.result == {"status": "shipped"}
    # A1 is ambiguous across the file, not for c1: its calls came from `shipped`
    again = tools.answer("lookup_order", {"order_id": "A1"}, chat_id="c1")
    assert again.stubbed and again.result == {"status": "shipped"}


def test_scenarios_that_answer_alike_are_not_ambiguous() -> None:
    answer = MockTools(_scenarios()).answer("refund", {}, chat_id="c2")
    assert answer.stubbed and answer.result == "refunded"


def test_a_named_scenario_still_decides_and_an_unknown_one_is_said() -> None:
    tools = MockTools(_scenarios())
    named = tools.answer("lookup_order", {"order_id": "A1"}, scenario_id="lost", chat_id="c3")
    assert named.result == {"status": "lost"}
    unknown = tools.answer("lookup_order", {"order_id": "A1"}, scenario_id="typo", chat_id="c4")
    assert not unknown.stubbed and "scenario 'typo' is not in the file" in (unknown.error or "")
    nothing = tools.answer("cancel", {}, chat_id="c5")
    assert not nothing.stubbed and "no tool stub matches cancel" in (nothing.error or "")
