"""Read-only SQL while the collector runs (Collector.query and POST /tracesim/query)."""

from __future__ import annotations

import httpx
import pytest

from collector import Collector, InvalidRequest, check_read_only
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
