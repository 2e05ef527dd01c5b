"""The query endpoint cannot reach files or settings by construction, is capped in size, runs
on its own workers (never delaying ingest) and never outlives the store (SPEC §9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
import tracesim.collector.query.serving as serving_module
from tracesim.collector import Collector

from tests.collector.otlp import span, trace_request

ROOT = Path(__file__).resolve().parents[2]
SECRET = "top-secret-value-42"


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    """A folder of files a query must never read: CSV, JSON, Parquet, another DuckDB file."""
    folder = tmp_path / "private"
    folder.mkdir()
    (folder / "x.csv").write_text(f"a,b\n1,{SECRET}\n")
    (folder / "x.json").write_text(f'{{"a": "{SECRET}"}}')
    with duckdb.connect() as con:
        con.execute(f"COPY (SELECT '{SECRET}' AS a) TO '{folder / 'x.parquet'}'")
    with duckdb.connect(str(folder / "other.duckdb")) as con:
        con.execute(f"CREATE TABLE t AS SELECT '{SECRET}' AS a")
    return folder


def _escapes(folder: Path) -> list[str]:
    csv = folder / "x.csv"
    return [
        f'WITH "{csv}" AS (SELECT * FROM \'{csv}\') SELECT * FROM "{csv}"',
        f"SELECT * FROM '{csv}'",
        f"SELECT * FROM '{folder / 'x.json'}'",
        f"SELECT * FROM '{folder / 'x.parquet'}'",
        f"SELECT * FROM '{folder}/*.csv'",
        f"SELECT * FROM read_text('{csv}')",
        f"SELECT * FROM '{folder / 'other.duckdb'}'",
    ]


def test_file_escapes_are_refused(collector: Collector, secrets: Path) -> None:
    url = f"{collector.http_endpoint}/tracesim/query"
    for sql in _escapes(secrets):
        answer = httpx.post(url, json={"sql": sql})
        assert answer.status_code == 400, sql
        assert SECRET not in answer.text, sql


def test_the_engine_itself_refuses_files_and_settings(
    db_path: Path, secrets: Path, monkeypatch: Any
) -> None:
    """With the statement guard switched off, the engine's own settings still hold."""
    monkeypatch.setattr(
        "tracesim.collector.query.query.check_safe_for_endpoint", lambda *_a, **_k: None
    )
    with Collector(db_path, grpc_port=None, http_port=0) as running:
        url = f"{running.http_endpoint}/tracesim/query"
        for sql in [
            *_escapes(secrets),
            f"ATTACH '{secrets / 'other.duckdb'}' AS o",
            "SET memory_limit = '64GB'",
            "SET enable_external_access = true",
        ]:
            answer = httpx.post(url, json={"sql": sql})
            assert answer.status_code == 400, sql
            assert SECRET not in answer.text, sql


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT json_serialize_plan('SELECT * FROM spans')",
        "SELECT json_serialize_sql('SELECT 1')",
        "SELECT current_setting('memory_limit')",
    ],
)
def test_settings_and_plans_are_refused(collector: Collector, sql: str) -> None:
    answer = httpx.post(f"{collector.http_endpoint}/tracesim/query", json={"sql": sql})
    assert answer.status_code == 400
    assert str(collector.db_path) not in answer.text


def test_answers_are_capped_in_bytes(db_path: Path) -> None:
    with Collector(db_path, grpc_port=None, http_port=0, query_max_bytes=1 << 20) as running:
        answer = httpx.post(
            f"{running.http_endpoint}/tracesim/query",
            json={"sql": "SELECT repeat('x', 100000) AS big FROM range(100000)"},
            timeout=60,
        )
    assert answer.status_code == 200
    assert answer.json()["truncated"] is True
    assert len(answer.content) < 2 << 20


def test_huge_integers_are_answered(collector: Collector) -> None:
    answer = httpx.post(
        f"{collector.http_endpoint}/tracesim/query",
        json={"sql": "SELECT 170141183460469231731687303715884105727::HUGEINT AS n"},
    )
    assert answer.status_code == 200
    assert answer.json()["rows"] == [["170141183460469231731687303715884105727"]]


def test_slow_queries_never_delay_ingest(db_path: Path, monkeypatch: Any) -> None:
    release = threading.Event()
    real_run = serving_module.run_query

    def blocked(*args: Any, **kwargs: Any) -> Any:
        release.wait(60)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(serving_module, "run_query", blocked)
    with Collector(db_path, grpc_port=None, http_port=0) as running:
        base = running.http_endpoint
        answers: list[int] = []

        def ask() -> None:
            reply = httpx.post(f"{base}/tracesim/query", json={"sql": "SELECT 1"}, timeout=90)
            answers.append(reply.status_code)

        askers = [threading.Thread(target=ask) for _ in range(60)]
        for thread in askers:
            thread.start()
        body = trace_request([span("while-queries-wait")]).SerializeToString()
        exported = httpx.post(
            f"{base}/v1/traces",
            content=body,
            headers={"content-type": "application/x-protobuf"},
            timeout=20,
        )
        assert exported.status_code == 200
        release.set()
        for thread in askers:
            thread.join(90)
    assert 503 in answers and 200 in answers  # the query queue is bounded, not ingest


_SERVE = """
import sys
from tracesim.cli import main
main()
"""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_sigterm_during_a_query_exits_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "q.duckdb"
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE, "collect", "--db", str(db), "--grpc-port", "-1",
         "--http-port", "0"],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    banner = process.stdout.readline()
    endpoint = banner.split("OTLP/HTTP on ")[1].split(",")[0]
    slow = "SELECT count(*) FROM range(10000000000) a, range(10) b"
    asker = threading.Thread(
        target=lambda: httpx.post(f"{endpoint}/tracesim/query", json={"sql": slow}, timeout=90)
    )
    asker.daemon = True
    before = _cpu_seconds(process.pid)
    asker.start()
    for _ in range(600):  # until the query is burning CPU (a condition, not a delay)
        if _cpu_seconds(process.pid) - before > 0.5:
            break
        threading.Event().wait(0.05)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err[-3000:]
    assert "stored 0 spans" in out
