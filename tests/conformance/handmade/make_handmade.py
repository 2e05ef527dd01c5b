"""HAND-MADE conformance recordings: the failing shapes described in issue 9, built by hand.

Not evidence of what a framework emits (the real recordings under
`tests/conformance/recordings/` are): these exist so the replay harness and the
extraction rules are tested before and beside them. Same format as a real
recording (see `tests/conformance/README.md`). Re-create with

    .venv/bin/python -m tests.conformance.handmade.make_handmade
"""

from __future__ import annotations

import json
import shutil
import traceback
from pathlib import Path
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span

from tests.collector.otlp import key_values, new_span_id, new_trace_id, span, trace_request

HERE = Path(__file__).resolve().parent
T0 = 1_700_000_000_000_000_000
MS = 1_000_000
WEATHER = "Sunny, 21 C in Paris"
CALLS = [
    ("get_weather", {"city": "Paris"}, "call_w1", WEATHER, None),
    ("get_weather", {"city": "Paris"}, "call_w2", WEATHER, None),
    ("lookup_order", {"order_id": "A1"}, "call_o1", None, "order A1 not found"),
]
NOT_SPECIFIED = "<not specified>"


def _truth(variant: str, framework: str, notes: str, conversation_id: str | None) -> dict:
    return {
        "variant": variant,
        "framework": framework,
        "language": "python",
        "versions": {"hand-made": "shape of issue 9"},
        "recorded_with": "python -m tests.conformance.handmade.make_handmade",
        "hand_made": True,
        "conversation_id": conversation_id,
        "tool_calls": [
            {"name": n, "arguments": a, "result": r, "error": e, "id": i} for n, a, i, r, e in CALLS
        ],
        "model_calls": 4,
        "input_tokens": 460,
        "output_tokens": 80,
        "notes": notes,
    }


def _traceback_text() -> str:
    try:
        raise ValueError("order A1 not found")
    except ValueError:
        return traceback.format_exc()


def _exception_event(pb2_span: PB2Span, when: int) -> None:
    event = pb2_span.events.add()
    event.name = "exception"
    event.time_unix_nano = when
    event.attributes.extend(
        key_values(
            {
                "exception.type": "ValueError",
                "exception.message": "order A1 not found",
                "exception.stacktrace": _traceback_text(),
            }
        )
    )


def _write(variant: str, requests: list[Any], truth: dict) -> None:
    folder = HERE / variant
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "otlp").mkdir(parents=True)
    for number, request in enumerate(requests, 1):
        (folder / "otlp" / f"{number:04d}-traces.pb").write_bytes(request.SerializeToString())
    (folder / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")


def adk_new_schema() -> None:
    """Google ADK, new telemetry schema: only invoke_agent carries gen_ai.conversation.id (sent
    last); tool results wrapped in {"result": ...}; a `<not specified>` id; call_llm and its
    generate_content child both carry the usage."""
    trace_id = new_trace_id()
    agent_id = new_span_id()
    tools, models = [], []
    for step in range(4):
        start = T0 + step * 100 * MS
        llm_id = new_span_id()
        parts: list[dict] = []
        if step < 3:
            name, args, call_id, _, _ = CALLS[step]
            parts = [{"type": "tool_call", "id": call_id, "name": name, "arguments": args}]
        else:
            parts = [{"type": "text", "content": "Done."}]
        usage = {"gen_ai.usage.input_tokens": 100 + 10 * step, "gen_ai.usage.output_tokens": 20}
        models.append(
            span(
                "call_llm",
                trace_id=trace_id,
                span_id=llm_id,
                parent=agent_id,
                start=start,
                duration_ns=40 * MS,
                attrs={
                    "gen_ai.system": "gcp.vertex.agent",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "gcp.vertex.agent.llm_request": "{}",
                    **usage,
                },
            )
        )
        models.append(
            span(
                "generate_content gpt-4o-mini",
                trace_id=trace_id,
                parent=llm_id,
                start=start + MS,
                duration_ns=30 * MS,
                attrs={
                    "gen_ai.operation.name": "generate_content",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
                    **usage,
                },
            )
        )
        if step == 3:
            break
        name, args, call_id, result, error = CALLS[step]
        tool = span(
            f"execute_tool {name}",
            trace_id=trace_id,
            parent=llm_id,
            start=start + 50 * MS,
            duration_ns=5 * MS,
            status=2 if error else 0,
            status_message="ValueError: order A1 not found" if error else "",
            attrs={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.type": "FunctionTool",
                "gen_ai.tool.call.id": NOT_SPECIFIED if error else call_id,
                "gcp.vertex.agent.tool_call_args": json.dumps(args),
                "gcp.vertex.agent.tool_response": json.dumps({"result": result or NOT_SPECIFIED}),
                "gcp.vertex.agent.llm_request": "{}",
                "gcp.vertex.agent.llm_response": "{}",
            },
        )
        if error:
            _exception_event(tool, start + 55 * MS)
        tools.append(tool)
    agent = span(
        "invoke_agent weather_agent",
        trace_id=trace_id,
        span_id=agent_id,
        start=T0 - MS,
        duration_ns=500 * MS,
        attrs={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "weather_agent",
            "gen_ai.conversation.id": "conv-42",
        },
    )
    resource = {"service.name": "adk-agent"}
    requests = [
        trace_request(tools[:2], resource=resource, scope="gcp.vertex.agent"),
        trace_request(tools[2:] + models, resource=resource, scope="gcp.vertex.agent"),
        trace_request([agent], resource=resource, scope="gcp.vertex.agent"),
    ]
    _write(
        "handmade-google-adk-new-schema",
        requests,
        _truth(
            "handmade-google-adk-new-schema",
            "Google ADK (hand-made shape)",
            "HAND-MADE from issue 9: conversation id on the agent span only, sent last; "
            "{'result': x} envelopes; '<not specified>' id; usage on call_llm and generate_content.",
            "conv-42",
        ),
    )


def _tool_message(name: str, call_id: str, content: str) -> str:
    """A LangChain ToolMessage as LangChain serialises it (constructor form)."""
    return json.dumps(
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "messages", "ToolMessage"],
            "kwargs": {
                "content": content,
                "type": "tool",
                "name": name,
                "tool_call_id": call_id,
                "status": "success",
            },
        }
    )


def langgraph_openinference() -> None:
    """LangGraph via OpenInference: session.id on the root chain only; the tool span's input a
    bare string (arguments sit on the LLM span that requested the call); the result a
    serialized ToolMessage; the error status holding the whole traceback."""
    trace_id = new_trace_id()
    root_id = new_span_id()
    spans = []
    for step in range(4):
        start = T0 + step * 100 * MS
        attrs: dict[str, Any] = {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o-mini",
            "llm.token_count.prompt": 100 + 10 * step,
            "llm.token_count.completion": 20,
            "llm.token_count.total": 120 + 10 * step,
        }
        if step < 3:
            name, args, call_id, _, _ = CALLS[step]
            prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
            attrs.update(
                {
                    "llm.output_messages.0.message.role": "assistant",
                    prefix + "id": call_id,
                    prefix + "function.name": name,
                    prefix + "function.arguments": json.dumps(args),
                }
            )
        spans.append(
            span("ChatOpenAI", trace_id=trace_id, parent=root_id, start=start, attrs=attrs)
        )
        if step == 3:
            break
        name, args, call_id, result, error = CALLS[step]
        tool_attrs: dict[str, Any] = {
            "openinference.span.kind": "TOOL",
            "tool.name": name,
            "tool.description": f"{name} tool",
            "input.value": next(iter(args.values())),
        }
        if result is not None:
            tool_attrs["output.value"] = _tool_message(name, call_id, result)
            tool_attrs["output.mime_type"] = "application/json"
        tool = span(
            name,
            trace_id=trace_id,
            parent=root_id,
            start=start + 50 * MS,
            attrs=tool_attrs,
            status=2 if error else 0,
            status_message=_traceback_text() if error else "",
        )
        if error:
            _exception_event(tool, start + 52 * MS)
        spans.append(tool)
    root = span(
        "LangGraph",
        trace_id=trace_id,
        span_id=root_id,
        start=T0 - MS,
        duration_ns=500 * MS,
        attrs={"openinference.span.kind": "CHAIN", "session.id": "conv-42"},
    )
    resource = {"service.name": "langgraph-agent"}
    requests = [
        trace_request(spans, resource=resource, scope="openinference.instrumentation.langchain"),
        trace_request([root], resource=resource, scope="openinference.instrumentation.langchain"),
    ]
    _write(
        "handmade-langgraph-openinference",
        requests,
        _truth(
            "handmade-langgraph-openinference",
            "LangGraph + OpenInference (hand-made shape)",
            "HAND-MADE from issue 9: bare-string tool input, ToolMessage result, traceback in "
            "the status message, session.id on the root span only.",
            "conv-42",
        ),
    )


def openinference_manual_loop() -> None:
    """OpenInference openai with a manual loop and no enclosing span: every model call and
    tool call is its own trace; ids sit on model spans of other traces of the session."""
    spans = []
    for step in range(4):
        start = T0 + step * 100 * MS
        attrs: dict[str, Any] = {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o-mini",
            "llm.token_count.prompt": 100 + 10 * step,
            "llm.token_count.completion": 20,
            "session.id": "conv-42",
        }
        if step < 3:
            name, args, call_id, _, _ = CALLS[step]
            prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
            attrs[prefix + "id"] = call_id
            attrs[prefix + "function.name"] = name
            attrs[prefix + "function.arguments"] = json.dumps(args)
        spans.append(span("ChatCompletion", start=start, attrs=attrs))
        if step == 3:
            break
        name, args, call_id, result, error = CALLS[step]
        tool_attrs: dict[str, Any] = {
            "openinference.span.kind": "TOOL",
            "tool.name": name,
            "input.value": json.dumps(args),
            "input.mime_type": "application/json",
            "session.id": "conv-42",
        }
        if result is not None:
            tool_attrs["output.value"] = result
        tool = span(
            name,
            start=start + 50 * MS,
            attrs=tool_attrs,
            status=2 if error else 0,
            status_message="ValueError: order A1 not found" if error else "",
        )
        if error:
            _exception_event(tool, start + 52 * MS)
        spans.append(tool)
    _write(
        "handmade-openinference-openai-manual-loop",
        [trace_request(spans, resource={"service.name": "manual-loop"})],
        _truth(
            "handmade-openinference-openai-manual-loop",
            "OpenInference openai, manual loop (hand-made shape)",
            "HAND-MADE from issue 9: no enclosing span, so each call is its own trace; the ids "
            "are on model spans of other traces of the same session.",
            "conv-42",
        ),
    )


def main() -> None:
    """Write every hand-made recording."""
    adk_new_schema()
    langgraph_openinference()
    openinference_manual_loop()


if __name__ == "__main__":
    main()
