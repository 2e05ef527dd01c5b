"""The collector's store routes (identity, Arrow queries, evaluate's writes) refuse what the
query endpoint refuses and more: no token, another table than tool_calls / scores / runs,
a statement that writes, a malformed or oversized body; a refused write changes nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pytest
from tracesim.collector import Collector, sidecar_path
from tracesim.schemas.frames import FRAMES, encode_frames, read_arrow

from tests.collector.otlp import GrpcClient, span, trace_request

TOKEN = "routes-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Collector]:
    with Collector(
        tmp_path / "r.duckdb", grpc_port=0, http_port=0, auth_token=TOKEN, max_request_bytes=1 << 16
    ) as collector:
        client = GrpcClient(collector.grpc_endpoint or "", token=TOKEN)
        client.export(trace_request([span("lookup"), span("refund")]))
        client.close()
        yield collector


def _post(collector: Collector, route: str, body: bytes, headers: dict | None = None) -> Any:
    return httpx.post(
        f"{collector.http_endpoint}{route}",
        content=body,
        headers={"Content-Type": FRAMES, **(AUTH if headers is None else headers)},
    )


def _write(collector: Collector, writes: object, tables: list[pa.Table]) -> httpx.Response:
    return _post(collector, "/tracesim/write", encode_frames({"writes": writes}, tables))


def _count(collector: Collector, table: str) -> int:
    return collector.query(f"SELECT count(*) FROM {table}")[1][0][0]


def test_identity_names_the_file_the_nonce_and_the_pid(running: Collector) -> None:
    url = f"{running.http_endpoint}/tracesim/identity"
    assert httpx.get(url).status_code == 401
    identity = httpx.get(url, headers=AUTH).json()
    sidecar = json.loads(sidecar_path(running.db_path).read_text())
    assert identity["db_path"] == str(running.db_path.resolve()) == sidecar["db_path"]
    assert identity["nonce"] == sidecar["nonce"] == running.nonce
    assert identity["pid"] == os.getpid()


@pytest.mark.parametrize("table", ["spans", "turns", "conversations", "logs", "tracesim_meta"])
def test_only_the_derived_tables_can_be_written(running: Collector, table: str) -> None:
    before = _count(running, "spans")
    answer = _write(running, [{"table": table, "delete": ["x"]}], [])
    assert answer.status_code == 400 and "cannot be written" in answer.json()["message"]
    assert _count(running, "spans") == before


def test_a_write_needs_the_token(running: Collector) -> None:
    rows = pa.table({"eval_id": ["e1"], "kind": ["evaluate"]})
    answer = _post(running, "/tracesim/write", encode_frames({"writes": [{"table": "runs", "rows": 0}]}, [rows]), headers={})  # fmt: skip
    assert answer.status_code == 401 and _count(running, "runs") == 0


def test_a_write_is_one_transaction(running: Collector) -> None:
    good = pa.table({"eval_id": ["e1"], "kind": ["evaluate"]})
    assert _write(running, [{"table": "runs", "rows": 0}], [good]).json() == {"inserted": 1}
    bad = pa.table({"eval_id": ["e2"], "no_such_column": [1]})
    answer = _write(
        running, [{"table": "runs", "delete": ["e1"]}, {"table": "runs", "rows": 0}], [bad]
    )
    assert answer.status_code == 400 and "no_such_column" in answer.json()["message"]
    assert running.query("SELECT eval_id FROM runs")[1] == [["e1"]]  # the delete rolled back


@pytest.mark.parametrize(
    "writes",
    [None, [], ["runs"], [{"table": "runs", "rows": 3}], [{"table": "runs", "delete": [1]}]],
)
def test_malformed_writes_are_refused(running: Collector, writes: object) -> None:
    assert _write(running, writes, []).status_code == 400


def test_bodies_that_are_not_frames_or_too_large_are_refused(running: Collector) -> None:
    assert _post(running, "/tracesim/write", b"not frames").status_code == 400
    assert _post(running, "/tracesim/arrow", b"TSF1\x00\x00\x00\x05{}").status_code == 400
    huge = pa.table({"eval_id": ["x" * (1 << 19)]})
    answer = _write(running, [{"table": "runs", "rows": 0}], [huge])
    assert answer.status_code == 413 and _count(running, "runs") == 0


def _arrow(collector: Collector, sql: str, inputs: dict[str, pa.Table] | None = None) -> Any:
    inputs = inputs or {}
    body = encode_frames({"sql": sql, "inputs": list(inputs)}, list(inputs.values()))
    return _post(collector, "/tracesim/arrow", body)


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM spans",
        "SELECT * FROM read_csv('/etc/passwd')",
        "ATTACH 'x.duckdb'",
        "SELECT * FROM duckdb_settings()",
    ],  # fmt: skip
)
def test_arrow_queries_pass_the_query_guard(running: Collector, sql: str) -> None:
    answer = _arrow(running, sql)
    assert answer.status_code == 400
    assert _count(running, "spans") == 2


def test_arrow_queries_join_the_tables_sent(running: Collector) -> None:
    wanted = pa.table({"name": ["refund", "absent"]})
    answer = _arrow(
        running,
        "SELECT s.name FROM spans s JOIN _tracesim_wanted w USING (name)",
        {"_tracesim_wanted": wanted},
    )
    assert answer.status_code == 200, answer.text
    assert read_arrow(answer.content).column("name").to_pylist() == ["refund"]
    assert _arrow(running, "SELECT 1 FROM x", {"spans2": wanted}).status_code == 400


@pytest.mark.parametrize("sql", ["SELECT len(range(50000000))", "SELECT repeat('x', 1000000000)"])
def test_arrow_queries_keep_the_query_memory_bounds(running: Collector, sql: str) -> None:
    answer = _arrow(running, sql)
    assert answer.status_code == 400, answer.text
