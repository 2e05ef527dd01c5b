"""`OTelBridgeProcessor`: an OpenAI Agents SDK `TracingProcessor` emitting OTel spans.

Each SDK trace becomes an OTel span started in the OTel context that is
current when the SDK trace starts (inside `execute()`, the `tracesim.turn`
span and its routing baggage), so every bridged span shares the turn's
trace_id and carries the baggage. SDK spans become children of their SDK
parent's OTel span (or of the trace's span), with the SDK's own timing.

A function span carries no tool-call id in the SDK; the bridge recovers it
from the model's preceding `function_call` items (response or generation
span output) of the same trace, matched by tool name and canonical
arguments (then by name alone), each id used once.

Thread-safe: SDK callbacks may come from any thread; state is guarded by a lock.
Bounded: the state of SDK traces and spans that never end (an agent crashed or
was cancelled mid-run) is dropped, oldest first, once it is older than `max_age`
seconds or beyond `max_traces` / `max_spans` entries, so a long-running agent
process does not grow; their OTel spans are then never ended nor exported.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agents.tracing import Span as SDKSpan
from agents.tracing import Trace as SDKTrace
from agents.tracing import TracingProcessor
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer, TracerProvider
from tracesim.schemas.conventions import GENAI
from tracesim.simulator.agents_bridge.attributes import (
    ModelToolCall,
    canonical_arguments,
    end_attributes,
    model_tool_calls,
    span_name,
)

__all__ = ["OTelBridgeProcessor"]

log = logging.getLogger(__name__)

_SCOPE = "tracesim.openai_agents_bridge"


@dataclass
class _TraceState:
    span: trace.Span
    context: Any
    started: float  # the processor's clock
    pending_calls: list[ModelToolCall] = field(default_factory=list)


@dataclass
class _SpanState:
    span: trace.Span
    context: Any
    trace_id: str
    started: float  # the processor's clock


class OTelBridgeProcessor(TracingProcessor):
    """Turns the SDK's traces and spans into OTel spans (GenAI conventions).

    `max_age` (seconds), `max_traces`, `max_spans`: bounds on the state kept for SDK
    traces and spans not ended yet (see the module docstring); `clock` measures age.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        max_age: float = 3600.0,
        max_traces: int = 10_000,
        max_spans: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_traces < 1 or max_spans < 1 or max_age <= 0:
            raise ValueError("max_age, max_traces and max_spans must be positive")
        self._tracer: Tracer = trace.get_tracer(_SCOPE, tracer_provider=tracer_provider)
        self._lock = threading.Lock()
        self._traces: dict[str, _TraceState] = {}  # in start order, oldest first
        self._spans: dict[str, _SpanState] = {}  # in start order, oldest first
        self._max_age = max_age
        self._max_traces = max_traces
        self._max_spans = max_spans
        self._clock = clock

    # -- traces -----------------------------------------------------------
    def on_trace_start(self, sdk_trace: SDKTrace) -> None:
        parent_ctx = otel_context.get_current()
        attributes = {"openai_agents.trace_id": sdk_trace.trace_id}
        group_id = getattr(sdk_trace, "group_id", None)
        if isinstance(group_id, str) and group_id:  # the SDK's conversation grouping
            attributes[GENAI.CONVERSATION_ID] = group_id
        span = self._tracer.start_span(
            sdk_trace.name or "agent workflow", context=parent_ctx, attributes=attributes
        )
        now = self._clock()
        with self._lock:
            self._traces.pop(sdk_trace.trace_id, None)  # a restart goes to the end
            self._traces[sdk_trace.trace_id] = _TraceState(
                span=span, context=trace.set_span_in_context(span, parent_ctx), started=now
            )
            _drop_stale(self._traces, now - self._max_age, self._max_traces, "trace")

    def on_trace_end(self, sdk_trace: SDKTrace) -> None:
        with self._lock:
            state = self._traces.pop(sdk_trace.trace_id, None)
        if state is not None:
            state.span.end()

    # -- spans ------------------------------------------------------------
    def on_span_start(self, sdk_span: SDKSpan[Any]) -> None:
        with self._lock:
            parent = self._spans.get(sdk_span.parent_id or "")
            trace_state = self._traces.get(sdk_span.trace_id)
        if parent is not None:
            parent_ctx = parent.context
        elif trace_state is not None:
            parent_ctx = trace_state.context
        else:  # a span outside a known trace: join whatever is current
            parent_ctx = otel_context.get_current()
        data = sdk_span.span_data
        kind = SpanKind.CLIENT if data.type in ("response", "generation") else SpanKind.INTERNAL
        span = self._tracer.start_span(
            span_name(data), context=parent_ctx, kind=kind, start_time=_ns(sdk_span.started_at)
        )
        now = self._clock()
        with self._lock:
            self._spans.pop(sdk_span.span_id, None)  # a restart goes to the end
            self._spans[sdk_span.span_id] = _SpanState(
                span=span,
                context=trace.set_span_in_context(span, parent_ctx),
                trace_id=sdk_span.trace_id,
                started=now,
            )
            _drop_stale(self._spans, now - self._max_age, self._max_spans, "span")

    def on_span_end(self, sdk_span: SDKSpan[Any]) -> None:
        with self._lock:
            state = self._spans.pop(sdk_span.span_id, None)
        if state is None:
            return
        data = sdk_span.span_data
        span = state.span
        try:
            span.update_name(span_name(data))
            attributes = end_attributes(data)
            if data.type in ("response", "generation"):
                self._remember_calls(state.trace_id, model_tool_calls(data))
            elif data.type == "function":
                call_id = self._take_call_id(state.trace_id, data.name, data.input)
                if call_id:
                    attributes[GENAI.TOOL_CALL_ID] = call_id
            span.set_attributes(attributes)
            error = sdk_span.error
            if error:
                message = str(error.get("message") or "error")
                span.set_status(Status(StatusCode.ERROR, message))
                span.set_attribute("error.type", message.split(":")[0][:100])
        finally:
            span.end(end_time=_ns(sdk_span.ended_at))

    # -- tool-call id recovery -------------------------------------------
    def _remember_calls(self, trace_id: str, calls: list[ModelToolCall]) -> None:
        if not calls:
            return
        with self._lock:
            state = self._traces.get(trace_id)
            if state is not None:
                state.pending_calls.extend(c for c in calls if c[2])

    def _take_call_id(self, trace_id: str, name: str, arguments: Any) -> str:
        canonical = canonical_arguments(arguments) if arguments is not None else None
        with self._lock:
            state = self._traces.get(trace_id)
            if state is None:
                return ""
            pending = state.pending_calls
            for matcher in (
                lambda c: c[0] == name and c[1] == canonical,
                lambda c: c[0] == name,
            ):
                for index, call in enumerate(pending):
                    if matcher(call):
                        del pending[index]
                        return call[2]
        return ""

    # -- lifecycle --------------------------------------------------------
    def shutdown(self) -> None:
        self.force_flush()

    def force_flush(self) -> None:
        """End nothing early; the OTel provider's processors do the exporting."""
        return None


def _drop_stale(
    states: dict[str, _TraceState] | dict[str, _SpanState],
    started_before: float,
    limit: int,
    what: str,
) -> None:
    """Drop the oldest states (first in `states`) started before `started_before` or beyond
    `limit` entries; the caller holds the lock."""
    while states:
        key, state = next(iter(states.items()))
        too_old = state.started < started_before
        if not too_old and len(states) <= limit:
            return
        del states[key]
        log.debug(
            "dropping the state of SDK %s %s, not ended (%s)",
            what,
            key,
            "too old" if too_old else f"more than {limit} open",
        )


def _ns(iso: str | None) -> int | None:
    if not iso:
        return None
    try:
        return int(datetime.fromisoformat(iso).timestamp() * 1_000_000_000)
    except ValueError:
        return None
