"""ClickHouse tests: the real engine in-process through chdb, tables created and filled
as the OTel Collector's ClickHouse exporter does (`exporter_mapping`). `store_db` gives the
same tables as `chdb://DIR` and, served by `http_server.ChdbHttpServer` (ClickHouse's HTTP
interface over chdb), as `clickhouse://user:pass@127.0.0.1:PORT/otel`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans

from tests.clickhouse.chdb_http import ChdbHttpServer
from tests.clickhouse.exporter_mapping import create_tables, insert_spans
from tests.collector.otlp import key_values, new_span_id, new_trace_id, span

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


def two_chats_request() -> ExportTraceServiceRequest:
    """Chats c1 and c2, two turns each, one traced `lookup` tool call per turn."""
    spans = []
    for chat in ("c1", "c2"):
        for turn in range(2):
            trace, root = new_trace_id(), new_span_id()
            spans.append(
                span(
                    "tracesim.turn",
                    trace_id=trace,
                    span_id=root,
                    attrs={
                        "tracesim.chat_id": chat,
                        "tracesim.turn_id": turn,
                        "tracesim.run_id": "run-1",
                    },
                )
            )
            spans.append(
                span(
                    "execute_tool lookup",
                    trace_id=trace,
                    parent=root,
                    attrs={"gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": "{}"},
                )
            )
    return request_of(({"service.name": "agent"}, spans))


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


HTTP_USER, HTTP_PASSWORD = "tracesim", "s3cret p@ss:w/rd"
"""The server's one user; the password needs URL quoting (`quote(..., safe="")`)."""
BACKENDS = ("chdb", "http")
SERVER_TIMEZONE = "America/New_York"
"""The served stores' server timezone: not UTC, as production servers often are not."""


class StoreDB:
    """Makes exporter tables for a test, reached as `chdb://DIR` or, served over ClickHouse's
    HTTP interface, as `clickhouse://` (then created and filled over HTTP too)."""

    def __init__(self, root: Path, backend: str) -> None:
        self.root, self.backend = root, backend
        self.server: ChdbHttpServer | None = None
        self._count = 0
        self._directory = root

    def __call__(self, request: ExportTraceServiceRequest | None, **kwargs: Any) -> str:
        """The URL of a fresh store holding `request` (kwargs as `write_exporter_tables`)."""
        self.close()  # chdb runs one engine per process: one served directory at a time
        self._count += 1
        self._directory = self.root / f"store{self._count}"
        if self.backend == "chdb":
            return write_exporter_tables(self._directory, request, **kwargs)
        self._directory.mkdir(parents=True)
        self.server = ChdbHttpServer(
            self._directory, user=HTTP_USER, password=HTTP_PASSWORD, timezone=SERVER_TIMEZONE
        )
        self.server.start()
        database = kwargs.get("database", "otel")
        traces = kwargs.get("traces", "otel_traces")
        create_tables(
            self.execute, database=database, layout=kwargs.get("layout", "map"), traces=traces
        )
        self.insert(request, **kwargs)
        url = self.server.url(database, password=quote(HTTP_PASSWORD, safe=""))
        return url + (f"?traces_table={traces}" if traces != "otel_traces" else "")

    def execute(self, sql: str) -> bytes:
        """Run `sql` on the current store as the exporter's client would (UTC session):
        over HTTP, or in a chdb session of its own (no other may be open then)."""
        if self.server is not None:
            return self.server.execute(sql, session_timezone="UTC")
        from chdb import session

        sess = session.Session(str(self._directory))
        try:
            sess.query("SET session_timezone = 'UTC'")
            return sess.query(sql).bytes()
        finally:
            sess.close()

    def insert(self, request: ExportTraceServiceRequest | None, **kwargs: Any) -> None:
        """Insert `request` into the current store as the exporter would."""
        if request is None:
            return
        if self.backend == "chdb":
            write_exporter_tables(self._directory, request, **kwargs)
            return
        insert_spans(
            self.execute,
            request,
            layout=kwargs.get("layout", "map"),
            database=kwargs.get("database", "otel"),
            table=kwargs.get("traces", "otel_traces"),
        )

    def close(self) -> None:
        """Stop serving (safe twice)."""
        if self.server is not None:
            self.server.shutdown()
            self.server = None


@pytest.fixture(params=BACKENDS)
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreDB]:
    """`store_db(request, layout=...)` -> URL of the exporter's tables holding it, as
    `chdb://DIR` and as `clickhouse://` over ClickHouse's HTTP interface (one test each)."""
    maker = StoreDB(tmp_path, request.param)
    yield maker
    maker.close()


def query(url: str, sql: str) -> list[dict[str, Any]]:
    """Rows of `sql` on the store `url` (its database is the default one)."""
    from tracesim.evaluator.store import open_clickhouse

    with open_clickhouse(url) as store:
        store.prepare()
        store._c.use_database()
        return store._c.query(sql).to_pylist()
