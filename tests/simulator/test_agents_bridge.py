"""The OpenAI Agents SDK bridge: SDK traces become OTel GenAI spans inside the current context."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from agents.tracing import (
    agent_span,
    function_span,
    generation_span,
    get_trace_provider,
    guardrail_span,
    handoff_span,
    set_trace_processors,
    trace,
)
from opentelemetry import context as otel_context
from opentelemetry import trace as otel_trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from tracesim.simulator.agents_bridge import OTelBridgeProcessor


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    sdk_provider = get_trace_provider()
    previous = list(sdk_provider._multi_processor._processors)  # restored below
    set_trace_processors([OTelBridgeProcessor(tracer_provider=provider)])
    try:
        yield provider, exporter
    finally:
        set_trace_processors(previous)


def _by_name(finished: tuple[ReadableSpan, ...]) -> dict[str, list[ReadableSpan]]:
    out: dict[str, list[ReadableSpan]] = {}
    for span in finished:
        out.setdefault(span.name, []).append(span)
    return out


def test_sdk_spans_join_the_current_context_with_genai_attributes(spans) -> None:
    provider, exporter = spans
    turn = provider.get_tracer("test").start_span("tracesim.turn", context=Context())
    token = otel_context.attach(otel_trace.set_span_in_context(turn))
    try:
        model_output = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"b": 2, "a": 1}'},
                    },
                    {
                        "id": "call_10",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"a": 3}'},
                    },
                ],
            }
        ]
        with trace("workflow"):
            with agent_span(name="triage", tools=["lookup"]):
                with generation_span(
                    model="m-1", output=model_output, usage={"input_tokens": 7, "output_tokens": 3}
                ):
                    pass
                with function_span("lookup", input='{"a": 3}') as failing:
                    failing.set_error({"message": "boom: not found", "data": None})
                with function_span("lookup", input='{"a":1,"b":2}', output="found"):
                    pass
                with handoff_span(from_agent="triage", to_agent="billing"):
                    pass
                with guardrail_span("pii", triggered=True):
                    pass
    finally:
        otel_context.detach(token)
        turn.end()
    named = _by_name(exporter.get_finished_spans())
    turn_id = turn.get_span_context().trace_id
    assert {s.context.trace_id for s in exporter.get_finished_spans()} == {turn_id}
    workflow = named["workflow"][0]
    agent = named["invoke_agent triage"][0]
    assert workflow.parent.span_id == turn.get_span_context().span_id
    assert agent.parent.span_id == workflow.context.span_id
    chat = named["chat m-1"][0]
    assert chat.parent.span_id == agent.context.span_id
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 7
    parts = json.loads(chat.attributes["gen_ai.output.messages"])[0]["parts"]
    assert [p["id"] for p in parts] == ["call_9", "call_10"]
    tools = {s.attributes["gen_ai.tool.call.arguments"]: s for s in named["execute_tool lookup"]}
    ok, failed = tools['{"a":1,"b":2}'], tools['{"a": 3}']
    assert ok.attributes["gen_ai.tool.call.id"] == "call_9"  # matched despite key order
    assert ok.attributes["gen_ai.tool.call.result"] == "found"
    assert ok.parent.span_id == agent.context.span_id
    assert failed.attributes["gen_ai.tool.call.id"] == "call_10"
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.status.description == "boom: not found"
    handoff = named["handoff triage -> billing"][0]
    assert handoff.attributes["openai_agents.handoff.to_agent"] == "billing"
    guard = named["guardrail pii"][0]
    assert guard.attributes["openai_agents.guardrail.triggered"] is True


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _bridge(**bounds: Any) -> tuple[OTelBridgeProcessor, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return OTelBridgeProcessor(tracer_provider=provider, **bounds), exporter


def test_traces_never_ended_are_dropped_beyond_max_traces_oldest_first() -> None:
    bridge, exporter = _bridge(max_traces=100)
    sdk_traces = [trace(f"wf-{n}") for n in range(1000)]
    for sdk_trace in sdk_traces:
        bridge.on_trace_start(sdk_trace)  # and never ended
    assert len(bridge._traces) == 100
    bridge.on_trace_end(sdk_traces[0])  # dropped: nothing to end
    bridge.on_trace_end(sdk_traces[-1])  # kept: still ends and exports
    assert [span.name for span in exporter.get_finished_spans()] == ["wf-999"]


def test_traces_and_spans_older_than_max_age_are_dropped() -> None:
    clock = _Clock()
    bridge, exporter = _bridge(max_age=60.0, clock=clock)
    old_trace = trace("old")
    bridge.on_trace_start(old_trace)
    clock.now = 61.0
    new_trace = trace("new")
    bridge.on_trace_start(new_trace)
    assert list(bridge._traces) == [new_trace.trace_id]
    bridge.on_trace_end(old_trace)
    bridge.on_trace_end(new_trace)
    assert [span.name for span in exporter.get_finished_spans()] == ["new"]


def test_spans_never_ended_are_bounded() -> None:
    bridge, exporter = _bridge(max_spans=50)
    sdk_provider = get_trace_provider()
    previous = list(sdk_provider._multi_processor._processors)  # restored below
    set_trace_processors([bridge])
    try:
        with trace("workflow"):
            for n in range(500):
                function_span(name=f"tool_{n}").start()  # and never finished
            with function_span(name="finished", input="{}"):
                pass
    finally:
        set_trace_processors(previous)
    kept = [state.span.name for state in bridge._spans.values()]  # 50 once "finished" began
    assert kept == [f"execute_tool tool_{n}" for n in range(451, 500)]
    assert bridge._traces == {}
    assert sorted(span.name for span in exporter.get_finished_spans()) == [
        "execute_tool finished",
        "workflow",
    ]
