"""extract_tool_calls: SPEC §5 for each convention, on real SDK spans and on stored rows."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode
from tracesim.evaluator import extract_tool_calls
from tracesim.schemas import ToolCallSource


@pytest.fixture()
def tracer_and_exporter():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("test"), exporter
    provider.shutdown()


def _record(tracer_and_exporter, *spans: tuple[str, dict]) -> list[ReadableSpan]:
    """Emit sibling spans under one root, in order; return every finished span."""
    tracer, exporter = tracer_and_exporter
    with tracer.start_as_current_span("agent run"):
        for name, attributes in spans:
            with tracer.start_as_current_span(name, attributes=attributes):
                pass
    return list(exporter.get_finished_spans())


def _row(span_id: str, name: str, attributes: dict, **extra) -> dict:
    row = {
        "trace_id": "0" * 31 + "1",
        "span_id": span_id,
        "parent_span_id": None,
        "name": name,
        "start_time": datetime(2025, 1, 1, 12, 0, int(span_id[-1], 16)),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }
    row.update(extra)
    return row


# --- one test per convention, on real SDK spans ---------------------------------


def test_otel_genai_execute_tool_span(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "execute_tool get_weather",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": '{"city": "Paris"}',
                "gen_ai.tool.call.result": "sunny",
            },
        ),
    )
    [call] = extract_tool_calls(spans)
    tool_span = next(s for s in spans if s.name.startswith("execute_tool"))
    assert call.name == "get_weather"
    assert call.id == "call_1"
    assert call.arguments == {"city": "Paris"}
    assert call.result == "sunny"
    assert call.error is None
    assert call.source is ToolCallSource.TRACING_PROCESSOR
    assert call.span_id == format(tool_span.context.span_id, "016x")
    assert call.start_time is not None and call.start_time.tzinfo is not None
    assert call.duration_ms is not None and call.duration_ms >= 0


def test_openinference_tool_span_never_reads_tool_parameters(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "lookup",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "lookup_order",
                "tool.parameters": '{"type": "object", "properties": {"order_id": {"type": "string"}}}',
                "tool_call.id": "oi-7",
                "input.value": '{"order_id": "A1"}',
                "output.value": '{"status": "shipped"}',
            },
        ),
    )
    [call] = extract_tool_calls(spans)
    assert (call.name, call.id, call.arguments) == ("lookup_order", "oi-7", {"order_id": "A1"})
    assert call.result == '{"status": "shipped"}'


def test_openinference_schema_only_gives_empty_arguments(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "lookup",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "t",
                "tool.id": "tid",
                "tool.parameters": '{"type": "object"}',
            },
        ),
    )
    [call] = extract_tool_calls(spans)
    assert call.arguments == {}
    assert call.id == "tid"


def test_openllmetry_tool_span_reads_kwargs_and_unwraps_output(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "get_weather.tool",
            {
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "get_weather",
                "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"city": "Oslo"}}),
                "traceloop.entity.output": json.dumps("rainy"),
            },
        ),
        (
            "search.tool",
            {
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "search",
                "traceloop.entity.input": json.dumps({"args": ["q"], "kwargs": {"k": 3}}),
                "traceloop.entity.output": json.dumps({"output": ["a", "b"], "kwargs": {}}),
            },
        ),
        ("plan.task", {"traceloop.span.kind": "task", "traceloop.entity.name": "plan"}),
    )
    weather, search = extract_tool_calls(spans)
    assert (weather.name, weather.arguments, weather.result, weather.id) == (
        "get_weather",
        {"city": "Oslo"},
        "rainy",
        "",
    )
    assert search.arguments == {"k": 3, "args": ["q"]}
    assert json.loads(search.result) == ["a", "b"]


def test_openllmetry_dict_output_stays_json_text(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "t.tool",
            {
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "t",
                "traceloop.entity.output": '{"temp": 21}',
            },
        ),
    )
    assert extract_tool_calls(spans)[0].result == '{"temp": 21}'


def test_logfire_older_running_tool_span(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "running tool",
            {
                "gen_ai.tool.name": "roll_dice",
                "gen_ai.tool.call.id": "pyd_1",
                "tool_arguments": '{"sides": 6}',
                "tool_response": "4",
                "logfire.msg": "running tool: roll_dice",
            },
        ),
    )
    [call] = extract_tool_calls(spans)
    assert (call.name, call.id, call.arguments, call.result) == (
        "roll_dice",
        "pyd_1",
        {"sides": 6},
        "4",
    )


def test_logfire_newer_genai_names(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "execute_tool roll_dice",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "roll_dice",
                "gen_ai.tool.call.arguments": '{"sides": 20}',
                "gen_ai.tool.call.result": "17",
            },
        ),
    )
    assert extract_tool_calls(spans)[0].arguments == {"sides": 20}


def test_google_adk_span(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "execute_tool get_capital",
            {
                "gen_ai.system": "gcp.vertex.agent",
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_capital",
                "gen_ai.tool.call.id": "adk-123",
                "gcp.vertex.agent.tool_call_args": '{"country": "France"}',
                "gcp.vertex.agent.tool_response": '{"result": "Paris"}',
            },
        ),
    )
    [call] = extract_tool_calls(spans)
    assert (call.name, call.id, call.arguments, call.result) == (
        "get_capital",
        "adk-123",
        {"country": "France"},
        "Paris",  # ADK's {"result": x} envelope unwrapped (SPEC §5)
    )


def test_openai_agents_bridge_span_named_execute_tool(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        ("execute_tool refund", {"gen_ai.tool.call.arguments": "{'order': 'A1', 'full': True}"}),
    )
    [call] = extract_tool_calls(spans)
    assert call.name == "refund"
    assert call.arguments == {"order": "A1", "full": True}  # Python literal accepted


def test_uipath_style_openinference_literal_input(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        (
            "update_user",
            {
                "tool.name": "update_user",
                "input.value": "{'user_id': 123, 'fields': {'email': 'user@example.com'}, 'notify': True}",
            },
        ),
    )
    assert extract_tool_calls(spans)[0].arguments == {
        "user_id": 123,
        "fields": {"email": "user@example.com"},
        "notify": True,
    }


# --- field rules ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"a": 1}, {"a": 1}),
        ('{"a": 1}', {"a": 1}),
        ("{'a': (1, 2)}", {"a": [1, 2]}),
        ("[1, 2]", {"input": [1, 2]}),
        ("plain text", {"input": "plain text"}),
        ('"quoted"', {"input": "quoted"}),
        ("", {}),
        ("null", {}),
    ],
)
def test_argument_parsing(raw, expected) -> None:
    row = _row("00000000000000a1", "execute_tool t", {"gen_ai.tool.call.arguments": raw})
    assert extract_tool_calls([row])[0].arguments == expected


def test_argument_precedence_genai_over_openinference() -> None:
    attributes = {
        "gen_ai.tool.name": "t",
        "gen_ai.tool.call.arguments": '{"from": "genai"}',
        "input.value": '{"from": "oi"}',
    }
    assert extract_tool_calls([_row("00000000000000a1", "x", attributes)])[0].arguments == {
        "from": "genai"
    }


def test_name_precedence() -> None:
    attributes = {"gen_ai.tool.name": "a", "tool.name": "b", "traceloop.entity.name": "c"}
    assert (
        extract_tool_calls([_row("00000000000000a1", "execute_tool d", attributes)])[0].name == "a"
    )
    attributes = {"tool.name": "b", "traceloop.entity.name": "c", "traceloop.span.kind": "tool"}
    assert (
        extract_tool_calls([_row("00000000000000a1", "execute_tool d", attributes)])[0].name == "b"
    )
    assert extract_tool_calls([_row("00000000000000a1", "execute_tool d", {})])[0].name == "d"


def test_id_precedence_and_span_id_is_not_a_call_id() -> None:
    attributes = {"gen_ai.tool.name": "t", "tool_call.id": "b", "tool.id": "c"}
    assert extract_tool_calls([_row("00000000000000a1", "x", attributes)])[0].id == "b"
    attributes = {"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "a", "tool_call.id": "b"}
    assert extract_tool_calls([_row("00000000000000a1", "x", attributes)])[0].id == "a"
    [call] = extract_tool_calls([_row("00000000000000A1", "x", {"gen_ai.tool.name": "t"})])
    assert call.id == ""
    assert call.span_id == "00000000000000a1"


def test_non_string_results_are_json_encoded() -> None:
    row = _row("00000000000000a1", "x", {"gen_ai.tool.name": "t", "gen_ai.tool.call.result": 42})
    assert extract_tool_calls([row])[0].result == "42"
    row = _row("00000000000000a1", "x", {"gen_ai.tool.name": "t", "output.value": ["x", 1]})
    assert json.loads(extract_tool_calls([row])[0].result) == ["x", 1]


def test_error_from_status_then_event_then_error_type(tracer_and_exporter) -> None:
    tracer, exporter = tracer_and_exporter
    with tracer.start_as_current_span("execute_tool a") as span:
        span.set_status(Status(StatusCode.ERROR, "boom"))
    with tracer.start_as_current_span("execute_tool b") as span:
        span.set_attribute("error.type", "TimeoutError")
        span.set_status(Status(StatusCode.ERROR))
    with tracer.start_as_current_span("execute_tool c") as span:
        span.add_event(
            "exception", {"exception.message": "bad input", "exception.type": "ValueError"}
        )
    with tracer.start_as_current_span("execute_tool d") as span:
        span.set_attribute("error.type", "HTTP 500")
    with tracer.start_as_current_span("execute_tool e") as span:
        span.set_status(Status(StatusCode.ERROR))
    with tracer.start_as_current_span("execute_tool f"):
        pass
    errors = {c.name: c.error for c in extract_tool_calls(exporter.get_finished_spans())}
    assert errors == {
        "a": "boom",
        "b": "TimeoutError",
        "c": "bad input",
        "d": "HTTP 500",
        "e": "error",
        "f": None,
    }


def test_exception_recorded_by_sdk(tracer_and_exporter) -> None:
    tracer, exporter = tracer_and_exporter
    with pytest.raises(RuntimeError), tracer.start_as_current_span("execute_tool x"):
        raise RuntimeError("tool exploded")
    [call] = extract_tool_calls(exporter.get_finished_spans())
    assert "tool exploded" in call.error


def test_row_error_from_events_json() -> None:
    events = json.dumps(
        [{"name": "exception", "time": None, "attributes": {"exception.message": "nope"}}]
    )
    row = _row("00000000000000a1", "execute_tool t", {}, events=events)
    assert extract_tool_calls([row])[0].error == "nope"
    row = _row("00000000000000a1", "execute_tool t", {}, status_code="ERROR", status_message="bad")
    assert extract_tool_calls([row])[0].error == "bad"


def test_rows_accept_decoded_attributes_and_events() -> None:
    row = _row("00000000000000a1", "execute_tool t", {})
    row["attributes"] = {"gen_ai.tool.call.arguments": {"a": 1}}
    row["events"] = []
    assert extract_tool_calls([row])[0].arguments == {"a": 1}


def test_ordering_by_start_time_then_span_id() -> None:
    same = datetime(2025, 1, 1, tzinfo=timezone.utc)
    rows = [
        _row("0000000000000003", "execute_tool late", {}),
        _row("00000000000000b2", "execute_tool tie_b", {}, start_time=same),
        _row("00000000000000a2", "execute_tool tie_a", {}, start_time=same),
        _row("0000000000000004", "execute_tool unknown_time", {}, start_time=None),
    ]
    assert [c.name for c in extract_tool_calls(rows)] == ["tie_a", "tie_b", "late", "unknown_time"]


def test_non_tool_spans_are_ignored(tracer_and_exporter) -> None:
    spans = _record(
        tracer_and_exporter,
        ("chat gpt-4o", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}),
        ("retrieve", {"openinference.span.kind": "RETRIEVER"}),
        ("workflow", {"traceloop.span.kind": "workflow"}),
    )
    assert extract_tool_calls(spans) == []


def test_a_bad_span_is_skipped_with_a_warning(caplog) -> None:
    good = _row("00000000000000a1", "execute_tool ok", {})
    broken = _row("00000000000000a2", "execute_tool broken", {})
    broken["attributes"] = '{"gen_ai.tool.name": '  # truncated JSON
    # a TOOL span names its tool by its span name when nothing else does; with no name at
    # all it cannot be a call
    nameless = _row("00000000000000a3", "", {"openinference.span.kind": "TOOL"})
    with caplog.at_level(logging.WARNING):
        calls = extract_tool_calls([good, broken, 42, nameless])
    assert [c.name for c in calls] == ["ok"]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 3


def test_status_code_variants_and_duration_from_end_time() -> None:
    row = _row(
        "00000000000000a1",
        "execute_tool t",
        {},
        status_code="STATUS_CODE_ERROR",
        duration_ms=None,
        start_time="2025-01-01T00:00:00Z",
        end_time="2025-01-01T00:00:00.250000Z",
    )
    [call] = extract_tool_calls([row])
    assert call.error == "error"
    assert call.duration_ms == pytest.approx(250.0)
    assert call.start_time == datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_adk_merged_parallel_calls_span_is_not_a_call() -> None:
    merged = _row(
        "00000000000000a1",
        "execute_tool (merged)",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "(merged tools)",
            "gcp.vertex.agent.tool_call_args": "N/A",
        },
    )
    single = _row(
        "00000000000000a2", "execute_tool get_capital", {"gen_ai.tool.name": "get_capital"}
    )
    assert [c.name for c in extract_tool_calls([merged, single])] == ["get_capital"]
