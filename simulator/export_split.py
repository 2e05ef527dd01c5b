"""A span exporter that splits large batches, so no export exceeds the collector's limit.

The SDK's batch processor counts spans, not bytes: a few turns carrying long
texts make one request past the collector's 16 MiB limit, and the whole
request (other conversations' spans too) is refused. `SplittingExporter`
sends consecutive runs of spans whose estimated size stays under
`max_bytes`; a single span larger than that goes alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

__all__ = ["DEFAULT_MAX_EXPORT_BYTES", "SplittingExporter", "estimate_bytes"]

DEFAULT_MAX_EXPORT_BYTES = 6 << 20
"""Estimated bytes per export: well under the collector's default 16 MiB request limit."""


def _value_bytes(value: Any) -> int:
    if isinstance(value, str):
        return len(value) if len(value) < 4096 else len(value.encode("utf-8", "replace"))
    if isinstance(value, (tuple, list)):
        return sum(_value_bytes(item) for item in value) + 4
    return 12


def _attributes_bytes(attributes: Any) -> int:
    if not attributes:
        return 0
    return sum(len(key) + _value_bytes(value) + 8 for key, value in attributes.items())


def _plain(holder: Any) -> Any:
    """The SDK's attribute dict behind `holder` (a span, event or link), read without the
    locked Mapping wrapper (its iteration cost ~30% of exporting the simulator's spans);
    the public `attributes` view when the SDK keeps them otherwise."""
    plain = getattr(getattr(holder, "_attributes", None), "_dict", None)
    return plain if isinstance(plain, dict) else holder.attributes


def estimate_bytes(span: ReadableSpan) -> int:
    """About how many bytes `span` takes in an OTLP request."""
    size = 200 + len(span.name) + _attributes_bytes(_plain(span))
    for event in span.events:
        size += 40 + len(event.name) + _attributes_bytes(_plain(event))
    for link in span.links:
        size += 60 + _attributes_bytes(_plain(link))
    if span.status.description:
        size += len(span.status.description)
    return size


class SplittingExporter(SpanExporter):
    """Wraps `inner`; each `export` becomes as many exports as needed to stay under
    `max_bytes` each. FAILURE when any part failed."""

    def __init__(self, inner: SpanExporter, *, max_bytes: int = DEFAULT_MAX_EXPORT_BYTES) -> None:
        self.inner = inner
        self._max_bytes = max_bytes

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = SpanExportResult.SUCCESS
        part: list[ReadableSpan] = []
        size = 0
        for span in spans:
            span_size = estimate_bytes(span)
            if part and size + span_size > self._max_bytes:
                if self.inner.export(part) != SpanExportResult.SUCCESS:
                    result = SpanExportResult.FAILURE
                part, size = [], 0
            part.append(span)
            size += span_size
        if part and self.inner.export(part) != SpanExportResult.SUCCESS:
            result = SpanExportResult.FAILURE
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.inner.force_flush(timeout_millis)
