"""ClickHouse tests: the real engine in-process through chdb, tables created and filled
as the OTel Collector's ClickHouse exporter does (`exporter_mapping`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans

from tests.clickhouse.exporter_mapping import create_tables, insert_spans
from tests.collector.otlp import key_values

pytest.importorskip("chdb", reason="the clickhouse extra is not installed")


def request_of(*resources: tuple[dict[str, Any], list[Any]]) -> ExportTraceServiceRequest:
    """An OTLP request: one ResourceSpans per (resource attributes, spans), scope 'test'."""
    request = ExportTraceServiceRequest()
    for attrs, spans in resources:
        resource_spans = ResourceSpans()
        resource_spans.resource.attributes.extend(key_values(attrs))
        scope_spans = resource_spans.scope_spans.add()
        scope_spans.scope.name = "test-scope"
        scope_spans.scope.version = "1.0"
        scope_spans.spans.extend(spans)
        request.resource_spans.append(resource_spans)
    return request


def write_exporter_tables(
    directory: Path,
    request: ExportTraceServiceRequest | None,
    *,
    layout: str = "map",
    database: str = "otel",
    traces: str = "otel_traces",
) -> str:
    """Create the exporter's tables in chdb directory `directory`, insert `request` as the
    exporter would, close the session; returns the `chdb://` URL."""
    from chdb import session

    sess = session.Session(str(directory))
    try:
        sess.query("SET session_timezone = 'UTC'")
        create_tables(sess.query, database=database, layout=layout, traces=traces)
        if request is not None:
            insert_spans(sess.query, request, layout=layout, database=database, table=traces)
    finally:
        sess.close()
    url = f"chdb://{directory}"
    if database != "otel" or traces != "otel_traces":
        url += f"?database={database}&traces_table={traces}"
    return url


@pytest.fixture
def exporter_db(tmp_path: Path) -> Callable[..., str]:
    """`exporter_db(request, layout=...)` -> chdb:// URL of a fresh directory holding it."""
    counter = iter(range(1000))

    def make(request: ExportTraceServiceRequest | None, **kwargs: Any) -> str:
        return write_exporter_tables(tmp_path / f"ch{next(counter)}", request, **kwargs)

    return make


def query(url: str, sql: str) -> list[dict[str, Any]]:
    """Rows of `sql` on the store `url` (its database is the default one)."""
    from evaluator.store import open_clickhouse

    with open_clickhouse(url) as store:
        store.prepare()
        store._c.use_database()
        return store._c.query(sql).to_pylist()
