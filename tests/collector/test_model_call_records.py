"""Model calls known by what their spans carry (SPEC §5), over spans a real collector stored:
a streamed call's zero-length response record is not a second call, and a CLIENT span that
records a model's response without naming its operation is a call."""

from __future__ import annotations

from tracesim.collector import Collector
from tracesim.collector.routing.hot_fields import hot_fields

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request

T0 = 1_700_000_000_000_000_000
CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
USAGE = {"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}
CLIENT, INTERNAL = 3, 1


def test_a_streamed_calls_response_record_is_not_a_second_call(
    collector: Collector, client: GrpcClient
) -> None:
    """Request span (chat, no usage, no response id) + a zero-length sibling of the same
    operation and model logged when the stream ended (usage, response id): one call with the
    request's latency and the record's usage. A zero-length call beside a request that has
    its own response, and one with no request before it, are calls."""
    trace_id, agent = new_trace_id(), new_span_id()
    ms = 1_000_000
    spans = [
        span("agent", trace_id=trace_id, span_id=agent, start=T0, duration_ns=100 * ms),
        # two streamed calls, each a request span and its response record
        span(
            "Chat Completion",
            trace_id=trace_id,
            parent=agent,
            start=T0,
            duration_ns=19 * ms,
            attrs=CHAT,
        ),
        span(
            "streaming response",
            trace_id=trace_id,
            parent=agent,
            start=T0 + 20 * ms,
            duration_ns=0,
            attrs={**CHAT, **USAGE, "gen_ai.response.id": "r1"},
        ),
        span(
            "Chat Completion",
            trace_id=trace_id,
            parent=agent,
            start=T0 + 30 * ms,
            duration_ns=7 * ms,
            attrs=CHAT,
        ),
        span(
            "streaming response",
            trace_id=trace_id,
            parent=agent,
            start=T0 + 38 * ms,
            duration_ns=0,
            attrs={**CHAT, "gen_ai.usage.input_tokens": 110, "gen_ai.usage.output_tokens": 30},
        ),
    ]
    other = new_trace_id()
    spans += [
        # a request with its own response: the zero-length span after it is its own call
        span("chat", trace_id=other, start=T0, attrs={**CHAT, **USAGE, "gen_ai.response.id": "x"}),
        span("chat", trace_id=other, start=T0 + 9 * ms, duration_ns=0, attrs={**CHAT, **USAGE}),
        # another model's zero-length span completes nothing
        span(
            "chat",
            trace_id=other,
            start=T0 + 20 * ms,
            duration_ns=0,
            attrs={**CHAT, "gen_ai.request.model": "n", **USAGE},
        ),
    ]
    client.export(trace_request(spans))
    _, rows = collector.query(
        "SELECT input_tokens, output_tokens, round(latency_ms) FROM llm_calls "
        f"WHERE trace_id = '{trace_id.hex()}' ORDER BY start_time"
    )
    assert rows == [[100, 20, 19], [110, 30, 7]]
    _, rows = collector.query(f"SELECT count(*) FROM llm_calls WHERE trace_id = '{other.hex()}'")
    assert rows == [[3]]


def test_a_client_span_recording_a_response_is_a_model_call(
    collector: Collector, client: GrpcClient
) -> None:
    """The GenAI conventions' example: a CLIENT span with a model, usage and a response id
    but no `gen_ai.operation.name` is a call; an INTERNAL one (an agent's sum) and a CLIENT
    span without a response id of its own are not."""
    trace_id = new_trace_id()
    response = {"gen_ai.request.model": "m", **USAGE, "gen_ai.response.id": "chatcmpl-1"}
    client.export(
        trace_request(
            [
                span("chat gpt-4", trace_id=trace_id, kind=CLIENT, attrs=response),
                span("agent", trace_id=trace_id, kind=INTERNAL, attrs=response),
                span(
                    "remote",
                    trace_id=trace_id,
                    kind=CLIENT,
                    attrs={"gen_ai.request.model": "m", **USAGE},
                ),
            ]
        )
    )
    _, rows = collector.query("SELECT count(*), sum(input_tokens) FROM llm_calls")
    assert rows == [[1, 100]]
    _, rows = collector.query("SELECT name, operation FROM spans ORDER BY name")
    assert rows == [["agent", None], ["chat gpt-4", "chat"], ["remote", None]]


def test_the_inference_rule_needs_the_span_kind() -> None:
    attrs = {"gen_ai.response.model": "m", "gen_ai.response.id": "r", **USAGE}
    assert hot_fields("chat", attrs, "CLIENT")[0] == "chat"
    assert hot_fields("chat", attrs)[0] is None
    assert hot_fields("chat", {**attrs, "gen_ai.response.id": ""}, "CLIENT")[0] is None
    assert hot_fields("chat", {"gen_ai.response.id": "r", **USAGE}, "CLIENT")[0] is None


def test_a_span_marked_only_by_a_model_start_event_is_a_call(
    collector: Collector, client: GrpcClient
) -> None:
    """LlamaIndex's own OTel integration: no attribute says model call, the span event named
    after the instrumentation event dispatched when the call started does (specific to
    LlamaIndex). Its wrapper span and spans with other events are not calls."""
    from opentelemetry.proto.trace.v1.trace_pb2 import Span

    trace_id, wrapper = new_trace_id(), new_span_id()
    step = {"llamaindex.step.input_event": "AgentSetup"}
    chat = span("OpenAILike.astream_chat", trace_id=trace_id, parent=wrapper, start=T0 + 1,
                attrs=step)  # fmt: skip
    chat.events.append(Span.Event(name="LLMChatStartEvent", time_unix_nano=T0 + 1))
    other = span("BaseWorkflowAgent.call_tool", trace_id=trace_id, start=T0 + 2, attrs=step)
    other.events.append(Span.Event(name="step.output", time_unix_nano=T0 + 2))
    spans = [
        span("OpenAILike.astream_chat", trace_id=trace_id, span_id=wrapper, start=T0),
        chat,
        other,
    ]
    client.export(trace_request(spans))
    assert collector.flush(30)
    _, rows = collector.query(
        "SELECT name, operation FROM spans WHERE operation IS NOT NULL ORDER BY name"
    )
    assert [tuple(r) for r in rows] == [("OpenAILike.astream_chat", "chat")]
    _, rows = collector.query("SELECT count(*) FROM llm_calls")
    assert rows[0][0] == 1
    assert hot_fields("x", {}, None, [("LLMCompletionStartEvent", 0, {})])[0] == "text_completion"
    assert hot_fields("x", {}, None, [("LLMChatEndEvent", 0, {})])[0] is None
