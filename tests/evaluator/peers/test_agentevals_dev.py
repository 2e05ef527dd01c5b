"""Cases ported from agentevals-dev/agentevals (tests/test_runner.py trajectory match
types and failure details, tests/test_genai_converter.py tool-call extraction).

Their `tool_trajectory_avg_score` is ADK's: EXACT (their default) / IN_ORDER /
ANY_ORDER -> order strict (our default too) / in_order / contains.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from tracesim.evaluator import extract_tool_calls
from tracesim.evaluator.metrics import trajectory
from tracesim.schemas import ToolCall

ORDER = {None: "strict", "EXACT": "strict", "IN_ORDER": "in_order", "ANY_ORDER": "contains"}


@pytest.mark.parametrize(
    ("match_type", "value", "passed"),
    [(None, 0.0, False), ("ANY_ORDER", 1.0, True), ("IN_ORDER", 0.0, False)],
    ids=["exact_default_fails", "any_order_passes", "in_order_fails"],
)
def test_trajectory_match_type(match_type, value, passed) -> None:
    actual = [ToolCall(name="helm_get_release"), ToolCall(name="helm_list_releases")]
    expected = [
        {"name": "helm_list_releases", "args": {}},
        {"name": "helm_get_release", "args": {}},
    ]
    kwargs = {} if match_type is None else {"order": ORDER[match_type]}
    result = trajectory(actual, expected, all_or_nothing=True, **kwargs)
    assert (result.value, result.passed) == (value, passed)


def test_trajectory_failure_details() -> None:
    actual = [
        ToolCall(name="helm_list_releases", args={"all_namespaces": "true", "output": "json"})
    ]
    result = trajectory(actual, [{"name": "helm_list_releases", "args": {}}], all_or_nothing=True)
    assert (result.value, result.passed) == (0.0, False)
    assert result.details["missing"] == ["helm_list_releases({})"]
    assert result.details["extra"] == [
        'helm_list_releases({"all_namespaces":"true","output":"json"})'
    ]


def test_trajectory_pass_against_golden_set() -> None:
    actual = [ToolCall(name="helm_list_releases", args={"all_namespaces": "true"})]
    expected = [{"name": "helm_list_releases", "args": {"all_namespaces": "true"}}]
    assert trajectory(actual, expected).value == 1.0


def _tool_span(attributes: dict, name: str = "tool.get_weather") -> dict:
    return {
        "trace_id": "0" * 31 + "1",
        "span_id": "00000000000000a1",
        "parent_span_id": None,
        "name": name,
        "start_time": datetime(2025, 1, 1, 12, 0, 0),
        "end_time": None,
        "duration_ms": 1.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }


def test_extract_tools_from_tool_spans() -> None:
    span = _tool_span(
        {
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_123",
            "gen_ai.tool.call.arguments": json.dumps({"location": "NYC"}),
            "gen_ai.tool.call.result": json.dumps({"temperature": 72}),
        }
    )
    (call,) = extract_tool_calls([span])
    assert (call.name, call.id, call.arguments) == ("get_weather", "call_123", {"location": "NYC"})
    assert json.loads(call.result) == {"temperature": 72}


def test_extract_tools_missing_name() -> None:
    assert extract_tool_calls([_tool_span({"gen_ai.tool.call.id": "call_123"}, name="tool")]) == []


@pytest.mark.spec_override(
    reason="SPEC §5: arguments that are not an object are not dropped (they give way to the "
    "model span's request when there is one); the text is kept as {'input': text}, not {}"
)
def test_extract_tools_invalid_arguments_json() -> None:
    span = _tool_span(
        {
            "gen_ai.tool.name": "test_tool",
            "gen_ai.tool.call.id": "call_123",
            "gen_ai.tool.call.arguments": "{invalid json}",
        },
        name="tool.test_tool",
    )
    (call,) = extract_tool_calls([span])
    assert call.arguments == {"input": "{invalid json}"}


# --- test_converter.py: Google ADK spans ---------------------------------------------------

_ADK_RESPONSE = json.dumps(
    {
        "content": {
            "parts": [
                {"function_call": {"name": "my_tool", "args": {"arg1": "value1"}, "id": "call_123"}}
            ],
            "role": "model",
        }
    }
)


def test_convert_synthetic_adk_trace() -> None:
    model = _tool_span(
        {"otel.scope.name": "gcp.vertex.agent", "gcp.vertex.agent.llm_response": _ADK_RESPONSE},
        name="call_llm",
    )
    tool = _tool_span(
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "my_tool",
            "gen_ai.tool.call.id": "call_123",
            "gcp.vertex.agent.tool_call_args": json.dumps({"arg1": "value1"}),
            "gcp.vertex.agent.tool_response": json.dumps({"result": "tool output"}),
        },
        name="execute_tool my_tool",
    )
    tool["span_id"] = "00000000000000a2"
    (call,) = extract_tool_calls([model, tool])
    assert (call.name, call.arguments, call.id) == ("my_tool", {"arg1": "value1"}, "call_123")


def test_no_tool_spans_fallback_to_llm_response() -> None:
    response = json.dumps(
        {
            "content": {
                "parts": [{"function_call": {"name": "fn1", "args": {}, "id": "c1"}}],
                "role": "model",
            }
        }
    )
    model = _tool_span({"gcp.vertex.agent.llm_response": response}, name="call_llm")
    # SPEC §5 as updated (conformance corpus: haystack, litellm emit no tool spans): in a
    # conversation without tool spans, the calls the model requested are the calls.
    (call,) = extract_tool_calls([model])
    assert (call.name, call.arguments, call.id) == ("fn1", {}, "c1")
