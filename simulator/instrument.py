"""`instrument()`: one call that makes an agent process send its spans to tracesim.

It sets up (or reuses) the global TracerProvider, exports over OTLP to the
collector, copies the routing baggage (`tracesim.chat_id`, `tracesim.turn_id`)
onto every span, and, when `openai-agents` is installed, bridges the SDK's
tracing into OTel GenAI spans. Calling it again is harmless: nothing is added
twice; a different endpoint given explicitly replaces the exporter (the old one is
shut down in the background), so one process can serve several runs. Called again
without an endpoint (an agent module imported during a run), it keeps the target
`retarget` set: the run's collector, with its token.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from tracesim.simulator.baggage_processor import BaggageSpanProcessor
from tracesim.simulator.otlp import DEFAULT_ENDPOINT, make_span_exporter, resolve_protocol

__all__ = ["failed_exports", "flush", "instrument", "retarget"]

_LOCK = threading.Lock()


class _Counting(SpanExporter):
    """An exporter counting the spans it could not deliver (refused, collector gone)."""

    failed = 0
    """Spans not delivered, by every `_Counting` of this process (read by `flush`)."""

    def __init__(self, inner: SpanExporter) -> None:
        self._inner = inner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self._inner.export(spans)
        except Exception:
            result = SpanExportResult.FAILURE
        if result is not SpanExportResult.SUCCESS:
            with _LOCK:
                _Counting.failed += len(spans)
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


class _SwitchableExport(SpanProcessor):
    """A BatchSpanProcessor whose target can be replaced (one per provider).

    A span is handed to the processor of the target current when it ends, under a lock a
    switch takes too: no span is ever handed to a processor whose shutdown has begun
    (the SDK drops those: "Shutdown called, ignoring span"). A replaced processor is
    shut down after the switch, in the background: what it holds goes to its own target.
    """

    def __init__(self) -> None:
        self.target: tuple[str, str, tuple[tuple[str, str], ...]] | None = None
        self._inner: BatchSpanProcessor | None = None
        self._lock = threading.Lock()

    def switch(self, endpoint: str, protocol: str, headers: Mapping[str, str]) -> None:
        target = (endpoint, protocol, tuple(sorted(headers.items())))
        if target == self.target:
            return
        exporter = _Counting(make_span_exporter(endpoint, protocol=protocol, headers=headers))
        new = BatchSpanProcessor(exporter, schedule_delay_millis=200)
        with self._lock:
            old, self._inner = self._inner, new
            self.target = target
        if old is not None:  # may point at a collector that is gone: never block on it
            threading.Thread(target=old.shutdown, daemon=True).start()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        inner = self._inner
        if inner is not None:
            inner.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        with self._lock:
            inner = self._inner
            if inner is not None:
                inner.on_end(span)

    def shutdown(self) -> None:
        with self._lock:
            inner, self._inner = self._inner, None
        if inner is not None:
            inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        inner = self._inner
        return inner.force_flush(timeout_millis) if inner is not None else True


_EXPORTS: dict[int, _SwitchableExport] = {}
_BRIDGE: object | None = None


def instrument(
    endpoint: str | None = None,
    *,
    protocol: str | None = None,
    service_name: str | None = None,
    headers: Mapping[str, str] | None = None,
    openai_agents: bool = True,
    keep_openai_upload: bool | None = None,
) -> TracerProvider:
    """Send this process's spans to the tracesim collector; return the TracerProvider.

    endpoint: collector address; default `$OTEL_EXPORTER_OTLP_ENDPOINT`, else
        127.0.0.1:4317. `host:port` = OTLP/gRPC; `http(s)://host:4318` = OTLP/HTTP.
    protocol: `grpc` or `http/protobuf`, to override the guess from the endpoint.
    service_name: `service.name` of a provider created here (default
        `$OTEL_SERVICE_NAME` or `agent`); an existing global provider is reused.
    headers: extra export headers (e.g. `{"authorization": "Bearer ..."}`).
    openai_agents: bridge the OpenAI Agents SDK's tracing when it is installed.
    keep_openai_upload: keep the SDK's default upload to OpenAI's trace
        backend; default only when `OPENAI_API_KEY` is set (offline, no
        network call is attempted).
    """
    explicit = endpoint is not None or headers is not None or protocol is not None
    endpoint = (
        endpoint
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or DEFAULT_ENDPOINT
    )
    kind = resolve_protocol(endpoint, protocol)
    with _LOCK:
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            name = service_name or os.environ.get("OTEL_SERVICE_NAME") or "agent"
            provider = TracerProvider(resource=Resource.create({"service.name": name}))
            trace.set_tracer_provider(provider)
            provider = trace.get_tracer_provider()
            if not isinstance(provider, TracerProvider):  # pragma: no cover - set once per process
                raise RuntimeError("could not install the global TracerProvider")
        export = _EXPORTS.get(id(provider))
        if export is None:
            export = _SwitchableExport()
            provider.add_span_processor(BaggageSpanProcessor())
            provider.add_span_processor(export)
            _EXPORTS[id(provider)] = export
        if explicit or export.target is None:
            export.switch(endpoint, kind, dict(headers or {}))
        if openai_agents:
            _install_bridge(keep_openai_upload)
    return provider


def flush(timeout_millis: int = 30000) -> None:
    """Export what `instrument()`'s processors hold now (see `failed_exports` for what
    could not be delivered)."""
    with _LOCK:
        exports = list(_EXPORTS.values())
    for export in exports:
        export.force_flush(timeout_millis)


def failed_exports() -> int:
    """Spans `instrument()`'s exporters could not deliver in this process so far (refused
    by the collector, or it is gone): compare before and after a run."""
    with _LOCK:
        return _Counting.failed


def retarget(
    endpoint: str, *, protocol: str | None = None, headers: Mapping[str, str] | None = None
) -> bool:
    """Point every exporter `instrument()` set up in this process at `endpoint`.

    Used by `tracesim run` for in-process agents: the agent module is
    imported once per process, but each run may start a collector on a new
    port. Returns False (and does nothing) when `instrument()` was never called.
    """
    kind = resolve_protocol(endpoint, protocol)
    with _LOCK:
        for export in _EXPORTS.values():
            export.switch(endpoint, kind, dict(headers or {}))
        return bool(_EXPORTS)


def _install_bridge(keep_openai_upload: bool | None) -> None:
    global _BRIDGE
    if _BRIDGE is not None:
        return
    try:
        import agents
        from tracesim.simulator.agents_bridge import OTelBridgeProcessor
    except ImportError:
        return
    bridge = OTelBridgeProcessor()
    if keep_openai_upload is None:
        keep_openai_upload = bool(os.environ.get("OPENAI_API_KEY"))
    if keep_openai_upload:
        agents.add_trace_processor(bridge)
    else:
        agents.set_trace_processors([bridge])
    _BRIDGE = bridge
