"""tool_validity: each call against OpenAI, MCP and A2E tool definitions; one test per rule."""

from __future__ import annotations

import json

import pytest
from tracesim.evaluator.checks.assertions import RuleFacts, check_assertions, parse_assertions
from tracesim.evaluator.checks.validity import tool_definitions_from_spans
from tracesim.schemas import ToolCall
from tracesim.schemas.tool_definitions import ToolDefinitionError, tool_definitions

OPENAI = {
    "type": "function",
    "function": {
        "name": "refund",
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string"},
                "amount": {"type": "number"},
                "reason": {"type": "string", "enum": ["damaged", "late"]},
            },
            "required": ["order_id", "amount"],
        },
    },
}
MCP = {
    "name": "refund",
    "inputSchema": OPENAI["function"]["parameters"],
}
A2E = {
    "name": "refund",
    "description": "Refund an order",
    "input_parameters": [
        {"name": "order_id", "type": "string", "required": True},
        {"name": "amount", "type": "number", "required": True},
        {"name": "reason", "type": "string", "enum": ["damaged", "late"]},
    ],
}


def validity(calls: list[ToolCall], tools: list) -> object:
    assertions = parse_assertions([{"type": "tool_validity"}], where="s")
    facts = RuleFacts(definitions=tool_definitions(tools))
    [(_, result)] = check_assertions(assertions, [calls], facts=facts)
    return result


def call(name: str = "refund", **args) -> ToolCall:
    return ToolCall(name=name, arguments=args)


@pytest.mark.parametrize("shape", [OPENAI, MCP, A2E], ids=["openai", "mcp", "a2e"])
def test_valid_call_passes_in_every_shape(shape: dict) -> None:
    result = validity([call(order_id="A1", amount=10, reason="late")], [shape])
    assert result.passed is True and result.value == 1.0


@pytest.mark.parametrize("shape", [OPENAI, MCP, A2E], ids=["openai", "mcp", "a2e"])
@pytest.mark.parametrize(
    ("name", "args", "code", "words"),
    [
        ("cancel", {"order_id": "A1"}, "UNKNOWN_TOOL", "no tool named 'cancel'"),
        ("refund", {"order_id": "A1"}, "MISSING_ARGUMENT", "'amount' is required"),
        ("refund", {"order_id": "A1", "amount": "ten"}, "WRONG_TYPE", "amount: 'ten'"),
        ("refund", {"order_id": "A1", "amount": 1, "reason": "bored"}, "NOT_IN_ENUM", "reason"),
        ("refund", {"order_id": "A1", "amount": 1, "note": "x"}, "UNEXPECTED_ARGUMENT", "'note'"),
    ],
)
def test_each_rule_fails_and_names_the_call(shape, name, args, code, words) -> None:
    result = validity([call("refund", order_id="A0", amount=1), call(name, **args)], [shape])
    assert result.passed is False
    assert result.value == 0.5  # one of two calls invalid
    assert result.label == code
    assert f"call #2 {name} (turn 0): {code}" in result.reason
    assert words in result.reason
    assert [p["code"] for p in result.details["problems"]] == [code]


def test_schema_allowing_extra_arguments_is_respected() -> None:
    schema = {**MCP, "inputSchema": {**MCP["inputSchema"], "additionalProperties": True}}
    assert validity([call(order_id="A1", amount=1, note="x")], [schema]).passed is True


def test_nested_a2e_parameters_are_checked() -> None:
    tool = {
        "name": "ship",
        "input_parameters": [
            {
                "name": "address",
                "type": "object",
                "required": True,
                "properties": [{"name": "zip", "type": "string", "required": True}],
            }
        ],
    }
    assert validity([call("ship", address={"zip": "123"})], [tool]).passed is True
    bad = validity([call("ship", address={})], [tool])
    assert bad.passed is False and bad.label == "MISSING_ARGUMENT"


def test_without_definitions_it_is_not_graded() -> None:
    result = validity([call(order_id="A1")], [])
    assert result.value is None and result.passed is None and "no tool definitions" in result.reason


def test_definitions_from_spans_of_three_conventions() -> None:
    spans = [
        {
            "attributes": {
                "gen_ai.tool.definitions": json.dumps([{"type": "function", **OPENAI["function"]}])
            }
        },
        {
            "attributes": {
                "llm.tools.0.tool.json_schema": json.dumps(
                    {**OPENAI, "function": {**OPENAI["function"], "name": "lookup"}}
                )
            }
        },
        {
            "attributes": {
                "llm.request.functions.0.name": "notify",
                "llm.request.functions.0.parameters": '{"type": "object", "properties": {"to": {"type": "string"}}}',
            }
        },
        {"attributes": None},
    ]
    names = [d.name for d in tool_definitions_from_spans(spans)]
    assert names == ["refund", "lookup", "notify"]


def test_bad_definitions_are_refused_with_the_place() -> None:
    with pytest.raises(ToolDefinitionError, match=r"tools\[0\]: a tool definition needs"):
        tool_definitions([{"description": "nameless"}])
    with pytest.raises(ToolDefinitionError, match=r"input_parameters\[0\]"):
        tool_definitions([{"name": "x", "input_parameters": [{"type": "string"}]}])
