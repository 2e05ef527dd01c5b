"""Tool stubs: matching, `@tool` in and out of a run, and a real run answered by stubs."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry import context as otel_context
from opentelemetry.context import Context
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.stubs import (
    StubBook,
    ToolStubError,
    UnstubbedToolCall,
    args_match,
    tool,
    with_stub_book,
)

from tests.simulator.conftest import Project, custom_agent, query


def test_args_match_is_a_deep_subset_with_numbers_by_value() -> None:
    assert args_match({"a": 1}, {"a": 1.0, "b": 2})
    assert args_match({"o": {"x": [1, "y"]}}, {"o": {"x": [1, "y"], "z": 0}})
    assert not args_match({"a": "1"}, {"a": 1})
    assert not args_match({"a": True}, {"a": 1})
    assert not args_match({"a": 1}, {"b": 1})
    assert not args_match({"o": {"x": [1]}}, {"o": {"x": [1, 2]}})


def test_first_match_wins_and_repeat_is_counted() -> None:
    book = StubBook.of(
        [
            {"name": "lookup", "args": {"id": "A1"}, "result": "first", "repeat": 1},
            {"name": "lookup", "args": {"id": "A1"}, "result": "second"},
            {"name": "lookup", "result": {"any": True}},
            {"name": "refund", "error": "refunds are down"},
        ]
    )
    assert book.answer("lookup", {"id": "A1"}).result == "first"
    assert book.answer("lookup", {"id": "A1"}).result == "second"
    assert book.answer("lookup", {"id": "A1", "x": 1}).result == "second"
    assert book.answer("lookup", {"id": "B2"}).result_text() == '{"any": true}'
    assert book.answer("refund", {}).error == "refunds are down"
    missing = book.answer("cancel", {"id": "A1"})
    assert not missing.stubbed and "no tool stub matches cancel" in missing.error
    assert [a.name for a in book.unstubbed()] == ["cancel"]


def test_stub_needs_a_result_or_an_error() -> None:
    with pytest.raises(ValueError, match="needs a 'result' or an 'error'"):
        Scenario(scenario_id="s", turns=["hi"], tool_stubs=[{"name": "x"}])
    with pytest.raises(ValueError, match="not both"):
        Scenario(
            scenario_id="s", turns=["hi"], tool_stubs=[{"name": "x", "result": 1, "error": "e"}]
        )
    null_result = Scenario(
        scenario_id="s", turns=["hi"], tool_stubs=[{"name": "x", "result": None}]
    )
    assert null_result.tool_stubs[0].result is None


@tool
def lookup(order_id: str, verbose: bool = False) -> str:
    return f"real {order_id}"


@tool(name="refund_order")
async def refund(order_id: str) -> str:
    return f"real refund {order_id}"


def test_tool_is_a_no_op_outside_a_run() -> None:
    assert lookup("A1") == "real A1"
    assert asyncio.run(refund("A1")) == "real refund A1"


def test_tool_answers_from_the_turns_book() -> None:
    book = StubBook.of(
        [
            {"name": "lookup", "args": {"order_id": "A1"}, "result": "stubbed A1"},
            {"name": "refund_order", "error": "declined"},
        ]
    )
    token = otel_context.attach(with_stub_book(Context(), book))
    try:
        assert lookup("A1") == "stubbed A1"
        assert lookup(order_id="A1", verbose=True) == "stubbed A1"
        with pytest.raises(ToolStubError, match="declined"):
            asyncio.run(refund("A1"))
        with pytest.raises(UnstubbedToolCall, match=r'lookup\(\{"order_id": "Z9"\}\)'):
            lookup("Z9")
    finally:
        otel_context.detach(token)
    assert lookup("A1") == "real A1"


AGENT = """
from tracesim import BaseAgent, tool

@tool
def lookup_order(order_id: str) -> str:
    raise RuntimeError("the real back end must not be reached in a replay")

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        try:
            return "order is " + str(lookup_order(user_query.split()[-1]))
        except Exception as exc:
            return f"tool failed: {exc}"
"""


def test_a_run_answers_python_tools_from_the_scenario_stubs(project: Project) -> None:
    project.agent(AGENT)
    project.scenarios(
        [
            {
                "scenario_id": "replay",
                "turns": ["status of A1", "status of Z9"],
                "tool_stubs": [
                    {"name": "lookup_order", "args": {"order_id": "A1"}, "result": "shipped"}
                ],
            }
        ]
    )
    project.config(agent_config=custom_agent("agent.py", class_name="Agent"))
    outcome = project.run(evaluate=True)
    rows = query(
        outcome.db_path,
        "SELECT turn_id, agent_message FROM turns ORDER BY turn_id",
    )
    assert rows[0] == (0, "order is shipped")
    assert rows[1][1].startswith("tool failed: tracesim: no tool stub matches lookup_order")
    marks = query(
        outcome.db_path,
        "SELECT turn_id, attributes->>'$.\"tracesim.tool_stubs.answered\"', "
        "attributes->>'$.\"tracesim.tool_stubs.unstubbed\"' FROM spans "
        "WHERE name = 'tracesim.turn' ORDER BY turn_id",
    )
    assert marks[0][:2] == (0, "1") and marks[0][2] is None
    assert marks[1][:2] == (1, "0") and '"order_id": "Z9"' in marks[1][2].replace('":"', '": "')
    checks = query(
        outcome.db_path,
        "SELECT turn_id, value, passed, reason FROM scores "
        "WHERE metric = 'unstubbed_tool_calls' ORDER BY turn_id",
    )
    assert checks[0][:3] == (0, 1.0, True)
    assert checks[1][:3] == (1, 0.0, False)
    assert 'lookup_order({"order_id":"Z9"})' in checks[1][3]


UNWRAPPED_AGENT = """
from tracesim import AgentResponse, BaseAgent, ToolCall

def lookup_order(order_id: str) -> str:
    return "shipped (from the real back end)"

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        order = user_query.split()[-1]
        status = lookup_order(order)
        return AgentResponse(content="order is " + status, tool_calls=[
            ToolCall(name="lookup_order", arguments={"order_id": order}, result=status),
            ToolCall(name="transfer_to_billing", arguments={})])  # a handoff: no stub's
"""


def test_a_replay_whose_tools_bypass_the_stubs_fails_naming_them(project: Project) -> None:
    """Stubs the agent never asks (its tools are not wrapped) must not pass as "0 calls
    answered": the real back end was reached."""
    project.agent(UNWRAPPED_AGENT)
    project.scenarios(
        [
            {
                "scenario_id": "replay",
                "turns": ["status of A1"],
                "tool_stubs": [
                    {"name": "lookup_order", "args": {"order_id": "A1"}, "result": "shipped"}
                ],
            }
        ]
    )
    project.config(agent_config=custom_agent("agent.py", class_name="Agent"))
    outcome = project.run(evaluate=True)
    checks = query(
        outcome.db_path,
        "SELECT turn_id, value, passed, reason FROM scores WHERE metric = 'unstubbed_tool_calls'",
    )
    assert len(checks) == 1 and checks[0][:3] == (0, 0.0, False)
    assert "1 of 1 tool calls never went through the scenario's stubs" in checks[0][3]
    assert 'lookup_order({"order_id":"A1"})' in checks[0][3] and "@tool" in checks[0][3]
