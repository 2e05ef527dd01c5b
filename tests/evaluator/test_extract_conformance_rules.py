"""SPEC §5's rules for what real frameworks emit, one test per rule, on `spans` rows."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from evaluator import extract_tool_calls
from evaluator.extract.envelopes import unwrap_value

T0 = datetime(2025, 1, 1, 12, 0, 0)


def _row(n: int, name: str, attributes: dict, *, trace: int = 1, **extra) -> dict:
    row = {
        "trace_id": format(trace, "032x"),
        "span_id": format(n, "016x"),
        "parent_span_id": None,
        "name": name,
        "start_time": T0 + timedelta(seconds=n),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }
    row.update(extra)
    return row


def _tool(n: int, attributes: dict, **extra) -> dict:
    return _row(n, "execute_tool t", {"gen_ai.tool.name": "t", **attributes}, **extra)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{"result": "Sunny"}', "Sunny"),  # Google ADK
        ('{"content": "Sunny"}', "Sunny"),  # UiPath-style, MCP
        ('{"result": {"temp": 21}}', '{"temp":21}'),
        ('[{"type": "text", "text": "Sun"}, {"type": "text", "text": "ny"}]', "Sunny"),
        (
            json.dumps(
                {
                    "lc": 1,
                    "type": "constructor",
                    "id": ["langchain", "schema", "messages", "ToolMessage"],
                    "kwargs": {"content": "Sunny", "tool_call_id": "c1", "type": "tool"},
                }
            ),
            "Sunny",
        ),
        ('{"type": "tool", "content": "Sunny", "tool_call_id": "c1", "name": "t"}', "Sunny"),
        ('{"output": {"content": "Sunny"}, "kwargs": {}}', "Sunny"),  # callback payload
        ('{"result": "<not specified>"}', None),  # a placeholder is no result
        ('{"temp": 21, "result": "x"}', '{"temp": 21, "result": "x"}'),  # not an envelope
        ('{"a": 1}', '{"a": 1}'),  # the tool's own JSON stays its text
    ],
)
def test_result_envelopes_are_unwrapped(value: str, expected: str | None) -> None:
    [call] = extract_tool_calls([_tool(1, {"gen_ai.tool.call.result": value})])
    assert call.result == expected


def test_tool_message_gives_the_call_id() -> None:
    message = {"type": "tool", "content": "ok", "tool_call_id": "call_9", "name": "t"}
    assert unwrap_value(json.dumps(message)).call_id == "call_9"
    [call] = extract_tool_calls([_tool(1, {"output.value": json.dumps(message)})])
    assert (call.id, call.result) == ("call_9", "ok")


def test_placeholders_count_as_missing() -> None:
    [call] = extract_tool_calls(
        [
            _tool(
                1,
                {
                    "gen_ai.tool.call.id": "<not specified>",
                    "gen_ai.tool.call.arguments": "",
                    "gcp.vertex.agent.tool_call_args": '{"city": "Paris"}',
                },
            )
        ]
    )
    assert (call.id, call.arguments) == ("", {"city": "Paris"})


def test_langchain_tool_call_envelope_gives_arguments_and_id() -> None:
    value = {"name": "t", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}
    [call] = extract_tool_calls([_tool(1, {"input.value": json.dumps(value)})])
    assert (call.arguments, call.id) == ({"city": "Paris"}, "call_1")


def _exception(message: str) -> str:
    return json.dumps(
        [{"name": "exception", "attributes": {"exception.message": message, "exception.type": "E"}}]
    )


def test_error_is_the_exception_message_not_the_traceback() -> None:
    traceback = (
        'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "    raise ValueError('order A1 not found')\nValueError: order A1 not found\n"
    )
    rows = [
        _tool(1, {}, status_code="ERROR", status_message=traceback, events=_exception("boom")),
        _tool(2, {}, status_code="ERROR", status_message=traceback),
        _tool(3, {}, status_code="ERROR", status_message="ValueError: order A1 not found"),
        _tool(4, {}, status_code="ERROR", status_message="Note: kept as it is"),
    ]
    assert [c.error for c in extract_tool_calls(rows)] == [
        "boom",
        "order A1 not found",
        "order A1 not found",
        "Note: kept as it is",
    ]


def _model(n: int, calls: list[tuple[str, str, dict]], *, trace: int = 1, **attrs) -> dict:
    parts = [{"type": "tool_call", "id": i, "name": name, "arguments": a} for i, name, a in calls]
    return _row(
        n,
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
            **attrs,
        },
        trace=trace,
    )


def test_bare_input_takes_the_arguments_of_the_request_it_answers() -> None:
    rows = [
        _model(1, [("c1", "t", {"city": "Paris"})]),
        _tool(2, {"input.value": "Paris"}),
        _model(3, [("c2", "t", {"city": "Rome"}), ("c3", "t", {"city": "Oslo"})]),
        _tool(4, {"input.value": "Oslo"}),
        _tool(5, {"input.value": "Rome"}),
    ]
    calls = extract_tool_calls(rows)
    assert [(c.id, c.arguments) for c in calls] == [
        ("c1", {"city": "Paris"}),
        ("c3", {"city": "Oslo"}),
        ("c2", {"city": "Rome"}),
    ]


def test_an_id_of_its_own_takes_the_arguments_of_that_request() -> None:
    message = {"type": "tool", "content": "ok", "tool_call_id": "c2", "name": "t"}
    rows = [
        _model(1, [("c1", "t", {"x": 1}), ("c2", "t", {"x": 2})]),
        _tool(2, {"input.value": "2", "output.value": json.dumps(message)}),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.id, call.arguments) == ("c2", {"x": 2})


def test_ids_recovered_within_the_conversation_from_the_latest_request_before() -> None:
    conversation = [
        _model(1, [("w1", "t", {"a": 1})], trace=10),
        _tool(2, {"gen_ai.tool.call.arguments": '{"a": 1}'}, trace=11),
        _model(3, [("w2", "t", {"a": 1})], trace=12),
        _tool(4, {"gen_ai.tool.call.arguments": '{"a": 1}'}, trace=13),
    ]
    first = extract_tool_calls([conversation[1]], context=conversation)
    second = extract_tool_calls([conversation[3]], context=conversation)
    assert (first[0].id, second[0].id) == ("w1", "w2")
    assert extract_tool_calls([conversation[3]])[0].id == ""  # no context: nothing to recover


def test_requests_read_from_adk_responses_and_span_events() -> None:
    adk = {"content": {"parts": [{"function_call": {"id": "a1", "name": "t", "args": {"k": 1}}}]}}
    choice = {
        "message": {"tool_calls": [{"id": "e1", "function": {"name": "u", "arguments": "{}"}}]}
    }
    rows = [
        _row(1, "call_llm", {"gcp.vertex.agent.llm_response": json.dumps(adk)}),
        _row(
            2,
            "chat",
            {"gen_ai.operation.name": "chat"},
            events=json.dumps([{"name": "gen_ai.choice", "attributes": choice}]),
        ),
        _tool(3, {"gen_ai.tool.call.arguments": '{"k": 1}'}),
        _row(4, "execute_tool u", {"gen_ai.tool.name": "u"}),
    ]
    assert [c.id for c in extract_tool_calls(rows)] == ["a1", "e1"]


def test_tool_fields_read_from_span_events_when_attributes_lack_them() -> None:
    events = [
        {
            "name": "gen_ai.tool.message",
            "attributes": {
                "gen_ai.tool.call.arguments": '{"q": 1}',
                "gen_ai.tool.call.result": "r",
            },
        }
    ]
    [call] = extract_tool_calls([_tool(1, {}, events=json.dumps(events))])
    assert (call.arguments, call.result) == ({"q": 1}, "r")


def test_mlflow_tool_span() -> None:
    row = _row(
        1,
        "get_weather",
        {
            "mlflow.spanType": '"TOOL"',
            "mlflow.spanInputs": '{"city": "Paris"}',
            "mlflow.spanOutputs": '"Sunny"',
        },
    )
    [call] = extract_tool_calls([row, _row(2, "chat", {"mlflow.spanType": '"CHAT_MODEL"'})])
    assert (call.name, call.arguments, call.result) == ("get_weather", {"city": "Paris"}, "Sunny")


def test_vercel_ai_sdk_tool_span() -> None:
    row = _row(
        1,
        "ai.toolCall",
        {
            "ai.toolCall.name": "get_weather",
            "ai.toolCall.id": "call_w1",
            "ai.toolCall.args": '{"city": "Paris"}',
            "ai.toolCall.result": '"Sunny"',
        },
    )
    [call] = extract_tool_calls([row])
    assert (call.name, call.id, call.arguments, call.result) == (
        "get_weather",
        "call_w1",
        {"city": "Paris"},
        "Sunny",
    )


def test_uipath_synthesized_container_is_not_a_call() -> None:
    rows = [
        _row(1, "tool get_weather", {"tool.name": "get_weather", "tool.synthesized": True}),
        _row(
            2,
            "get_weather",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "get_weather",
                "output.value": '{"content": "Sunny"}',
            },
        ),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.span_id, call.result) == (format(2, "016x"), "Sunny")


def _responses(n: int, answered: list[tuple[str, str]], *, trace: int) -> dict:
    parts = [{"type": "tool_call_response", "id": i, "response": r} for i, r in answered]
    return _row(
        n,
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps([{"role": "tool", "parts": parts}]),
        },
        trace=trace,
    )


def test_without_tool_spans_the_requested_calls_are_the_calls() -> None:
    conversation = [
        _model(1, [("w1", "get_weather", {"city": "Paris"})], trace=1),
        _responses(2, [("w1", '{"result": "Sunny"}')], trace=2),
    ]
    [call] = extract_tool_calls([conversation[0]], context=conversation)
    assert (call.id, call.name, call.arguments, call.result) == (
        "w1",
        "get_weather",
        {"city": "Paris"},
        "Sunny",
    )
    assert extract_tool_calls([conversation[1]], context=conversation) == []
    with_tool_span = [*conversation, _tool(3, {"gen_ai.tool.call.id": "w1"}, trace=3)]
    assert extract_tool_calls([conversation[0]], context=with_tool_span) == []


def test_missing_result_read_from_a_later_tool_message_event() -> None:
    tool_message = {"name": "gen_ai.tool.message", "attributes": {"id": "c1", "content": "ok"}}
    rows = [
        _tool(1, {"gen_ai.tool.call.id": "c1", "gen_ai.tool.call.arguments": "{}"}),
        _row(2, "chat m", {"gen_ai.operation.name": "chat"}, events=json.dumps([tool_message])),
    ]
    [call] = extract_tool_calls(rows)
    assert call.result == "ok"


def test_json_encoded_string_result_is_that_string() -> None:
    [call] = extract_tool_calls([_tool(1, {"gen_ai.tool.call.result": '"Sunny, 21 C"'})])
    assert call.result == "Sunny, 21 C"


def test_strands_tool_span_events_are_its_input_and_output() -> None:
    events = [
        {"name": "gen_ai.tool.message", "attributes": {"content": '{"city": "Paris"}', "id": "w1"}},
        {"name": "gen_ai.choice", "attributes": {"message": '[{"text": "Sunny"}]', "id": "w1"}},
    ]
    [call] = extract_tool_calls([_tool(1, {}, events=json.dumps(events))])
    assert (call.id, call.arguments, call.result) == ("w1", {"city": "Paris"}, "Sunny")


def test_smolagents_arguments_envelope_and_final_answer() -> None:
    args = {"args": [], "sanitize_inputs_outputs": True, "kwargs": {"city": "Paris"}}
    rows = [
        _row(
            1,
            "SimpleTool",
            {"openinference.span.kind": "TOOL", "tool.name": "t", "input.value": json.dumps(args)},
        ),
        _row(
            2, "FinalAnswerTool", {"openinference.span.kind": "TOOL", "tool.name": "final_answer"}
        ),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.name, call.arguments) == ("t", {"city": "Paris"})


def test_haystack_tool_and_llm_step_spans() -> None:
    llm_output = {
        "replies": [
            {"content": [{"tool_call": {"tool_name": "t", "arguments": {"k": 1}, "id": "h1"}}]}
        ]
    }
    rows = [
        _row(
            1, "haystack.agent.step.llm", {"haystack.agent.step.llm.output": json.dumps(llm_output)}
        ),
        _row(
            2,
            "haystack.agent.step.tool",
            {
                "haystack.tool.name": "t",
                "haystack.agent.step.tool.input": '{"k": 1}',
                "haystack.tool.error": True,
                "haystack.agent.step.tool.output": json.dumps(
                    {"error": "Failed to invoke Tool `t` with parameters {'k': 1}. Error: boom"}
                ),
            },
        ),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.name, call.id, call.arguments, call.result, call.error) == (
        "t",
        "h1",
        {"k": 1},
        None,
        "boom",
    )


def test_mlflow_completion_outputs_give_the_ids() -> None:
    completion = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"id": "m1", "function": {"name": "t", "arguments": "{}"}}]
                }
            }
        ]
    }
    rows = [
        _row(
            1,
            "Completions",
            {"mlflow.spanType": '"CHAT_MODEL"', "mlflow.spanOutputs": json.dumps(completion)},
        ),
        _row(2, "t", {"mlflow.spanType": '"TOOL"', "mlflow.spanInputs": "{}"}),
    ]
    assert [c.id for c in extract_tool_calls(rows)] == ["m1"]


def test_nested_tool_spans_of_two_instrumentations_are_one_call() -> None:
    outer = _row(
        1,
        "agent.get_weather",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "get_weather",
            "input.value": '{"city": "Paris"}',
            "output.value": "order not found",
        },
    )
    inner = _row(
        2,
        "execute_tool get_weather",
        {"gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "c1"},
        parent_span_id=outer["span_id"],
        status_code="ERROR",
        status_message="ValueError: order not found",
    )
    [call] = extract_tool_calls([outer, inner])
    assert (call.id, call.arguments, call.result, call.error) == (
        "c1",
        {"city": "Paris"},
        None,
        "order not found",
    )


def test_model_span_naming_its_requested_call_is_not_a_tool_span() -> None:
    model = _model(1, [("c1", "lookup", {"k": 1})])
    model["attributes"] = json.dumps(
        {
            **json.loads(model["attributes"]),
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.id": "c1",
        }
    )
    execution = _row(2, "lookup", {}, status_code="ERROR", status_message="KeyError: k")
    [call] = extract_tool_calls([model, execution])
    assert (call.id, call.name, call.arguments, call.error, call.span_id) == (
        "c1",
        "lookup",
        {"k": 1},
        "k",
        execution["span_id"],
    )


def test_langsmith_tool_span_prompt_completion_and_exception_repr() -> None:
    completion = {"output": {"content": "Sunny", "type": "tool", "tool_call_id": "c1"}}
    events = [
        {
            "name": "exception",
            "attributes": {"exception.message": "ValueError('boom')Traceback (most recent..."},
        }
    ]
    rows = [
        _tool(
            1, {"gen_ai.prompt": '{"city": "Paris"}', "gen_ai.completion": json.dumps(completion)}
        ),
        _tool(2, {"gen_ai.prompt": "{}"}, status_code="ERROR", events=json.dumps(events)),
    ]
    first, second = extract_tool_calls(rows)
    assert (first.arguments, first.result) == ({"city": "Paris"}, "Sunny")
    assert second.error == "boom"


def test_llama_index_tool_call_result_envelope() -> None:
    result = {
        "tool_name": "t",
        "tool_kwargs": {"k": 1},
        "tool_id": "c7",
        "tool_output": {"tool_name": "t", "raw_output": "order not found", "is_error": True},
    }
    row = _tool(1, {"tool.arguments": '{"k": 1}', "traceloop.entity.output": json.dumps(result)})
    [call] = extract_tool_calls([row])
    assert (call.id, call.arguments, call.result, call.error) == (
        "c7",
        {"k": 1},
        None,
        "order not found",
    )


def test_langfuse_observations() -> None:
    generation = {
        "role": "assistant",
        "tool_calls": [{"id": "l1", "function": {"name": "get_weather", "arguments": "{}"}}],
    }
    rows = [
        _row(
            1,
            "OpenAI-generation",
            {
                "langfuse.observation.type": "generation",
                "langfuse.observation.output": json.dumps(generation),
            },
        ),
        _row(
            2,
            "get_weather",
            {
                "langfuse.observation.type": "tool",
                "langfuse.observation.input": '{"args": [], "kwargs": {"city": "Paris"}}',
                "langfuse.observation.output": "Sunny",
            },
        ),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.name, call.id, call.arguments, call.result) == (
        "get_weather",
        "l1",
        {"city": "Paris"},
        "Sunny",
    )


def test_an_answered_request_without_a_span_is_a_call_where_spans_lack_ids() -> None:
    conversation = [
        _model(1, [("c1", "t", {"k": 1})]),
        _tool(2, {"gen_ai.tool.call.arguments": '{"k": 1}', "gen_ai.tool.call.result": "ok"}),
        _model(3, [("c2", "u", {"q": 2})]),
        _responses(4, [("c1", "ok"), ("c2", "Error: nope")], trace=1),
    ]
    calls = extract_tool_calls(conversation, context=conversation)
    assert [(c.id, c.name, c.arguments, c.result) for c in calls] == [
        ("c1", "t", {"k": 1}, "ok"),
        ("c2", "u", {"q": 2}, "Error: nope"),
    ]


def test_responses_item_ids_are_not_call_ids() -> None:
    # OpenLLMetry's openai.response spans, one per instrumentation: the inner one copies the
    # Responses `function_call` item id (fc_...) where the outer one has the call id.
    rows = [
        _model(1, [("call_w1", "t", {"a": 1})]),
        _model(2, [("fc_call_w1", "t", {"a": 1})]),
        _model(3, [("call_w2", "t", {"a": 1})]),
        _model(4, [("fc_call_w2", "t", {"a": 1})]),
        _tool(5, {"gen_ai.tool.call.arguments": '{"a": 1}'}),
        _tool(6, {"gen_ai.tool.call.arguments": '{"a": 1}'}),
    ]
    assert [c.id for c in extract_tool_calls(rows)] == ["call_w1", "call_w2"]
    part = {"type": "tool_call", "id": "fc_9", "call_id": "call_9", "name": "t", "arguments": {}}
    model = _row(1, "chat m", {"gen_ai.output.messages": json.dumps([{"parts": [part]}])})
    assert extract_tool_calls([model, _tool(2, {})])[0].id == "call_9"


def test_generic_langchain_tool_class_takes_the_requested_tools_name() -> None:
    # OpenLLMetry on LangChain.js: every span its own trace; the tool span is named after its
    # class and gets `{"args": ["<json>"]}`; the chain span's output holds the AI message.
    ai = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "messages", "AIMessage"],
        "kwargs": {
            "content": "",
            "tool_calls": [
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"},
                {"name": "lookup_order", "args": {"order_id": "A1"}, "id": "c2"},
            ],
        },
    }
    chain = _row(1, "workflow", {"traceloop.entity.output": json.dumps({"messages": [ai]})})
    tool_message = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "messages", "ToolMessage"],
        "kwargs": {"content": "Sunny", "tool_call_id": "c1", "name": "get_weather"},
    }

    def tool(n: int, args: str, **attrs) -> dict:
        return _row(
            n,
            "execute_tool DynamicStructuredTool",
            {
                "gen_ai.operation.name": "execute_tool",
                "traceloop.entity.name": "DynamicStructuredTool",
                "traceloop.entity.input": json.dumps({"args": [args]}),
                **attrs,
            },
            trace=n,
        )

    rows = [
        chain,
        tool(2, '{"city":"Paris"}', **{"traceloop.entity.output": json.dumps(tool_message)}),
        tool(3, '{"order_id":"A1"}'),
    ]
    calls = extract_tool_calls(rows[1:], context=rows)
    assert [(c.name, c.id, c.arguments) for c in calls] == [
        ("get_weather", "c1", {"city": "Paris"}),
        ("lookup_order", "c2", {"order_id": "A1"}),
    ]


def test_logfire_openai_agents_function_span_and_response_ids() -> None:
    response = {
        "object": "response",
        "output": [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
            }
        ],
    }
    model = _row(
        1, "Responses API with {gen_ai.request.model!r}", {"response": json.dumps(response)}
    )
    function = {
        "logfire.msg_template": "Function: {name}",
        "name": "get_weather",
        "input": '{"city": "Paris"}',
        "output": "Sunny",
    }
    other = {"logfire.msg_template": "Agent run: {name!r}", "name": "agent", "input": "x"}
    rows = [model, _row(2, "Function: {name}", function), _row(3, "Agent run", other)]
    [call] = extract_tool_calls(rows)
    assert (call.name, call.id, call.arguments, call.result) == (
        "get_weather",
        "call_1",
        {"city": "Paris"},
        "Sunny",
    )


def test_llama_index_tool_call_repr_nested_step_spans_are_one_call() -> None:
    summary = "ToolCall(tool_name='lookup_order', tool_kwargs={'order_id': 'A1'}, tool_id='c1')"
    attrs = {"llamaindex.step.input_event": "ToolCall", "llamaindex.step.input_summary": summary}
    step = _row(1, "BaseWorkflowAgent.call_tool", attrs)
    tool = _row(
        2,
        "FunctionTool.acall",
        attrs,
        parent_span_id=step["span_id"],
        status_code="ERROR",
        status_message="order A1 not found",
    )
    truncated = dict(attrs, **{"llamaindex.step.input_summary": summary[:50] + "..."})
    cut = _row(3, "FunctionTool.acall", truncated)
    calls = extract_tool_calls([step, tool, cut])
    assert [(c.name, c.id, c.arguments, c.error) for c in calls] == [
        ("lookup_order", "c1", {"order_id": "A1"}, "order A1 not found"),
        ("lookup_order", "", {}, None),  # a truncated repr: the name, nothing made up
    ]
