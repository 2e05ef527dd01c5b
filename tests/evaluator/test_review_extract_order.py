"""Review regression: tool calls are ordered by start time (ns precision), then span id."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from tracesim.evaluator import extract_tool_calls


class _FixedIds(IdGenerator):
    """Hands out the given span ids in order (trace ids fixed)."""

    def __init__(self, span_ids: list[int]) -> None:
        self._span_ids = list(span_ids)

    def generate_span_id(self) -> int:
        return self._span_ids.pop(0)

    def generate_trace_id(self) -> int:
        return 1


def test_sdk_spans_order_by_start_time_below_a_microsecond() -> None:
    # ReadableSpan times are nanoseconds: two calls 300 ns apart are still ordered
    # by start time, not by span id.
    exporter = InMemorySpanExporter()
    provider = TracerProvider(id_generator=_FixedIds([0x1, 0x2]))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    base = 1_700_000_000_000_000_000
    late = tracer.start_span("execute_tool late", start_time=base + 400)  # smaller span id
    late.end(end_time=base + 5_000)
    early = tracer.start_span("execute_tool early", start_time=base + 100)
    early.end(end_time=base + 5_000)
    names = [call.name for call in extract_tool_calls(exporter.get_finished_spans())]
    provider.shutdown()
    assert names == ["early", "late"]
