"""Read trace files of any supported format: the one entry point of `collector.importers`.

A file is gunzipped when it starts with gzip's magic bytes, then recognised by its content
(never by its name): JSON (one document: OTLP/JSON, a Jaeger export, a Tempo export, the
SDK's span JSON), JSON lines (the OpenTelemetry Collector file exporter: one OTLP/JSON
document per line), spans written one after another (the SDK's ConsoleSpanExporter), or
protobuf (one OTLP request, or the file exporter's size-delimited stream). A file is read
whole and checked before anything of it is stored: TraceFileError otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from tracesim.collector.importers.errors import TraceFileError
from tracesim.collector.importers.file_bytes import MAX_FILE_BYTES, read_bounded
from tracesim.collector.importers.jaeger import is_jaeger_document, request_from_jaeger
from tracesim.collector.importers.otlp_json import (
    METRICS_KEYS,
    Request,
    is_otlp_document,
    request_from_document,
)
from tracesim.collector.importers.otlp_proto import requests_from_protobuf
from tracesim.collector.importers.sdk_console import (
    is_sdk_span,
    parse_concatenated,
    request_from_sdk_spans,
    sdk_spans_of,
)
from tracesim.collector.importers.tempo import is_tempo_document, request_from_tempo

__all__ = ["TraceFile", "read_trace_file"]


@dataclass
class TraceFile:
    """What one file holds, ready for the ingest path."""

    path: str
    format: str
    """otlp-json, otlp-jsonl (the file exporter's JSON lines), otlp-protobuf, jaeger, tempo,
    sdk-json (the OpenTelemetry SDK's span JSON, ConsoleSpanExporter's output)."""
    requests: list[Request]
    gzipped: bool = False
    skipped: list[str] = field(default_factory=list)
    """What the file holds that is not imported (metrics), said to the user."""
    size: int = 0
    """Bytes read (gunzipped): what holding this file costs, bounded per import."""


def _document(document: Any, *, path: str, text: str | None, line: int | None) -> Request:
    if is_otlp_document(document):
        return request_from_document(document, path=path, text=text, line=line)
    raise TraceFileError(
        path,
        "not a trace export tracesim knows: expected OTLP/JSON (resourceSpans / resourceLogs),"
        ' a Jaeger export ({"data": [...]}) or a Tempo export ({"batches": [...]})',
        line=line,
    )


def _json_lines(text: str, path: str) -> TraceFile:
    requests: list[Request] = []
    metrics = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            document = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise TraceFileError(
                path, f"not valid JSON ({error.msg}, column {error.colno})", line=number
            ) from None
        if isinstance(document, dict) and any(k in document for k in METRICS_KEYS):
            metrics += 1
            continue
        if is_otlp_document(document):
            requests.append(request_from_document(document, path=path, line=number))
        else:
            requests.append(_document(document, path=path, text=None, line=number))
    skipped = [f"{metrics} metrics line(s) (tracesim stores traces and logs)"] if metrics else []
    return TraceFile(path, "otlp-jsonl", requests, skipped=skipped)


def _json(data: bytes, path: str) -> TraceFile:
    text = data.decode("utf-8", errors="replace")
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        values = parse_concatenated(text)
        if values and all(is_sdk_span(v) for _, v in values):  # ConsoleSpanExporter's output
            request = request_from_sdk_spans(list(values), path=path)
            return TraceFile(path, "sdk-json", [request])
        if text.strip().count("\n") >= 1 and text.lstrip().startswith("{"):
            first_error = error
            try:
                return _json_lines(text, path)
            except TraceFileError as lines_error:
                if lines_error.line is not None and (
                    lines_error.line > 1 or lines_error.field is not None
                ):
                    raise  # JSON lines indeed (its first line read): a bad value in it
                raise TraceFileError(
                    path, f"not valid JSON ({first_error.msg})", line=first_error.lineno
                ) from None
        raise TraceFileError(path, f"not valid JSON ({error.msg})", line=error.lineno) from None
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document = document["result"]  # Jaeger's API v3 wraps OTLP/JSON in "result"
    sdk_spans = sdk_spans_of(document) or ([document] if is_sdk_span(document) else None)
    if sdk_spans is not None:  # the SDK's span JSON: a list, {"spans": [...]}, or one span
        # ids may be written as 128-bit integers, which orjson reads as floats: reparse
        exact = json.loads(text)
        sdk_spans = sdk_spans_of(exact) or [exact]
        request = request_from_sdk_spans([(None, s) for s in sdk_spans], path=path)
        return TraceFile(path, "sdk-json", [request])
    if isinstance(document, dict) and "spans" in document and "processes" in document:
        document = {"data": [document]}  # one Jaeger trace, not wrapped in "data"
    if is_jaeger_document(document):
        return TraceFile(path, "jaeger", [request_from_jaeger(document, path=path, text=text)])
    if is_tempo_document(document):
        return TraceFile(path, "tempo", [request_from_tempo(document, path=path, text=text)])
    if isinstance(document, dict) and any(k in document for k in METRICS_KEYS):
        return TraceFile(path, "otlp-json", [], skipped=["a metrics document"])
    return TraceFile(path, "otlp-json", [_document(document, path=path, text=text, line=None)])


def read_trace_file(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> TraceFile:
    """Read, recognise and convert one file; TraceFileError names the file, line and field.
    At most `limit` bytes are read (gunzipped), from a regular file that does not change
    while it is read (`file_bytes.read_bounded`)."""
    name = str(path)
    data, gzipped = read_bounded(name, limit)
    if not data.strip():
        raise TraceFileError(name, "is empty")
    try:
        if data.lstrip()[:1] in (b"{", b"["):
            found = _json(data, name)
        else:
            found = TraceFile(name, "otlp-protobuf", requests_from_protobuf(data, path=name))
    except RecursionError:
        raise TraceFileError(
            name,
            "nested too deeply to read (a trace export nests a few levels; is this a trace file?)",
        ) from None
    found.gzipped = gzipped
    found.size = len(data)
    return found
