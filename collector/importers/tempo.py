"""Grafana Tempo trace exports -> OTLP trace requests.

Tempo's `/api/traces/<id>` (and Grafana's trace download) answer `{"batches": [...]}`:
resourceSpans under another name, written by protobuf's JSON mapping (base64 ids, and
in older versions `instrumentationLibrarySpans` / `instrumentationLibrary`). The v2 API
answers `{"trace": {"resourceSpans": [...]}}`. Both become an OTLP/JSON document and take
the OTLP/JSON path.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.importers.errors import TraceFileError
from tracesim.collector.importers.otlp_json import request_from_document

__all__ = ["is_tempo_document", "request_from_tempo"]

_OLD_NAMES = {
    "instrumentationLibrarySpans": "scopeSpans",
    "instrumentation_library_spans": "scopeSpans",
}


def is_tempo_document(document: Any) -> bool:
    """True for `{"batches": [...]}` or `{"trace": {"resourceSpans"|"batches": [...]}}`."""
    if not isinstance(document, dict):
        return False
    if isinstance(document.get("batches"), list):
        return True
    trace = document.get("trace")
    return isinstance(trace, dict) and any(k in trace for k in ("resourceSpans", "batches"))


def _batches(document: dict[str, Any]) -> Any:
    if "batches" in document:
        return document["batches"]
    trace = document["trace"]
    return trace.get("resourceSpans", trace.get("batches"))


def request_from_tempo(
    document: dict[str, Any], *, path: str, text: str | None = None
) -> ExportTraceServiceRequest:
    """The request of a Tempo export; TraceFileError names a bad field."""
    batches = _batches(document)
    if not isinstance(batches, list):
        raise TraceFileError(path, "must be a list of resource spans", field="batches")
    resource_spans = []
    for n, batch in enumerate(batches):
        if not isinstance(batch, dict):
            raise TraceFileError(path, "must be a JSON object", field=f"batches[{n}]")
        batch = dict(batch)
        for old, new in _OLD_NAMES.items():
            if old in batch:
                scopes = []
                for scope in batch.pop(old) or []:
                    scope = dict(scope)
                    if "instrumentationLibrary" in scope:
                        scope["scope"] = scope.pop("instrumentationLibrary")
                    scopes.append(scope)
                batch[new] = scopes
        resource_spans.append(batch)
    try:
        request = request_from_document({"resourceSpans": resource_spans}, path=path, text=text)
    except TraceFileError as error:  # name the field as the file spells it
        if error.field and "batches" in document:
            raise TraceFileError(
                path,
                error.reason,
                line=error.line,
                field=error.field.replace("resourceSpans", "batches", 1),
            ) from None
        raise
    assert isinstance(request, ExportTraceServiceRequest)
    return request
