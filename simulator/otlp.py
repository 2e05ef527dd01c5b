"""OTLP span exporters to a collector, from an endpoint string.

`host:port` or `http://host:4317` -> OTLP/gRPC (the default);
`http(s)://host:4318[/v1/traces]` or protocol `http/protobuf` -> OTLP/HTTP.
Shared by the simulator's own provider and by `instrument()`. Each exporter
splits batches by size (`export_split`), so no request exceeds the collector's limit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from tracesim.simulator.export_split import SplittingExporter

__all__ = ["DEFAULT_ENDPOINT", "make_span_exporter", "resolve_protocol"]

DEFAULT_ENDPOINT = "127.0.0.1:4317"


def resolve_protocol(endpoint: str, protocol: str | None = None) -> str:
    """`grpc` or `http/protobuf` for `endpoint` (explicit `protocol` and the OTel env var win)."""
    chosen = (
        protocol
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    )
    if chosen:
        chosen = chosen.lower()
        if chosen in ("http", "http/protobuf", "http/json"):
            return "http/protobuf"
        if chosen == "grpc":
            return "grpc"
        raise ValueError(f"unknown OTLP protocol {protocol!r}; use 'grpc' or 'http/protobuf'")
    parsed = urlparse(endpoint if "://" in endpoint else f"//{endpoint}")
    if parsed.scheme in ("http", "https") and (
        parsed.port == 4318 or parsed.path.rstrip("/").endswith("/v1/traces")
    ):
        return "http/protobuf"
    return "grpc"


def make_span_exporter(
    endpoint: str | None = None,
    *,
    protocol: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> Any:
    """An OTLP span exporter to `endpoint` (default: `$OTEL_EXPORTER_OTLP_ENDPOINT` or 127.0.0.1:4317)."""
    endpoint = (
        endpoint
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or DEFAULT_ENDPOINT
    )
    kind = resolve_protocol(endpoint, protocol)
    header_map = dict(headers or {})
    if kind == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        url = endpoint if "://" in endpoint else f"http://{endpoint}"
        if not urlparse(url).path.rstrip("/").endswith("/v1/traces"):
            url = url.rstrip("/") + "/v1/traces"
        return SplittingExporter(
            OTLPSpanExporter(endpoint=url, headers=header_map or None, timeout=timeout)
        )
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    parsed = urlparse(endpoint if "://" in endpoint else f"//{endpoint}")
    insecure = parsed.scheme != "https"
    target = parsed.netloc or endpoint
    return SplittingExporter(
        OTLPSpanExporter(
            endpoint=target,
            insecure=insecure,
            headers=tuple(header_map.items()) or None,
            timeout=timeout,
        )
    )
