"""One evidence model per turn (SPEC §5): the failure classes of issue 24 on hand-built
rows shaped like what real instrumentations emit. Each test names the frameworks behind
the rule it checks."""

from __future__ import annotations

import json

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.provenance import source_of

from tests.evaluator.evidence_rows import _model, _row


def test_openinference_tool_span_named_only_by_its_span_name() -> None:
    """OpenInference Python/JS TOOL spans without `tool.name` (`get_weather.__call__`)."""
    row = _row(
        "00000000000000a1",
        "get_weather.__call__",
        {
            "openinference.span.kind": "TOOL",
            "input.value": '{"city": "Paris"}',
            "output.value": "Sunny",
        },
        second=1,
    )
    [call] = extract_tool_calls([row])
    assert (call.name, call.arguments, call.result) == ("get_weather", {"city": "Paris"}, "Sunny")
    sources = {f: source_of(call, f) for f in ("id", "name", "arguments", "result", "error")}
    assert sources == {
        "id": None,
        "name": "tool_span",
        "arguments": "tool_span",
        "result": "tool_span",
        "error": None,
    }


def test_arksim_tool_call_function_arguments() -> None:
    """arksim's documented tool-span convention (specific: arksim)."""
    row = _row(
        "00000000000000a1",
        "tool",
        {"tool_call.function.name": "lookup", "tool_call.function.arguments": '{"k": 1}'},
        second=1,
    )
    [call] = extract_tool_calls([row])
    assert (call.name, call.arguments) == ("lookup", {"k": 1})


def test_javascript_stack_is_removed_from_the_error() -> None:
    """Node instrumentations (OpenInference JS, OpenLLMetry Node) put `error.stack` in the
    status message: the message line first, then `    at ...` frames."""
    stack = (
        "Error: city not found: Atlantis\n"
        "    at getWeather (file:///app/agent.mjs:12:11)\n"
        "    at async Promise.all (index 0)"
    )
    row = _row(
        "00000000000000a1",
        "get_weather",
        {"openinference.span.kind": "TOOL", "tool.name": "get_weather", "input.value": "{}"},
        second=1,
        status_code="ERROR",
        status_message=stack,
    )
    [call] = extract_tool_calls([row])
    assert call.error == "city not found: Atlantis"
    assert call.result is None


def test_bare_error_type_takes_the_tools_error_output() -> None:
    """MCP `error.type=tool_error` with the isError content as the result; ADK's
    `gcp.vertex.agent.tool_response` {"error": message}: the message, not the type."""
    mcp = _row(
        "00000000000000a1",
        "tools/call lookup_order",
        {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "lookup_order",
            "gen_ai.tool.call.arguments": '{"order_id": "A1"}',
            "gen_ai.tool.call.result": '[{"type": "text", "text": "order A1 not found"}]',
            "error.type": "tool_error",
        },
        second=1,
    )
    adk = _row(
        "00000000000000a2",
        "execute_tool lookup_order",
        {
            "gen_ai.tool.name": "lookup_order",
            "gen_ai.tool.call.id": "c2",
            "gcp.vertex.agent.tool_call_args": '{"order_id": "B2"}',
            "gcp.vertex.agent.tool_response": '{"error": "order B2 not found"}',
            "error.type": "TOOL_ERROR",
        },
        second=2,
    )
    first, second = extract_tool_calls([mcp, adk])
    assert first.error == "order A1 not found" and first.result is None
    assert second.error == "order B2 not found" and second.result is None


def test_tool_span_mcp_client_and_server_spans_are_one_call() -> None:
    """A framework tool span, the MCP client span below it and the MCP server span below
    that (through an HTTP hop) are one call (OTel MCP semconv; LangChain MCP adapters,
    OpenAI Agents MCP). The MCP span may name the tool without the adapter's prefix."""
    tool = _row(
        "00000000000000a1",
        "execute_tool weather__get_weather",
        {
            "gen_ai.tool.name": "weather__get_weather",
            "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.arguments": '{"city": "Paris"}',
        },
        second=1,
    )
    client = _row(
        "00000000000000a2",
        "tools/call get_weather",
        {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "get_weather",
            "mcp.session.id": "s-1",
        },
        second=2,
        parent_span_id="00000000000000a1",
    )
    http = _row(
        "00000000000000a3",
        "POST /mcp",
        {"http.method": "POST"},
        second=3,
        parent_span_id="00000000000000a2",
    )
    server = _row(
        "00000000000000a4",
        "tools/call get_weather",
        {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.result": "Sunny",
        },
        second=4,
        parent_span_id="00000000000000a3",
    )
    [call] = extract_tool_calls([tool, client, http, server])
    assert (call.name, call.id, call.arguments) == (
        "weather__get_weather",
        "call_1",
        {"city": "Paris"},
    )
    assert call.result == "Sunny" and call.provenance["result"] == "mcp_span"


def test_nested_spans_with_a_parent_cycle_do_not_hang() -> None:
    """Self-parents and two spans parenting each other are tolerated in the tree walk."""
    a = _row(
        "00000000000000a1",
        "execute_tool t",
        {"gen_ai.tool.name": "t"},
        second=1,
        parent_span_id="00000000000000b2",
    )
    b = _row("00000000000000b2", "agent", {"x": 1}, second=1, parent_span_id="00000000000000b3")
    c = _row("00000000000000b3", "agent", {"x": 1}, second=1, parent_span_id="00000000000000b2")
    d = _row(
        "00000000000000a4",
        "execute_tool t",
        {"gen_ai.tool.name": "t"},
        second=2,
        parent_span_id="00000000000000a4",
    )
    assert [call.name for call in extract_tool_calls([a, b, c, d])] == ["t", "t"]


def test_a_model_input_flagging_the_result_failed_makes_the_call_failed() -> None:
    """Anthropic `tool_result.is_error` (OpenInference Python and JS) and Bedrock Converse
    `toolResult.status=error`: the tool span's output was the error told to the model."""
    for body in (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "c1",
                            "content": "no such order",
                            "is_error": True,
                        }
                    ],
                }
            ]
        },
        [
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "c1",
                            "content": [{"text": "no such order"}],
                            "status": "error",
                        }
                    }
                ],
            }
        ],
    ):
        tool = _row(
            "00000000000000a1",
            "lookup",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "lookup",
                "tool_call.id": "c1",
                "input.value": '{"order_id": "A1"}',
                "output.value": "no such order",
            },
            second=1,
        )
        model = _row(
            "00000000000000a2",
            "messages.create",
            {"openinference.span.kind": "LLM", "input.value": json.dumps(body)},
            second=2,
        )
        [call] = extract_tool_calls([tool, model])
        assert (call.result, call.error) == (None, "no such order")
        assert source_of(call, "error") == "model_input"


def test_a_failed_results_text_is_read_as_an_error_message() -> None:
    """The text a failure-flagged result carried is read like a status message: an agent's
    `Error: <message>` (Bedrock Converse under OpenInference for Node) is the message."""
    body = [
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "c1",
                        "content": [{"text": "Error: no such order"}],
                        "status": "error",
                    }
                }
            ],
        }
    ]
    request = _row(
        "00000000000000a1",
        "bedrock.converse",
        {
            "openinference.span.kind": "LLM",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}",
        },
        second=1,
    )
    model = _row(
        "00000000000000a2",
        "bedrock.converse",
        {"openinference.span.kind": "LLM", "input.value": json.dumps({"messages": body})},
        second=2,
    )
    [call] = extract_tool_calls([request, model])
    assert (call.result, call.error) == (None, "no such order")


def test_legacy_function_call_is_an_id_less_request() -> None:
    """LiteLLM's OTel callback: the request only as the legacy indexed
    `gen_ai.completion.0.function_call.{name,arguments}` (no id, empty output parts)."""
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": []}]),
        "gen_ai.completion.0.function_call.name": "get_weather",
        "gen_ai.completion.0.function_call.arguments": '{"city": "Paris"}',
    }
    [call] = extract_tool_calls([_row("00000000000000f1", "litellm_request", attributes, second=1)])
    assert (call.id, call.name, call.arguments) == ("", "get_weather", {"city": "Paris"})
    assert source_of(call, "arguments") == "model_request"


def test_a_span_that_ran_other_arguments_than_requested_is_a_conflict() -> None:
    """A tool span without an id pairs with the request of its name by position; when it
    ran other arguments than the request asked for, the span's (what ran) are kept and
    the disagreement is reported, never chosen silently (SPEC §5)."""
    model = _model("00000000000000c1", 1, calls=[("call_1", "lookup", '{"order": "A1"}')])
    tool = _row(
        "00000000000000a2",
        "execute_tool lookup",
        {"gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": '{"order": "B2"}'},
        second=2,
    )
    audit: list = []
    [call] = extract_tool_calls([model, tool], audit=audit)
    assert (call.id, call.arguments) == ("call_1", {"order": "B2"})
    assert call.provenance["conflicts"] == "arguments"
    assert [(item.kind, item.detail) for item in audit] == [("conflict", "fields: arguments")]
