"""The OTel Collector ClickHouse exporter, reduced to what tests need: its table DDL and
its OTLP -> row mapping, written once from the exporter's source
(opentelemetry-collector-contrib, exporter/clickhouseexporter: internal/sqltemplates
traces_table.sql / traces_json_table.sql / logs_table.sql, exporter_traces.go,
exporter_traces_json.go), so tests fill ClickHouse as the stock collector would.

Variants (`LAYOUTS`):
- `map`: the default schema: attributes `Map(LowCardinality(String), String)` of
  `pcommon.Value.AsString()` texts, `SPAN_KIND_*` / `STATUS_CODE_*`, ScopeName
  and ScopeVersion columns;
- `map_noscope`: older exporters: no Scope columns, the scope name and version
  added to the span attributes as `otel.scope.name` / `otel.scope.version`;
- `json`: `json: true`: attributes as the JSON type from `AsRaw()`, kinds and
  codes as pdata's `String()` (`Internal`, `Ok`, ...).
Events and Links are Nested columns in every variant; Timestamp is the span
start, Duration end - start in ns.
"""

from __future__ import annotations

import base64
import math
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

__all__ = [
    "LAYOUTS",
    "as_raw",
    "as_string",
    "create_tables",
    "insert_logs",
    "insert_spans",
    "request_from_duckdb",
    "span_rows",
    "traces_ddl",
]

LAYOUTS = ("map", "map_noscope", "json")
_KINDS = ("UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
_KINDS_PDATA = ("Unspecified", "Internal", "Server", "Client", "Producer", "Consumer")
_CODES = ("UNSET", "OK", "ERROR")
_CODES_PDATA = ("Unset", "Ok", "Error")
_MAP = "Map(LowCardinality(String), String)"


def traces_ddl(database: str, table: str, layout: str) -> str:
    """`CREATE TABLE` for the traces table as the exporter creates it (MergeTree, no TTL)."""
    attrs = "JSON" if layout == "json" else _MAP
    scope = (
        ""
        if layout == "map_noscope"
        else "ScopeName String CODEC(ZSTD(1)),\n    ScopeVersion String CODEC(ZSTD(1)),\n"
    )
    indexes = (
        "INDEX idx_duration Duration TYPE minmax GRANULARITY 1"
        if layout == "json"
        else """INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1,
    INDEX idx_lower_span_name lower(SpanName) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 8"""
    )
    return f"""CREATE TABLE IF NOT EXISTS "{database}"."{table}" (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes {attrs} CODEC(ZSTD(1)),
    {scope}SpanAttributes {attrs} CODEC(ZSTD(1)),
    Duration UInt64 CODEC(T64, ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes {attrs}
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes {attrs}
    ) CODEC(ZSTD(1)),
    {indexes}
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1"""


LOGS_DDL = f"""CREATE TABLE IF NOT EXISTS "{{database}}"."{{table}}" (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TimestampTime DateTime DEFAULT toDateTime(Timestamp),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    TraceFlags UInt8,
    SeverityText LowCardinality(String) CODEC(ZSTD(1)),
    SeverityNumber UInt8,
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    Body String CODEC(ZSTD(1)),
    ResourceSchemaUrl LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes {_MAP} CODEC(ZSTD(1)),
    ScopeSchemaUrl LowCardinality(String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion LowCardinality(String) CODEC(ZSTD(1)),
    ScopeAttributes {_MAP} CODEC(ZSTD(1)),
    LogAttributes {_MAP} CODEC(ZSTD(1))
) ENGINE = MergeTree()
PARTITION BY toDate(TimestampTime)
PRIMARY KEY (ServiceName, TimestampTime)
ORDER BY (ServiceName, TimestampTime, Timestamp)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1"""


def create_tables(
    query: Any,
    *,
    database: str = "otel",
    layout: str = "map",
    traces: str = "otel_traces",
    logs: str | None = "otel_logs",
) -> None:
    """Create the database and tables as the exporter's `create_schema: true` does."""
    query(f'CREATE DATABASE IF NOT EXISTS "{database}"')
    query(traces_ddl(database, traces, layout))
    if logs:
        ddl = LOGS_DDL.format(database=database, table=logs)
        if layout == "json":  # logs_json_table.sql: the attribute maps are JSON
            ddl = ddl.replace(_MAP, "JSON")
        query(ddl)


def as_raw(value: Any) -> Any:
    """pcommon.Value.AsRaw() of a protobuf AnyValue (what the JSON schema stores)."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [as_raw(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: as_raw(kv.value) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return getattr(value, which)


def _go_float(number: float) -> str:
    """strconv.FormatFloat(f, 'f', -1, 64): the shortest decimal, never an exponent."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    text = format(Decimal(repr(number)), "f")
    return text[:-2] if text.endswith(".0") else text


def as_string(value: Any) -> str:
    """pcommon.Value.AsString() of a protobuf AnyValue (what the Map schema stores)."""
    which = value.WhichOneof("value")
    if which is None:
        return ""
    if which == "string_value":
        return value.string_value
    if which == "bool_value":
        return "true" if value.bool_value else "false"
    if which == "int_value":
        return str(value.int_value)
    if which == "double_value":
        return _go_float(value.double_value)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return orjson.dumps(as_raw(value)).decode()


def _attrs(key_values: Any, layout: str) -> dict[str, Any]:
    if layout == "json":
        return {kv.key: as_raw(kv.value) for kv in key_values}
    return {kv.key: as_string(kv.value) for kv in key_values}


def _time(ns: int) -> str:
    seconds, rest = divmod(ns, 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return f"{stamp}.{rest:09d}"


def span_rows(request: ExportTraceServiceRequest, *, layout: str = "map") -> list[dict[str, Any]]:
    """The rows the exporter inserts for `request` (JSONEachRow-ready dicts)."""
    rows = []
    for resource_spans in request.resource_spans:
        resource = resource_spans.resource
        res_attrs = _attrs(resource.attributes, layout)
        service = next(
            (kv.value.string_value for kv in resource.attributes if kv.key == "service.name"), ""
        )
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope
            for span in scope_spans.spans:
                attrs = _attrs(span.attributes, layout)
                row: dict[str, Any] = {}
                if layout == "map_noscope":
                    if scope.name:
                        attrs["otel.scope.name"] = scope.name
                    if scope.version:
                        attrs["otel.scope.version"] = scope.version
                else:
                    row["ScopeName"] = scope.name
                    row["ScopeVersion"] = scope.version
                kinds = (
                    _KINDS_PDATA if layout == "json" else tuple(f"SPAN_KIND_{k}" for k in _KINDS)
                )
                codes = (
                    _CODES_PDATA if layout == "json" else tuple(f"STATUS_CODE_{c}" for c in _CODES)
                )
                row.update(
                    {
                        "Timestamp": _time(span.start_time_unix_nano),
                        "TraceId": span.trace_id.hex(),
                        "SpanId": span.span_id.hex(),
                        "ParentSpanId": span.parent_span_id.hex(),
                        "TraceState": span.trace_state,
                        "SpanName": span.name,
                        "SpanKind": kinds[span.kind] if 0 <= span.kind < 6 else kinds[0],
                        "ServiceName": service,
                        "ResourceAttributes": res_attrs,
                        "SpanAttributes": attrs,
                        "Duration": max(0, span.end_time_unix_nano - span.start_time_unix_nano),
                        "StatusCode": codes[span.status.code] if span.status.code < 3 else codes[0],
                        "StatusMessage": span.status.message,
                        "Events.Timestamp": [_time(e.time_unix_nano) for e in span.events],
                        "Events.Name": [e.name for e in span.events],
                        "Events.Attributes": [_attrs(e.attributes, layout) for e in span.events],
                        "Links.TraceId": [link.trace_id.hex() for link in span.links],
                        "Links.SpanId": [link.span_id.hex() for link in span.links],
                        "Links.TraceState": [link.trace_state for link in span.links],
                        "Links.Attributes": [
                            _attrs(link.attributes, layout) for link in span.links
                        ],
                    }
                )
                rows.append(row)
    return rows


def insert_spans(
    query: Any,
    request: ExportTraceServiceRequest,
    *,
    layout: str = "map",
    database: str = "otel",
    table: str = "otel_traces",
) -> int:
    """Insert `request` as the exporter would; returns the number of spans inserted."""
    rows = span_rows(request, layout=layout)
    if not rows:
        return 0
    body = b"\n".join(orjson.dumps(row) for row in rows).decode()
    query(f'INSERT INTO "{database}"."{table}" FORMAT JSONEachRow\n{body}')
    return len(rows)


def request_from_duckdb(con: Any) -> ExportTraceServiceRequest:
    """An OTLP request holding every span of a tracesim DuckDB file (its stored attributes,
    resource, events and links), to replay what a run captured into the exporter's tables."""
    from opentelemetry.proto.common.v1.common_pb2 import KeyValue
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, Span, Status

    from tests.collector.otlp import any_value

    def kvs(values: dict[str, Any]) -> list[KeyValue]:
        return [KeyValue(key=k, value=any_value(v)) for k, v in values.items() if v is not None]

    rows = con.execute(
        "SELECT trace_id, span_id, parent_span_id, name, kind, "
        "epoch_ns(start_time), epoch_ns(end_time), status_code, status_message, "
        "scope_name, attributes, resource_attributes, events, links FROM spans ORDER BY start_time"
    ).fetchall()
    request = ExportTraceServiceRequest()
    by_resource: dict[tuple[str, str], Any] = {}
    for (
        trace_id,
        span_id,
        parent,
        name,
        kind,
        start,
        end,
        code,
        message,
        scope,
        attrs,
        res_attrs,
        events,
        links,
    ) in rows:
        key = (res_attrs or "{}", scope or "")
        scope_spans = by_resource.get(key)
        if scope_spans is None:
            resource_spans = ResourceSpans()
            resource_spans.resource.attributes.extend(kvs(orjson.loads(key[0])))
            scope_spans = resource_spans.scope_spans.add()
            scope_spans.scope.name = key[1]
            request.resource_spans.append(resource_spans)
            scope_spans = by_resource[key] = request.resource_spans[-1].scope_spans[0]
        span = Span(
            trace_id=bytes.fromhex(trace_id),
            span_id=bytes.fromhex(span_id),
            parent_span_id=bytes.fromhex(parent) if parent else b"",
            name=name or "",
            kind=_KINDS.index(kind) if kind in _KINDS else 0,
            start_time_unix_nano=start or 0,
            end_time_unix_nano=end or 0,
            status=Status(code=_CODES.index(code) if code in _CODES else 0, message=message or ""),
        )
        span.attributes.extend(kvs(orjson.loads(attrs or "{}")))
        for event in orjson.loads(events or "[]"):
            added = span.events.add()
            added.name = event.get("name") or ""
            added.time_unix_nano = int(event.get("time_unix_nano") or 0)
            added.attributes.extend(kvs(event.get("attributes") or {}))
        for link in orjson.loads(links or "[]"):
            added = span.links.add()
            added.trace_id = bytes.fromhex(link["trace_id"])
            added.span_id = bytes.fromhex(link["span_id"])
            added.attributes.extend(kvs(link.get("attributes") or {}))
        scope_spans.spans.append(span)
    return request


def insert_logs(
    query: Any,
    request: Any,
    *,
    layout: str = "map",
    database: str = "otel",
    table: str = "otel_logs",
) -> int:
    """Insert an ExportLogsServiceRequest as the exporter's Map schema stores it (Body and
    attributes as `AsString()` texts; older exporters have no EventName column, so the
    event name survives only as an `event.name` attribute)."""
    rows = []
    for resource_logs in request.resource_logs:
        resource = resource_logs.resource
        res_attrs = _attrs(resource.attributes, layout)
        service = next(
            (kv.value.string_value for kv in resource.attributes if kv.key == "service.name"), ""
        )
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                attrs = _attrs(record.attributes, layout)
                if record.event_name:
                    attrs.setdefault("event.name", record.event_name)
                rows.append(
                    {
                        "Timestamp": _time(record.time_unix_nano or record.observed_time_unix_nano),
                        "TraceId": record.trace_id.hex(),
                        "SpanId": record.span_id.hex(),
                        "TraceFlags": record.flags & 0xFF,
                        "SeverityText": record.severity_text,
                        "SeverityNumber": record.severity_number,
                        "ServiceName": service,
                        "Body": as_string(record.body),
                        "ResourceAttributes": res_attrs,
                        "ScopeName": scope_logs.scope.name,
                        "ScopeVersion": scope_logs.scope.version,
                        "ScopeAttributes": _attrs(scope_logs.scope.attributes, layout),
                        "LogAttributes": attrs,
                    }
                )
    if rows:
        body = b"\n".join(orjson.dumps(row) for row in rows).decode()
        query(f'INSERT INTO "{database}"."{table}" FORMAT JSONEachRow\n{body}')
    return len(rows)
