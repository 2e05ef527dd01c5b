"""The simulator's own TracerProvider: its turn/conversation/run spans go to the collector.

Never installed as the global provider, so the agent's instrumentation and
the simulator's records stay apart. Export is batched in a background
thread; the queue is sized so a large run never drops a record.
"""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from tracesim.simulator.otlp import make_span_exporter

__all__ = ["SIMULATOR_SERVICE_NAME", "make_simulator_provider"]

SIMULATOR_SERVICE_NAME = "tracesim-simulator"


def make_simulator_provider(
    endpoint: str | None = None,
    *,
    protocol: str | None = None,
    headers: Mapping[str, str] | None = None,
    exporter: SpanExporter | None = None,
) -> TracerProvider:
    """A provider exporting to `endpoint` over OTLP (or to `exporter`, e.g. in-memory).

    Every record is kept: the sampler is ALWAYS_ON whatever `OTEL_TRACES_SAMPLER` says
    (that variable is for the agent's spans), and it skips the parent-based dispatch
    (the simulator's spans are all roots).
    """
    provider = TracerProvider(
        resource=Resource.create({"service.name": SIMULATOR_SERVICE_NAME}), sampler=ALWAYS_ON
    )
    if exporter is None:
        exporter = make_span_exporter(endpoint, protocol=protocol, headers=headers)
    provider.add_span_processor(
        BatchSpanProcessor(
            exporter,
            max_queue_size=200_000,
            max_export_batch_size=2048,
            schedule_delay_millis=200,
        )
    )
    return provider
