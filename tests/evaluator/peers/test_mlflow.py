"""Cases ported from mlflow/mlflow (tests/genai/scorers/test_builtin_scorers.py:
ToolCallCorrectness, ToolCallEfficiency, ConversationalToolCallEfficiency).

Their judges map to ours: ToolCallCorrectness (no expectations) ->
`trajectory_accuracy` (judged against the request), ToolCallEfficiency ->
`tool_call_efficiency`, ConversationalToolCallEfficiency -> the same judge
on each turn rolled up with `aggregate`. Their mocked judge verdict is the
stand-in model's answer; the port checks what our judge is shown and how the
verdict maps. Reading MLflow's own span attributes (`mlflow.spanType` TOOL,
`mlflow.spanInputs` / `mlflow.spanOutputs`) is extraction: those cases
run through `extract_tool_calls` (the conform helper's rules).
"""

from __future__ import annotations

import json

from tracesim.evaluator import extract_tool_calls
from tracesim.evaluator.judges import BUILTIN_JUDGES
from tracesim.evaluator.metrics import aggregate
from tracesim.schemas import ToolCall

from tests.evaluator.peers._common import judge_once, span_row, turn_context


def _weather_ctx(calls, *, question, answer, conversation=False):
    return turn_context(
        user=question,
        agent=answer,
        calls=calls,
        conversation=conversation,
        scenario={"goal": question},
    )


def test_tool_call_efficiency_efficient_trace() -> None:
    calls = [ToolCall(name="get_weather", args={"city": "Paris"}, result="Sunny, 22°C")]
    ctx = _weather_ctx(
        calls,
        question="What is the weather in Paris?",
        answer="The weather in Paris is sunny and 22°C",
    )
    result, body = judge_once(BUILTIN_JUDGES["tool_call_efficiency"], ctx, "efficient")
    assert body["response_format"]["json_schema"]["name"] == "tool_call_efficiency"
    assert 'get_weather({"city":"Paris"}) -> Sunny, 22°C' in body["messages"][1]["content"]
    assert (result.name, result.value, result.passed) == ("tool_call_efficiency", 1.0, True)


def test_tool_call_efficiency_exception_trace() -> None:
    calls = [ToolCall(name="get_weather", args={"city": "InvalidCity123"}, error="City not found")]
    ctx = _weather_ctx(
        calls, question="Get weather for InvalidCity", answer="Sorry, I couldn't find that city"
    )
    result, body = judge_once(BUILTIN_JUDGES["tool_call_efficiency"], ctx, "efficient")
    assert "ERROR: City not found" in body["messages"][1]["content"]
    assert result.name == "tool_call_efficiency" and result.value is not None


def test_tool_call_correctness_correct_call() -> None:
    calls = [
        ToolCall(
            name="get_weather",
            args={"location": "San Francisco", "unit": "celsius"},
            result="15°C, partly cloudy",
        )
    ]
    ctx = _weather_ctx(
        calls,
        question="What is the weather in San Francisco?",
        answer="The weather in San Francisco is 15°C and partly cloudy",
        conversation=True,
    )
    result, body = judge_once(BUILTIN_JUDGES["trajectory_accuracy"], ctx, "accurate")
    assert "(none given: judge against the user's goal)" in body["messages"][1]["content"]
    assert (result.value, result.passed) == (1.0, True)


def test_tool_call_correctness_incorrect_call() -> None:
    calls = [
        ToolCall(
            name="calculator",
            args={"expression": "San Francisco"},
            result="Error: invalid expression",
        )
    ]
    ctx = _weather_ctx(
        calls,
        question="What is the weather in San Francisco?",
        answer="I'm sorry, I couldn't get the weather",
        conversation=True,
    )
    result, body = judge_once(BUILTIN_JUDGES["trajectory_accuracy"], ctx, "inaccurate")
    assert 'calculator({"expression":"San Francisco"})' in body["messages"][1]["content"]
    assert (result.value, result.passed) == (0.0, False)


def test_conversational_tool_call_efficiency_over_a_session() -> None:
    per_turn = []
    for question, stock, price in (
        ("What is the price of AAPL?", "AAPL", "150"),
        ("How about MSFT?", "MSFT", "300"),
    ):
        calls = [ToolCall(name="get_stock_price", args={"symbol": stock}, result=f"${price}")]
        ctx = _weather_ctx(calls, question=question, answer=f"{stock} is ${price}.")
        result, _ = judge_once(BUILTIN_JUDGES["tool_call_efficiency"], ctx, "efficient")
        per_turn.append(result)
    session = aggregate(per_turn)
    assert (session.name, session.value, session.passed) == ("tool_call_efficiency", 1.0, True)


def test_tool_call_efficiency_instructions() -> None:
    rubric = BUILTIN_JUDGES["tool_call_efficiency"].rubric.lower()
    assert "tool" in rubric and ("efficient" in rubric or "redundant" in rubric)


# --- MLflow span attributes (extraction) --------------------------------------------------


def _mlflow_span(name: str, span_type: str, inputs, outputs=None, index: int = 1, **extra):
    attributes = {"mlflow.spanType": json.dumps(span_type), "mlflow.spanInputs": json.dumps(inputs)}
    if outputs is not None:
        attributes["mlflow.spanOutputs"] = json.dumps(outputs)
    row = span_row(attributes, index, name)
    row.update(extra)
    return row


def test_mlflow_tool_span_is_a_call() -> None:
    spans = [
        _mlflow_span("agent", "AGENT", {"question": "What is the weather in Paris?"}, "Sunny", 1),
        _mlflow_span("get_weather", "TOOL", {"city": "Paris"}, "Sunny, 22°C", 2),
    ]
    (call,) = extract_tool_calls(spans)
    assert (call.name, call.arguments, call.result) == (
        "get_weather",
        {"city": "Paris"},
        "Sunny, 22°C",
    )


def test_mlflow_tool_span_exception_is_the_error() -> None:
    span = _mlflow_span(
        "get_weather",
        "TOOL",
        {"city": "InvalidCity123"},
        None,
        1,
        status_code="ERROR",
        status_message="ValueError: City not found",
        events=json.dumps(
            [
                {
                    "name": "exception",
                    "attributes": {
                        "exception.type": "ValueError",
                        "exception.message": "City not found",
                    },
                }
            ]
        ),
    )
    (call,) = extract_tool_calls([span])
    assert call.name == "get_weather" and call.error == "City not found"


def test_mlflow_session_tool_spans() -> None:
    spans = [
        _mlflow_span(
            "turn_0", "UNKNOWN", {"question": "What is the price of AAPL?"}, "AAPL is $150.", 1
        ),
        _mlflow_span("get_stock_price", "TOOL", {"symbol": "AAPL"}, "$150", 2),
    ]
    assert [(c.name, c.arguments) for c in extract_tool_calls(spans)] == [
        ("get_stock_price", {"symbol": "AAPL"})
    ]
