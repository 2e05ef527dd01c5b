"""OTel setup of the example agent processes (until `tracesim.instrument()` lands).

Each app gets its own `TracerProvider` (never the global one), so several
example agents can live in one test process with different exporters. The
standalone servers export OTLP to `OTEL_EXPORTER_OTLP_ENDPOINT` (gRPC by
default; `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` for OTLP/HTTP).

Routing modes (SPEC §3), chosen per app:
- `"baggage"`: spans also carry `tracesim.chat_id` / `tracesim.turn_id` copied
  from the incoming baggage (what `instrument()`'s processor does);
- `"traceparent"`: spans only continue the incoming trace, carrying no
  tracesim attribute, so the collector must key them by trace_id.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Literal

from opentelemetry import propagate
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter

__all__ = [
    "RoutingMode",
    "BaggageToAttributes",
    "extract_context",
    "flush_on_shutdown",
    "otlp_exporter_from_env",
    "tracer_provider",
]

RoutingMode = Literal["baggage", "traceparent"]


def BaggageToAttributes() -> SpanProcessor:  # noqa: N802 - a factory standing in for a class
    """The processor copying tracesim baggage onto spans (the simulator's, as `instrument()` uses)."""
    from tracesim.simulator.baggage_processor import BaggageSpanProcessor

    return BaggageSpanProcessor()


def otlp_exporter_from_env() -> SpanExporter | None:
    """An OTLP exporter for `OTEL_EXPORTER_OTLP_ENDPOINT`, or None when it is not set."""
    endpoint = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    if not endpoint:
        return None
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    if protocol.startswith("http"):
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter as HttpExporter,
        )

        return HttpExporter()  # reads the endpoint (appending /v1/traces) from the environment
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
        OTLPSpanExporter as GrpcExporter,
    )

    return GrpcExporter(
        endpoint=endpoint, insecure=endpoint.startswith("http://") or "://" not in endpoint
    )


def tracer_provider(
    service_name: str,
    *,
    exporter: SpanExporter | None = None,
    routing: RoutingMode = "baggage",
    synchronous: bool = False,
) -> TracerProvider:
    """A provider for one agent app.

    `exporter` defaults to `otlp_exporter_from_env()` (no export when unset);
    `synchronous=True` exports each span as it ends (tests), else in batches.
    """
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    if routing == "baggage":
        provider.add_span_processor(BaggageToAttributes())
    exporter = exporter if exporter is not None else otlp_exporter_from_env()
    if exporter is not None:
        processor = SimpleSpanProcessor(exporter) if synchronous else BatchSpanProcessor(exporter)
        provider.add_span_processor(processor)
    return provider


def flush_on_shutdown(
    provider: TracerProvider,
) -> Callable[[Any], AbstractAsyncContextManager[None]]:
    """A Starlette `lifespan` shutting `provider` down (exporting its batched spans) at stop.

    Why not after `uvicorn.run()` returns: on SIGTERM (how `tracesim run` stops
    a server it started) uvicorn shuts down gracefully, runs the lifespan's
    shutdown, then re-raises the signal, so code after `run()` never runs.
    """

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await asyncio.to_thread(provider.shutdown)

    return lifespan


def extract_context(headers: Mapping[str, str]) -> Context:
    """The W3C trace context and baggage of an incoming request."""
    return propagate.extract(carrier=dict(headers))
