"""`tracesim collect` as a subprocess: prints its ports, stores spans, SIGTERM prints counts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import httpx

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

ROOT = Path(__file__).resolve().parents[2]
_CLI = "from tracesim.cli import main; main()"


def _collect(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _CLI, "collect", *args],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_collect_command_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "new" / "folder" / "cli.duckdb"  # missing folders are created
    process = _collect("--db", str(db), "--grpc-port", "0", "--http-port", "0")
    try:
        banner = process.stdout.readline()
        match = re.search(r"OTLP gRPC on (\S+), OTLP/HTTP on (\S+), writing", banner)
        assert match, banner + process.stderr.read() if process.poll() is not None else banner
        grpc_endpoint, http_endpoint = match.groups()
        assert not grpc_endpoint.endswith(":0") and not http_endpoint.endswith(":0")
        client = GrpcClient(grpc_endpoint)
        client.export(trace_request([span("a"), span("b")]))
        client.export_logs(logs_request([log_record("l1")]))
        client.close()
        answer = httpx.post(
            f"{http_endpoint}/v1/traces",
            headers={"content-type": "application/x-protobuf"},
            content=trace_request([span("c")]).SerializeToString(),
        )
        assert answer.status_code == 200

        second = _collect("--db", str(db), "--grpc-port", "0", "--http-port", "0")
        _, err = second.communicate(timeout=60)
        assert second.returncode != 0 and "open in another process" in err

        port = grpc_endpoint.rsplit(":", 1)[1]
        third = _collect(
            "--db", str(tmp_path / "other.duckdb"), "--grpc-port", port, "--http-port", "0"
        )
        _, err = third.communicate(timeout=60)
        assert third.returncode == 2 and "port in use" in err
        assert not (tmp_path / "other.duckdb").exists()  # a failed start leaves no file

        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "stored 3 spans and 1 logs" in out
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM spans").fetchone() == (3,)
        assert con.execute("SELECT count(*) FROM logs").fetchone() == (1,)


def test_sigint_drains_commits_and_exits_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "int.duckdb"
    process = _collect("--db", str(db), "--grpc-port", "0", "--http-port", "-1")
    try:
        banner = process.stdout.readline()
        match = re.search(r"OTLP gRPC on (\S+?),? ", banner)
        assert match, banner + (process.stderr.read() if process.poll() is not None else "")
        client = GrpcClient(match.group(1))
        client.export(trace_request([span(f"s{i}") for i in range(100)]))  # acknowledged
        client.close()
        process.send_signal(signal.SIGINT)  # Ctrl-C: the same drain as SIGTERM
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0 and "Traceback" not in err, err
    assert "stored 100 spans" in out
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM spans").fetchone() == (100,)
