"""Model calls counted once (SPEC §5): the `llm_calls` view over spans a real collector stored,
and the hot columns of MLflow and Vercel AI SDK spans."""

from __future__ import annotations

from tracesim.collector import Collector
from tracesim.collector.routing.hot_fields import hot_fields

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request

USAGE = {"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}


def test_llm_calls_counts_the_innermost_model_span_only(
    collector: Collector, client: GrpcClient
) -> None:
    trace_id, agent, outer = new_trace_id(), new_span_id(), new_span_id()
    client.export(
        trace_request(
            [
                span(
                    "invoke_agent a",
                    trace_id=trace_id,
                    span_id=agent,
                    attrs={
                        "gen_ai.operation.name": "invoke_agent",
                        "gen_ai.request.model": "m",
                        "gen_ai.usage.input_tokens": 200,
                        "gen_ai.usage.output_tokens": 40,
                    },
                ),
                span(
                    "call_llm",
                    trace_id=trace_id,
                    span_id=outer,
                    parent=agent,
                    attrs={"gen_ai.request.model": "m", **USAGE},
                ),
                span(
                    "generate_content m",
                    trace_id=trace_id,
                    parent=outer,
                    attrs={"gen_ai.operation.name": "generate_content", **USAGE},
                ),
                span(
                    "chat m",
                    trace_id=trace_id,
                    parent=agent,
                    attrs={"gen_ai.operation.name": "chat", **USAGE},
                ),
            ]
        )
    )
    _, rows = collector.query(
        "SELECT count(*), sum(input_tokens), sum(output_tokens) FROM llm_calls"
    )
    assert rows == [[2, 200, 40]]


def test_hot_fields_of_mlflow_and_ai_sdk_spans() -> None:
    assert hot_fields("get_weather", {"mlflow.spanType": '"TOOL"'})[:2] == (
        "execute_tool",
        "get_weather",
    )
    chat = hot_fields(
        "ChatOpenAI",
        {
            "mlflow.spanType": '"CHAT_MODEL"',
            "mlflow.chat.tokenUsage": '{"input_tokens": 7, "output_tokens": 3}',
        },
    )
    assert (chat[0], chat[3], chat[4]) == ("chat", 7, 3)
    assert hot_fields("ai.toolCall", {"ai.toolCall.name": "t"})[:2] == ("execute_tool", "t")
    assert hot_fields("haystack.agent.step.tool", {"haystack.tool.name": "t"})[:2] == (
        "execute_tool",
        "t",
    )
    output = '{"replies": [{"meta": {"model": "m", "usage": {"prompt_tokens": 5, "completion_tokens": 2}}}]}'
    assert hot_fields("haystack.agent.step.llm", {"haystack.agent.step.llm.output": output}) == (
        "chat",
        None,
        "m",
        5,
        2,
    )
    helper = {"openinference.span.kind": "LLM", "llm.model_name": "m", "input.value": "{}"}
    assert hot_fields("OpenAILike._prepare_chat_with_tools", helper) == (None,) * 5


def test_usage_mirrors_and_model_names_alone_are_not_calls(
    collector: Collector, client: GrpcClient
) -> None:
    """A usage-record sibling next to every chat span (model + usage, no operation) and an
    orchestrator stamping `gen_ai.request.model` on every span count nothing (SPEC §5)."""
    trace_id = new_trace_id()
    client.export(
        trace_request(
            [
                span("chat m", trace_id=trace_id, attrs={"gen_ai.operation.name": "chat", **USAGE}),
                span("usage", trace_id=trace_id, attrs={"gen_ai.request.model": "m", **USAGE}),
                span("step", trace_id=trace_id, attrs={"gen_ai.request.model": "m"}),
                span(
                    "execute_tool t",
                    trace_id=trace_id,
                    attrs={"gen_ai.request.model": "m", "gen_ai.tool.name": "t"},
                ),
            ]
        )
    )
    _, rows = collector.query("SELECT count(*), sum(input_tokens) FROM llm_calls")
    assert rows == [[1, 100]]


def test_self_parented_and_cyclic_model_spans_are_counted(
    collector: Collector, client: GrpcClient
) -> None:
    trace_id, lone, a, b = new_trace_id(), new_span_id(), new_span_id(), new_span_id()
    chat = {"gen_ai.operation.name": "chat", **USAGE}
    client.export(
        trace_request(
            [
                span("chat self", trace_id=trace_id, span_id=lone, parent=lone, attrs=chat),
                span("chat a", trace_id=trace_id, span_id=a, parent=b, attrs=chat),
                span("chat b", trace_id=trace_id, span_id=b, parent=a, attrs=chat),
            ]
        )
    )
    _, rows = collector.query("SELECT count(*) FROM llm_calls")
    assert rows == [[3]]


def test_inference_operation_from_the_conventions_own_field() -> None:
    """AI SDK provider-call spans are calls, the outer `ai.generateText` (summed usage) is
    not; OpenLLMetry's `llm.request.type` names the operation."""
    inner = hot_fields(
        "ai.generateText.doGenerate", {"ai.operationId": "ai.generateText.doGenerate"}
    )
    outer = hot_fields("ai.generateText", {"ai.operationId": "ai.generateText", "ai.model.id": "m"})
    stream = hot_fields("ai.streamText.doStream", {"ai.operationId": "ai.streamText.doStream"})
    legacy = hot_fields("openai.chat", {"llm.request.type": "chat", "gen_ai.request.model": "m"})
    assert (inner[0], outer[0], stream[0], legacy[0]) == ("chat", None, "chat", "chat")


def test_one_request_reported_by_two_instrumentations_is_one_call(
    collector: Collector, client: GrpcClient
) -> None:
    """A provider SDK's own span and an instrumentation library's span of the same request
    (same gen_ai.response.id; or, without one, same usage over overlapping times): one call,
    with the usage of the span that started last (the provider's, inside the wrapper)."""
    trace_id, parent = new_trace_id(), new_span_id()
    t0 = 1_700_000_000_000_000_000
    chat = {"gen_ai.operation.name": "chat"}
    wrapper = [
        span(
            "anthropic.chat",
            trace_id=trace_id,
            parent=parent,
            start=t0,
            attrs={
                **chat,
                "gen_ai.response.id": "msg_1",
                "gen_ai.usage.input_tokens": 100,
                "gen_ai.usage.output_tokens": 21,
            },
        ),
        span(
            "messages.stream",
            trace_id=trace_id,
            parent=parent,
            start=t0 + 10_000_000,
            attrs={**chat, **USAGE},
        ),
    ]
    sdk = [
        span(
            "anthropic.messages.create",
            trace_id=trace_id,
            parent=parent,
            start=t0 + 1_000,
            attrs={**chat, "gen_ai.response.id": "msg_1", **USAGE},
        ),
        span(
            "anthropic.messages.create",
            trace_id=trace_id,
            parent=parent,
            start=t0 + 10_001_000,
            attrs={**chat, "gen_ai.response.id": "msg_2", **USAGE},
        ),
        # same scope, same usage, overlapping: a genuine parallel call, counted
        span(
            "anthropic.messages.create",
            trace_id=trace_id,
            parent=parent,
            start=t0 + 10_002_000,
            attrs={**chat, "gen_ai.response.id": "msg_3", **USAGE},
        ),
    ]
    client.export(trace_request(wrapper, scope="instrumentation"))
    client.export(trace_request(sdk, scope="com.anthropic.sdk.python"))
    _, rows = collector.query("SELECT count(*), sum(output_tokens) FROM llm_calls")
    assert rows == [[3, 60]]
