"""SPEC §5: the conventions of named frameworks (seen in the conformance corpus), one test each."""

from __future__ import annotations

import json

from tracesim.evaluator import extract_tool_calls

from tests.evaluator.rule_rows import (
    model_row,
    responses_row,
    rule_row,
    tool_row,
)


def test_langchain_tool_call_envelope_gives_arguments_and_id() -> None:
    value = {"name": "t", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}
    [call] = extract_tool_calls([tool_row(1, {"input.value": json.dumps(value)})])
    assert (call.arguments, call.id) == ({"city": "Paris"}, "call_1")


def test_beeai_run_input_envelope_gives_the_arguments() -> None:
    value = {"input": {"city": "Paris"}, "options": None}
    [call] = extract_tool_calls([tool_row(1, {"input.value": json.dumps(value)})])
    assert call.arguments == {"city": "Paris"}
    # a tool whose own arguments happen to be named input and options keeps them
    value = {"input": "Paris", "options": None}
    [call] = extract_tool_calls([tool_row(1, {"input.value": json.dumps(value)})])
    assert call.arguments == value


def test_requests_read_from_adk_responses_and_span_events() -> None:
    adk = {"content": {"parts": [{"function_call": {"id": "a1", "name": "t", "args": {"k": 1}}}]}}
    choice = {
        "message": {"tool_calls": [{"id": "e1", "function": {"name": "u", "arguments": "{}"}}]}
    }
    rows = [
        rule_row(1, "call_llm", {"gcp.vertex.agent.llm_response": json.dumps(adk)}),
        rule_row(
            2,
            "chat",
            {"gen_ai.operation.name": "chat"},
            events=json.dumps([{"name": "gen_ai.choice", "attributes": choice}]),
        ),
        tool_row(3, {"gen_ai.tool.call.arguments": '{"k": 1}'}),
        rule_row(4, "execute_tool u", {"gen_ai.tool.name": "u"}),
    ]
    assert [c.id for c in extract_tool_calls(rows)] == ["a1", "e1"]


def test_mlflow_tool_span() -> None:
    row = rule_row(
        1,
        "get_weather",
        {
            "mlflow.spanType": '"TOOL"',
            "mlflow.spanInputs": '{"city": "Paris"}',
            "mlflow.spanOutputs": '"Sunny"',
        },
    )
    [call] = extract_tool_calls([row, rule_row(2, "chat", {"mlflow.spanType": '"CHAT_MODEL"'})])
    assert (call.name, call.arguments, call.result) == ("get_weather", {"city": "Paris"}, "Sunny")


def test_vercel_ai_sdk_tool_span() -> None:
    row = rule_row(
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
        rule_row(1, "tool get_weather", {"tool.name": "get_weather", "tool.synthesized": True}),
        rule_row(
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


def test_strands_tool_span_events_are_its_input_and_output() -> None:
    events = [
        {"name": "gen_ai.tool.message", "attributes": {"content": '{"city": "Paris"}', "id": "w1"}},
        {"name": "gen_ai.choice", "attributes": {"message": '[{"text": "Sunny"}]', "id": "w1"}},
    ]
    [call] = extract_tool_calls([tool_row(1, {}, events=json.dumps(events))])
    assert (call.id, call.arguments, call.result) == ("w1", {"city": "Paris"}, "Sunny")


def test_smolagents_arguments_envelope_and_final_answer() -> None:
    """The kwargs envelope is read; `final_answer` carries the agent's answer (the root's
    output): the answer, not a call (`extract.answer_tools`)."""
    args = {"args": [], "sanitize_inputs_outputs": True, "kwargs": {"city": "Paris"}}
    answer = {"args": [], "sanitize_inputs_outputs": True, "kwargs": {"answer": "Sunny."}}
    rows = [
        rule_row(
            0,
            "ToolCallingAgent.run",
            {"openinference.span.kind": "AGENT", "output.value": "Sunny."},
        ),
        rule_row(
            1,
            "SimpleTool",
            {"openinference.span.kind": "TOOL", "tool.name": "t", "input.value": json.dumps(args)},
        ),
        rule_row(
            2,
            "FinalAnswerTool",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "final_answer",
                "input.value": json.dumps(answer),
            },
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
        rule_row(
            1, "haystack.agent.step.llm", {"haystack.agent.step.llm.output": json.dumps(llm_output)}
        ),
        rule_row(
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
        rule_row(
            1,
            "Completions",
            {"mlflow.spanType": '"CHAT_MODEL"', "mlflow.spanOutputs": json.dumps(completion)},
        ),
        rule_row(2, "t", {"mlflow.spanType": '"TOOL"', "mlflow.spanInputs": "{}"}),
    ]
    assert [c.id for c in extract_tool_calls(rows)] == ["m1"]


def test_langsmith_tool_span_prompt_completion_and_exception_repr() -> None:
    completion = {"output": {"content": "Sunny", "type": "tool", "tool_call_id": "c1"}}
    events = [
        {
            "name": "exception",
            "attributes": {"exception.message": "ValueError('boom')Traceback (most recent..."},
        }
    ]
    rows = [
        tool_row(
            1, {"gen_ai.prompt": '{"city": "Paris"}', "gen_ai.completion": json.dumps(completion)}
        ),
        tool_row(2, {"gen_ai.prompt": "{}"}, status_code="ERROR", events=json.dumps(events)),
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
    row = tool_row(1, {"tool.arguments": '{"k": 1}', "traceloop.entity.output": json.dumps(result)})
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
        rule_row(
            1,
            "OpenAI-generation",
            {
                "langfuse.observation.type": "generation",
                "langfuse.observation.output": json.dumps(generation),
            },
        ),
        rule_row(
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


def test_a_nested_model_spans_requests_under_other_ids_are_its_parents() -> None:
    # OpenLLMetry on the OpenAI Agents SDK: two openai.response spans per model call, the
    # inner (a child of the outer) copying the Responses `function_call` item id where the
    # outer has the call id: one call each, not keyed on the ids' look.
    rows = [
        model_row(1, [("call_w1", "t", {"a": 1})]),
        {**model_row(2, [("item_w1", "t", {"a": 1})]), "parent_span_id": format(1, "016x")},
        model_row(3, [("call_w2", "t", {"a": 1})]),
        {**model_row(4, [("item_w2", "t", {"a": 1})]), "parent_span_id": format(3, "016x")},
        tool_row(5, {"gen_ai.tool.call.arguments": '{"a": 1}'}),
        tool_row(6, {"gen_ai.tool.call.arguments": '{"a": 1}'}),
    ]
    audit: list = []
    assert [c.id for c in extract_tool_calls(rows, audit=audit)] == ["call_w1", "call_w2"]
    assert audit == []  # the inner span's requests are explained (aliases)
    part = {"type": "tool_call", "id": "fc_9", "call_id": "call_9", "name": "t", "arguments": {}}
    model = rule_row(1, "chat m", {"gen_ai.output.messages": json.dumps([{"parts": [part]}])})
    assert extract_tool_calls([model, tool_row(2, {})])[0].id == "call_9"


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
    chain = rule_row(1, "workflow", {"traceloop.entity.output": json.dumps({"messages": [ai]})})
    tool_message = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "messages", "ToolMessage"],
        "kwargs": {"content": "Sunny", "tool_call_id": "c1", "name": "get_weather"},
    }

    def tool(n: int, args: str, **attrs) -> dict:
        return rule_row(
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
    model = rule_row(
        1, "Responses API with {gen_ai.request.model!r}", {"response": json.dumps(response)}
    )
    function = {
        "logfire.msg_template": "Function: {name}",
        "name": "get_weather",
        "input": '{"city": "Paris"}',
        "output": "Sunny",
    }
    other = {"logfire.msg_template": "Agent run: {name!r}", "name": "agent", "input": "x"}
    rows = [model, rule_row(2, "Function: {name}", function), rule_row(3, "Agent run", other)]
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
    step = rule_row(1, "BaseWorkflowAgent.call_tool", attrs)
    tool = rule_row(
        2,
        "FunctionTool.acall",
        attrs,
        parent_span_id=step["span_id"],
        status_code="ERROR",
        status_message="order A1 not found",
    )
    truncated = dict(attrs, **{"llamaindex.step.input_summary": summary[:50] + "..."})
    cut = rule_row(3, "FunctionTool.acall", truncated)
    calls = extract_tool_calls([step, tool, cut])
    assert [(c.name, c.id, c.arguments, c.error) for c in calls] == [
        ("lookup_order", "c1", {"order_id": "A1"}, "order A1 not found"),
        ("lookup_order", "", {}, None),  # a truncated repr: the name, nothing made up
    ]


def test_a_model_span_naming_its_call_twice_keeps_both_ids() -> None:
    # OpenLIT on the Responses API: the output part carries the item id, the span's own
    # gen_ai.tool.call.id the call_id the answer names; one call, known by both.
    model = model_row(
        1,
        [("item_9", "t", {"a": 1})],
        **{"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "call_9"},
    )
    answer = responses_row(3, [("call_9", "done")], trace=1)
    audit: list = []
    [call] = extract_tool_calls([model, answer], context=[model, answer], audit=audit)
    assert (call.id, call.result) == ("call_9", "done")
    assert audit == []  # neither the part's id nor the answer is left unexplained
    # two requests of that tool: which one the attribute names is unknown, ids untouched
    two = model_row(
        1,
        [("item_1", "t", {"a": 1}), ("item_2", "t", {"a": 2})],
        **{"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "call_1"},
    )
    assert [c.id for c in extract_tool_calls([two], context=[two])] == ["item_1", "item_2"]
