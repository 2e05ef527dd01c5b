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


def test_sql_queries_a_live_collection_through_the_collector(tmp_path: Path) -> None:
    db = tmp_path / "live.duckdb"
    collector = _tracesim(
        "collect", "--db", str(db), "--grpc-port", "0", "--http-port", "0",
        "--auth-token-env", "SQL_TOKEN", "--query-max-rows", "1",
    )
    try:
        banner = collector.stdout.readline()
        match = re.search(r"OTLP gRPC on (\S+), OTLP/HTTP on (\S+), writing", banner)
        assert match, banner
        grpc_endpoint, http_endpoint = match.groups()
        client = GrpcClient(grpc_endpoint, token="s3cret")
        client.export(trace_request([span("lookup"), span("refund")]))
        client.close()

        answer = _sql(
            "SELECT name FROM spans ORDER BY name", db, http_endpoint,
            "--format", "json", "--auth-token-env", "SQL_TOKEN",
        )
        assert answer.returncode == 0, answer.stderr
        assert [row["name"] for row in json.loads(answer.stdout)] == ["lookup"]  # --query-max-rows 1
        assert "only the first 1 rows were returned" in answer.stderr

        counted = _sql(
            "SELECT count(*) AS n FROM spans", db, http_endpoint,
            "--format", "json", "--auth-token-env", "SQL_TOKEN",
        )
        assert json.loads(counted.stdout) == [{"n": 2}]

        refused = _sql(
            "DELETE FROM spans", db, http_endpoint, "--auth-token-env", "SQL_TOKEN"
        )
        assert refused.returncode != 0 and "read" in refused.stderr.lower()

        no_token = _sql("SELECT count(*) FROM spans", db, http_endpoint)
        assert no_token.returncode != 0
    finally:
        collector.send_signal(signal.SIGTERM)
        out, _ = collector.communicate(timeout=60)
    assert "stored 2 spans" in out
