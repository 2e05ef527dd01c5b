"""Recovering missing tool-call ids from the model spans of the same trace (SPEC §5)."""

from __future__ import annotations

import json
from datetime import datetime

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.evaluator import extract_tool_calls

TRACE = "0" * 31 + "1"
OTHER_TRACE = "0" * 31 + "2"


def _row(second: int, name: str, attributes: dict, *, trace_id: str = TRACE) -> dict:
    return {
        "trace_id": trace_id,
        "span_id": f"{second:016x}",
        "name": name,
        "start_time": datetime(2025, 1, 1, 12, 0, second),
        "duration_ms": 1.0,
        "status_code": "OK",
        "attributes": json.dumps(attributes),
        "events": "[]",
    }


def _genai_model_span(second: int, *calls: tuple[str, str, dict], trace_id: str = TRACE) -> dict:
    messages = [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls
            ],
        }
    ]
    return _row(
        second,
        "chat gpt-4o",
        {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(messages)},
        trace_id=trace_id,
    )


def _tool(
    second: int, name: str, args: dict, *, trace_id: str = TRACE, call_id: str | None = None
) -> dict:
    attributes = {"gen_ai.tool.name": name, "gen_ai.tool.call.arguments": json.dumps(args)}
    if call_id:
        attributes["gen_ai.tool.call.id"] = call_id
    return _row(second, f"execute_tool {name}", attributes, trace_id=trace_id)


def test_ids_recovered_from_genai_output_messages_by_name() -> None:
    spans = [
        _genai_model_span(1, ("c1", "search", {"q": "a"}), ("c2", "fetch", {"id": 1})),
        _tool(2, "fetch", {"id": 1}),
        _tool(3, "search", {"q": "a"}),
    ]
    assert [(c.name, c.id) for c in extract_tool_calls(spans)] == [
        ("fetch", "c2"),
        ("search", "c1"),
    ]


def test_same_name_requests_use_arguments_then_order() -> None:
    spans = [
        _genai_model_span(1, ("c1", "search", {"q": "a"}), ("c2", "search", {"q": "b"})),
        _tool(2, "search", {"q": "b"}),
        _tool(3, "search", {"q": "zzz"}),
        _tool(4, "search", {"q": "extra"}),
    ]
    assert [c.id for c in extract_tool_calls(spans)] == ["c2", "c1", ""]


def test_ids_already_on_tool_spans_are_not_handed_out_again() -> None:
    spans = [
        _genai_model_span(1, ("c1", "search", {}), ("c2", "search", {})),
        _tool(2, "search", {}, call_id="c1"),
        _tool(3, "search", {}),
    ]
    assert [c.id for c in extract_tool_calls(spans)] == ["c1", "c2"]


def test_recovery_stays_within_the_trace() -> None:
    spans = [
        _genai_model_span(1, ("c1", "search", {}), trace_id=OTHER_TRACE),
        _tool(2, "search", {}),
    ]
    assert extract_tool_calls(spans)[0].id == ""


def test_requests_consumed_in_model_span_order() -> None:
    spans = [
        _genai_model_span(5, ("late", "search", {})),
        _genai_model_span(1, ("early", "search", {})),
        _tool(6, "search", {}),
        _tool(7, "search", {}),
    ]
    assert [c.id for c in extract_tool_calls(spans)] == ["early", "late"]


def test_openinference_flattened_output_messages() -> None:
    prefix = "llm.output_messages.0.message.tool_calls"
    model = _row(
        1,
        "ChatCompletion",
        {
            "openinference.span.kind": "LLM",
            f"{prefix}.0.tool_call.id": "oi-1",
            f"{prefix}.0.tool_call.function.name": "lookup",
            f"{prefix}.0.tool_call.function.arguments": '{"k": 1}',
            f"{prefix}.1.tool_call.id": "oi-2",
            f"{prefix}.1.tool_call.function.name": "lookup",
            f"{prefix}.1.tool_call.function.arguments": '{"k": 2}',
        },
    )
    tools = [
        _row(
            2,
            "lookup",
            {"openinference.span.kind": "TOOL", "tool.name": "lookup", "input.value": '{"k": 2}'},
        ),
        _row(
            3,
            "lookup",
            {"openinference.span.kind": "TOOL", "tool.name": "lookup", "input.value": '{"k": 1}'},
        ),
    ]
    assert [c.id for c in extract_tool_calls([model, *tools])] == ["oi-2", "oi-1"]


def test_legacy_indexed_completion_attributes() -> None:
    model = _row(
        1,
        "openai.chat",
        {
            "gen_ai.completion.0.tool_calls.0.id": "L1",
            "gen_ai.completion.0.tool_calls.0.name": "get_time",
            "gen_ai.completion.0.tool_calls.0.arguments": "{}",
        },
    )
    tool = _row(
        2, "get_time.tool", {"traceloop.span.kind": "tool", "traceloop.entity.name": "get_time"}
    )
    assert extract_tool_calls([model, tool])[0].id == "L1"


def test_unreadable_model_span_does_not_stop_recovery() -> None:
    bad = _row(1, "chat", {"gen_ai.output.messages": "not json ["})
    good = _genai_model_span(2, ("c9", "t", {}))
    assert extract_tool_calls([bad, good, _tool(3, "t", {})])[0].id == "c9"


def test_recovery_on_real_sdk_spans() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("invoke_agent"):
        with tracer.start_as_current_span(
            "chat",
            attributes={
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [
                                {
                                    "type": "tool_call",
                                    "id": "sdk-1",
                                    "name": "t",
                                    "arguments": '{"a": 1}',
                                }
                            ],
                        }
                    ]
                )
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool t", attributes={"gen_ai.tool.call.arguments": '{"a": 1}'}
        ):
            pass
    provider.shutdown()
    assert extract_tool_calls(exporter.get_finished_spans())[0].id == "sdk-1"
