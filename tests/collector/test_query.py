"""Read-only SQL while the collector runs (Collector.query and POST /tracesim/query)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pyarrow as pa
import pytest
from tracesim.collector import Collector, InvalidRequest, RefusedQuery, check_read_only
from tracesim.collector.query import query as query_module
from tracesim.schemas.views import VIEW_NAMES

from tests.collector.otlp import GrpcClient, span, trace_request


def test_query_endpoint_answers_select(collector: Collector, client: GrpcClient) -> None:
    client.export(trace_request([span("q1", attrs={"tracesim.chat_id": "c"}), span("q2")]))
    url = f"{collector.http_endpoint}/tracesim/query"
    answer = httpx.post(
        url,
        json={
            "sql": "SELECT name, start_time, duration_ms FROM spans "
            "WHERE chat_id = ? ORDER BY name",
            "params": ["c"],
        },
    )
    assert answer.status_code == 200
    assert answer.json() == {
        "columns": ["name", "start_time", "duration_ms"],
        "rows": [["q1", "2023-11-14T22:13:20", 5.0]],
    }
    for sql in (
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        "DESCRIBE spans",
        "SHOW TABLES",
        "SUMMARIZE spans",
        "EXPLAIN SELECT 1",
        "PRAGMA table_info('spans')",
    ):
        assert httpx.post(url, json={"sql": sql}).status_code == 200, sql


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO spans (trace_id, span_id) VALUES ('a', 'b')",
        "DROP TABLE spans",
        "COPY spans TO '/tmp/x.csv'",
        "SELECT 1; DELETE FROM spans",
        "EXPLAIN ANALYZE DELETE FROM spans",
        "ATTACH 'other.duckdb'",
        "SET threads = 4",
    ],
)
def test_query_endpoint_refuses_writes(collector: Collector, sql: str) -> None:
    answer = httpx.post(f"{collector.http_endpoint}/tracesim/query", json={"sql": sql})
    assert answer.status_code == 400
    assert "read-only" in answer.json()["message"]
    with pytest.raises(InvalidRequest):
        check_read_only(sql)


def test_query_endpoint_bad_bodies(collector: Collector) -> None:
    url = f"{collector.http_endpoint}/tracesim/query"
    assert httpx.post(url, content=b"nope").status_code == 400
    assert httpx.post(url, json={"query": "SELECT 1"}).status_code == 400
    answer = httpx.post(url, json={"sql": "SELECT * FROM no_such_table"})
    assert answer.status_code == 400 and "no_such_table" in answer.json()["message"]


def test_query_endpoint_reads_tables_views_ctes_and_joins(
    collector: Collector, client: GrpcClient
) -> None:
    client.export(trace_request([span("q1", attrs={"tracesim.chat_id": "c"})]))
    url = f"{collector.http_endpoint}/tracesim/query"
    for sql in (
        "WITH named AS (SELECT name, chat_id FROM spans) SELECT name FROM named",
        "SELECT s.name FROM spans s LEFT JOIN turns t ON s.chat_id = t.chat_id",
        "SELECT count(*) FROM range(5)",
        *(f"SELECT * FROM {view} LIMIT 1" for view in VIEW_NAMES),
    ):
        answer = httpx.post(url, json={"sql": sql})
        assert answer.status_code == 200, (sql, answer.text)
    answer = httpx.post(url, json={"sql": "SELECT name FROM spans WHERE name = 'q1'"})
    assert answer.json()["rows"] == [["q1"]]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT * FROM read_csv('/etc/passwd')", "reading files is not allowed"),
        ("FROM '/etc/hostname'", "reading files is not allowed"),
        ("SELECT * FROM glob('*')", "reading files is not allowed"),
        ("SELECT getenv('HOME')", "function getenv() is not allowed"),
        ("SELECT current_setting('threads')", "function current_setting() is not allowed"),
        ("SELECT * FROM duckdb_secrets()", "table function duckdb_secrets() is not allowed"),
        ("PRAGMA threads = 4", "read-only"),
        ("SELECT 1; SELECT 2", "2 statements given"),
    ],
)
def test_query_endpoint_refuses_files_and_environment(
    collector: Collector, sql: str, expected: str
) -> None:
    answer = httpx.post(f"{collector.http_endpoint}/tracesim/query", json={"sql": sql})
    assert answer.status_code == 400
    assert expected in answer.json()["message"]


def test_replacement_scans_of_python_objects_are_refused(
    collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DuckDB resolves an unknown table name to an Arrow / pandas object among the locals
    # and globals of the frame that runs the query: collector.query's module here.
    monkeypatch.setattr(
        query_module, "server_secret", pa.table({"token": ["s3cret"]}), raising=False
    )
    with pytest.raises(RefusedQuery, match="'server_secret' is not a table or view"):
        collector.query("SELECT * FROM server_secret")
    answer = httpx.post(
        f"{collector.http_endpoint}/tracesim/query", json={"sql": "SELECT * FROM server_secret"}
    )
    assert answer.status_code == 400 and "server_secret" in answer.json()["message"]


def test_query_endpoint_caps_rows(db_path: Path) -> None:
    with Collector(db_path, grpc_port=None, http_port=0, query_max_rows=3) as collector:
        url = f"{collector.http_endpoint}/tracesim/query"
        capped = httpx.post(url, json={"sql": "SELECT * FROM range(10)"}).json()
        assert capped == {"columns": ["range"], "rows": [[0], [1], [2]], "truncated": True}
        whole = httpx.post(url, json={"sql": "SELECT * FROM range(3)"}).json()
        assert "truncated" not in whole and len(whole["rows"]) == 3
        assert len(collector.query("SELECT * FROM range(10)")[1]) == 10  # in-process: no cap


def test_a_runaway_query_is_interrupted_without_blocking_the_writer(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=0, query_timeout=1.5) as collector:
        url = f"{collector.http_endpoint}/tracesim/query"
        answers: list[httpx.Response] = []
        slow = threading.Thread(
            target=lambda: answers.append(
                httpx.post(url, json={"sql": "SELECT count(*) FROM range(1000000000000)"})
            )
        )
        started = time.monotonic()
        slow.start()
        time.sleep(0.3)  # the query is running on its reader cursor
        client = GrpcClient(collector.grpc_endpoint)
        try:
            client.export(trace_request([span("during")]))
        finally:
            client.close()
        assert collector.flush(timeout=5.0)
        assert slow.is_alive(), "the writer waited for the query"
        _, rows = collector.query("SELECT name FROM spans")
        assert rows == [["during"]]
        slow.join(timeout=30)
        assert answers[0].status_code == 400
        assert "query stopped after 1.5 s" in answers[0].json()["message"]
        assert time.monotonic() - started < 15
