"""Genkit's own telemetry (specific: `conventions.GENKIT`) is read as OTel GenAI: its tool
actions are calls, their ids come from the model action's `toolRequest` refs, its model
actions are model calls with the usage inside `genkit:output`."""

from __future__ import annotations

import json

from tracesim.collector.routing.hot_fields import hot_fields
from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import Unexplained
from tracesim.evaluator.extract.dialogue import turn_dialogue

from tests.evaluator.rule_rows import rule_row

USER = {"role": "user", "content": [{"text": "Weather in Paris?"}]}
ASK = {
    "role": "model",
    "content": [
        {"toolRequest": {"name": "get_weather", "ref": "call_w1", "input": {"city": "Paris"}}}
    ],
}
ANSWER = {
    "role": "tool",
    "content": [{"toolResponse": {"name": "get_weather", "ref": "call_w1", "output": "Sunny"}}],
}


def _model(n: int, messages: list, reply: dict, usage: dict) -> dict:
    return rule_row(
        n,
        "local/scripted",
        {
            "genkit:type": "action",
            "genkit:metadata:subtype": "model",
            "genkit:name": "local/scripted",
            "genkit:input": json.dumps({"messages": messages, "tools": []}),
            "genkit:output": json.dumps({"finishReason": "stop", "message": reply, "usage": usage}),
        },
    )


def _tool(n: int, arguments: dict, output: str | None, **extra) -> dict:
    attributes = {
        "genkit:type": "action",
        "genkit:metadata:subtype": "tool",
        "genkit:name": "get_weather",
        "genkit:input": json.dumps(arguments),
    }
    if output is not None:
        attributes["genkit:output"] = json.dumps(output)
    return rule_row(n, "get_weather", attributes, **extra)


def test_tool_actions_are_calls_with_the_ids_their_model_requested() -> None:
    usage = {"inputTokens": 100, "outputTokens": 20}
    done = {"role": "model", "content": [{"text": "Sunny in Paris."}]}
    rows = [
        _model(1, [USER], ASK, usage),
        _tool(2, {"city": "Paris"}, "Sunny"),
        _model(3, [USER, ASK, ANSWER], done, usage),
    ]
    audit: list[Unexplained] = []
    [call] = extract_tool_calls(rows, audit=audit)
    assert (call.name, call.id, call.arguments, call.result) == (
        "get_weather",
        "call_w1",
        {"city": "Paris"},
        "Sunny",
    )
    assert audit == []  # the request and the answer are the call's


def test_a_failing_tool_action_is_an_error() -> None:
    rows = [
        _model(1, [USER], ASK, {}),
        _tool(2, {"city": "Paris"}, None, status_code="ERROR", status_message="no city"),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.id, call.result, call.error) == ("call_w1", None, "no city")


def test_hot_columns_of_genkit_actions() -> None:
    output = json.dumps({"message": ASK, "usage": {"inputTokens": 100, "outputTokens": 20}})
    model = {"genkit:metadata:subtype": "model", "genkit:name": "m", "genkit:output": output}
    assert hot_fields("m", model) == ("chat", None, "m", 100, 20)
    # redacted reply text: the usage kept as GenAI attributes is read instead
    redacted = {**model, "genkit:output": "[REDACTED]", "gen_ai.usage.input_tokens": 7}
    assert hot_fields("m", redacted) == ("chat", None, "m", 7, None)
    tool = {"genkit:metadata:subtype": "tool", "genkit:name": "get_weather"}
    assert hot_fields("get_weather", tool) == ("execute_tool", "get_weather", None, None, None)
    flow = {"genkit:metadata:subtype": "flow", "genkit:name": "f"}
    assert hot_fields("f", flow) == (None, None, None, None, None)


def test_a_genkit_turn_has_its_question_and_answer() -> None:
    done = {"role": "model", "content": [{"text": "Sunny in Paris."}]}
    rows = [_model(1, [USER], ASK, {}), _model(3, [USER, ASK, ANSWER], done, {})]
    dialogue = turn_dialogue(rows)
    assert (dialogue.user_message, dialogue.agent_message) == (
        "Weather in Paris?",
        "Sunny in Paris.",
    )


def test_a_redacted_genkit_reply_keeps_its_model_call(tmp_path) -> None:
    """`genkit:output` is a model reply: redaction changes it after its usage is kept."""
    from tracesim.collector import Collector

    from tests.collector.otlp import GrpcClient, span, trace_request

    secret = "alice@example.com"
    reply = {"role": "model", "content": [{"text": f"mailed {secret}"}]}
    output = {"message": reply, "usage": {"inputTokens": 3, "outputTokens": 4}}
    attrs = {
        "genkit:metadata:subtype": "model",
        "genkit:name": "local/m",
        "genkit:output": json.dumps(output),
    }
    with Collector(tmp_path / "t.duckdb", grpc_port=0, http_port=None, redaction=["email"]) as c:
        client = GrpcClient(c.grpc_endpoint)
        try:
            client.export(trace_request([span("local/m", attrs=attrs)]))
        finally:
            client.close()
        _, rows = c.query("SELECT operation, model, input_tokens, output_tokens FROM llm_calls")
        assert rows == [["chat", "local/m", 3, 4]]
        _, rows = c.query("SELECT attributes FROM spans")
        assert secret not in rows[0][0]
