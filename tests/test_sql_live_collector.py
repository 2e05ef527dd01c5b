"""`tracesim sql` on a file a running `tracesim collect` holds: the query goes through
the collector's read-only endpoint (real processes, real lock, bearer token)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.collector.otlp import GrpcClient, span, trace_request

ROOT = Path(__file__).resolve().parent.parent
_CLI = "from tracesim.cli import main; main()"
_ENV = {**os.environ, "PYTHONPATH": str(ROOT), "SQL_TOKEN": "s3cret"}


def _tracesim(*args: str, **kwargs: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _CLI, *args],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_ENV,
        **kwargs,
    )


def _sql(query: str, db: Path, endpoint: str, *extra: str) -> subprocess.CompletedProcess:
    process = _tracesim("sql", query, "--db", str(db), "--endpoint", endpoint, *extra)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _start_collector(db: Path, *extra: str) -> tuple[subprocess.Popen, str, str]:
    """A `tracesim collect` subprocess on free ports with a token; its (process, gRPC, HTTP)."""
    collector = _tracesim(
        "collect", "--db", str(db), "--grpc-port", "0", "--http-port", "0",
        "--auth-token-env", "SQL_TOKEN", *extra,
    )  # fmt: skip
    banner = collector.stdout.readline()
    match = re.search(r"OTLP gRPC on (\S+), OTLP/HTTP on (\S+), writing", banner)
    if not match:
        collector.kill()
        raise AssertionError(banner + collector.communicate()[1])
    return collector, match.group(1), match.group(2)


def test_sql_queries_a_live_collection_through_the_collector(tmp_path: Path) -> None:
    db = tmp_path / "live.duckdb"
    collector, grpc_endpoint, http_endpoint = _start_collector(db, "--query-max-rows", "1")
    try:
        client = GrpcClient(grpc_endpoint, token="s3cret")
        client.export(trace_request([span("lookup"), span("refund")]))
        client.close()

        answer = _sql(
            "SELECT name FROM spans ORDER BY name",
            db,
            http_endpoint,
            "--format",
            "json",
            "--auth-token-env",
            "SQL_TOKEN",
        )
        assert answer.returncode == 0, answer.stderr
        assert [row["name"] for row in json.loads(answer.stdout)] == [
            "lookup"
        ]  # --query-max-rows 1
        assert "only the first 1 rows were returned" in answer.stderr

        counted = _sql(
            "SELECT count(*) AS n FROM spans",
            db,
            http_endpoint,
            "--format",
            "json",
            "--auth-token-env",
            "SQL_TOKEN",
        )
        assert json.loads(counted.stdout) == [{"n": 2}]

        for huge in ("SELECT len(range(50000000))", "SELECT repeat('x', 1000000000)"):
            bounded = _sql(huge, db, http_endpoint, "--auth-token-env", "SQL_TOKEN")
            assert bounded.returncode != 0 and "100,000" in bounded.stderr, bounded.stderr
            assert "Traceback" not in bounded.stderr

        refused = _sql("DELETE FROM spans", db, http_endpoint, "--auth-token-env", "SQL_TOKEN")
        assert refused.returncode != 0 and "read" in refused.stderr.lower()

        no_token = _sql("SELECT count(*) FROM spans", db, http_endpoint)
        assert no_token.returncode != 0
    finally:
        collector.send_signal(signal.SIGTERM)
        out, _ = collector.communicate(timeout=60)
    assert "stored 2 spans" in out


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sql_finds_a_collector_on_another_port_through_its_sidecar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracesim.collector import sidecar_path
    from tracesim.evaluator.store.live import ENDPOINT_ENV

    from tracesim import sql_client

    db = tmp_path / "side.duckdb"
    sidecar = sidecar_path(db)
    collector, grpc_endpoint, http_endpoint = _start_collector(db)
    try:
        written = json.loads(sidecar.read_text())
        assert written["http_endpoint"] == http_endpoint
        assert written["token_required"] is True
        assert "s3cret" not in sidecar.read_text()  # never the token itself
        client = GrpcClient(grpc_endpoint, token="s3cret")
        client.export(trace_request([span("lookup")]))
        client.close()

        process = _tracesim(  # no --endpoint: the sidecar names the non-default port
            "sql",
            "SELECT name FROM spans",
            "--db",
            str(db),
            "--format",
            "json",
            "--auth-token-env",
            "SQL_TOKEN",
        )
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert json.loads(out) == [{"name": "lookup"}]

        # a stale sidecar (its collector died): ignored, the default endpoint is tried (and
        # used once it proves it serves this file)
        stale = f"http://127.0.0.1:{_closed_port()}"
        sidecar.write_text(json.dumps({"http_endpoint": stale}))
        monkeypatch.setenv(ENDPOINT_ENV, http_endpoint)
        result = sql_client.run_query("SELECT name FROM spans", db_path=db, token="s3cret")
        assert result.rows == [["lookup"]]
        assert result.source.startswith(http_endpoint)
        monkeypatch.setenv(ENDPOINT_ENV, f"http://127.0.0.1:{_closed_port()}")
        try:
            sql_client.run_query("SELECT 1", db_path=db, token="s3cret")
        except sql_client.SqlError as exc:
            assert f"nothing answers at {stale}" in str(exc) and "stop that process" in str(exc)
        else:
            raise AssertionError("a stale sidecar and no collector must fail")
        sidecar.write_text(json.dumps({"http_endpoint": http_endpoint}))
    finally:
        collector.send_signal(signal.SIGTERM)
        out, _ = collector.communicate(timeout=60)
    assert "stored 1 spans" in out
    assert not sidecar.exists()  # removed on clean shutdown


def test_sql_through_the_collector_cannot_read_files(tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("a\nsecret-cell-77\n")
    db = tmp_path / "files.duckdb"
    collector, _grpc, http_endpoint = _start_collector(db)
    try:
        for sql in (
            f"SELECT * FROM '{secret}'",
            f'WITH "{secret}" AS (SELECT * FROM \'{secret}\') SELECT * FROM "{secret}"',
            f"SELECT * FROM '{tmp_path}/*.csv'",
        ):
            answer = _sql(sql, db, http_endpoint, "--auth-token-env", "SQL_TOKEN")
            assert answer.returncode != 0, (sql, answer.stderr)
            assert "secret-cell-77" not in answer.stdout + answer.stderr
    finally:
        collector.send_signal(signal.SIGTERM)
        collector.communicate(timeout=60)


def test_every_command_works_on_a_file_tracesim_collect_holds(tmp_path: Path) -> None:
    """Separate processes, as a developer runs them: DuckDB names the collector's pid as the
    lock holder, and the collector proves it is that process and serves that file."""
    db = tmp_path / "dev.duckdb"
    config = tmp_path / "config.yaml"
    config.write_text("evaluation:\n  metrics: []\n")
    env = {**_ENV, "TRACESIM_COLLECTOR_TOKEN": "s3cret"}
    collector, grpc_endpoint, _http = _start_collector(db)
    try:
        client = GrpcClient(grpc_endpoint, token="s3cret")
        client.export(trace_request([span("lookup"), span("refund")]))
        client.close()
        runs = {
            "evaluate": ["evaluate", "--db", str(db), "--config", str(config), "--no-progress"],
            "inspect": ["inspect", "--db", str(db), "--format", "json"],
            "report": ["report", "--db", str(db), "--out", str(tmp_path / "r.html")],
            "sql": ["sql", "SELECT count(*) AS n FROM runs", "--db", str(db), "--format", "json"],
        }
        done = {}
        for name, args in runs.items():
            process = subprocess.run(
                [sys.executable, "-c", _CLI, *args], cwd=ROOT, env=env,
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert process.returncode == 0, (name, process.stderr)
            done[name] = process.stdout
        assert sum(g["spans"] for g in json.loads(done["inspect"])["groups"]) == 2
        assert json.loads(done["sql"]) == [{"n": 1}]  # evaluate's runs row, written through it
        assert (tmp_path / "r.html").is_file()
    finally:
        collector.send_signal(signal.SIGTERM)
        out, _ = collector.communicate(timeout=60)
    assert "stored 2 spans" in out
