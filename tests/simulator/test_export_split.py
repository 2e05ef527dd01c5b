"""The export splitter's size estimate reads the SDK's attributes directly; same answer."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.simulator.export_split import _attributes_bytes, estimate_bytes
from tracesim.simulator.tracing import make_simulator_provider


def test_the_fast_estimate_equals_the_one_through_the_public_attributes() -> None:
    exporter = InMemorySpanExporter()
    provider = make_simulator_provider(exporter=exporter)
    span = provider.get_tracer("t").start_span(
        "turn", attributes={"text": "é" * 5000, "n": 3, "list": ["a", "bb"]}
    )
    span.add_event("event", {"q": "w" * 10})
    span.end()
    provider.force_flush()
    (finished,) = exporter.get_finished_spans()
    public = 200 + len("turn") + _attributes_bytes(finished.attributes)
    public += sum(40 + len(e.name) + _attributes_bytes(e.attributes) for e in finished.events)
    assert estimate_bytes(finished) == public > 5000
