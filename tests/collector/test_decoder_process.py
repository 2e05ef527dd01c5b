"""Killing either process loses nothing acknowledged (SPEC §9, issue 21's decoder process)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from tracesim.collector import Collector
from tracesim.collector.store import decoder_process

from tests.collector.otlp import GrpcClient, span, trace_request

ROOT = Path(__file__).resolve().parents[2]
_TRACE = bytes(range(1, 17))


def _rows(db_path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_killed_decoder_is_replaced_and_loses_nothing(db_path: Path) -> None:
    turn = span(
        "tracesim.turn", trace_id=_TRACE, attrs={"tracesim.chat_id": "c", "tracesim.turn_id": 3}
    )
    with Collector(
        db_path, grpc_port=0, http_port=None, batch_seconds=3600, decoder_process=True
    ) as collector:
        first = collector._decoder.pid
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([turn]))
        assert collector.flush(30)
        os.kill(first, signal.SIGKILL)
        collector._decoder._process.wait(30)
        # acknowledged while the decoder is dead: queued, then decoded by its successor,
        # whose router knows the stored turn (rule 3) from the store
        client.export(trace_request([span(f"tool-{i}", trace_id=_TRACE) for i in range(20)]))
        client.close()
        assert collector.flush(120)
        assert collector._decoder.pid not in (None, first)
        assert collector._decoder.restarts == 1
        stats = collector.stats()
        assert (stats.spans_stored, stats.dead_letters) == (21, 0)
    assert _rows(db_path, "SELECT count(*), min(chat_id), min(turn_id) FROM spans") == [
        (21, "c", 3)
    ]


def test_a_hung_decoder_is_killed_and_replaced_and_loses_nothing(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stopped child (SIGSTOP stands for one stuck on a payload) never answers: the
    writer does not wait forever, it kills the child and resends the batch to a new one."""
    monkeypatch.setattr(decoder_process, "ANSWER_TIMEOUT", 1.0)
    with Collector(
        db_path, grpc_port=0, http_port=None, batch_seconds=3600, decoder_process=True
    ) as collector:
        hung = collector._decoder.pid
        os.kill(hung, signal.SIGSTOP)
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span(f"tool-{i}", trace_id=_TRACE) for i in range(5)]))
        client.close()
        assert collector.flush(120)
        assert collector._decoder.pid not in (None, hung)
        assert collector._decoder.restarts == 1
        assert (collector.stats().spans_stored, collector.stats().dead_letters) == (5, 0)
    assert _rows(db_path, "SELECT count(*) FROM spans") == [(5,)]


def test_a_decoder_that_cannot_start_leaves_decoding_in_the_collector(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(decoder_process.sys, "executable", str(db_path.parent / "no-python"))
    with Collector(db_path, grpc_port=0, http_port=None, decoder_process=True) as collector:
        assert collector._decoder is None
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("kept")]))
        client.close()
        assert collector.flush(30)
    assert "decoding in the collector's own process" in caplog.text
    assert _rows(db_path, "SELECT name FROM spans") == [("kept",)]


_SERVE = """
import sys, threading
from tracesim.collector import Collector
collector = Collector(sys.argv[1], grpc_port=0, http_port=None, batch_rows=300,
                      batch_seconds=3600, decoder_process=True).start()
print(collector.grpc_endpoint, collector._decoder.pid, flush=True)
threading.Event().wait()
"""


def test_sigkill_of_the_collector_ends_its_decoder_and_loses_nothing(db_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(db_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        endpoint, child = process.stdout.readline().split()
        client = GrpcClient(endpoint)
        for r in range(13):
            client.export(trace_request([span(f"r{r}-s{i}") for i in range(50)]))
        client.close()
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    # the orphaned decoder reads EOF on its pipe and exits (no process left behind)
    pidfd = os.pidfd_open(int(child)) if _alive(int(child)) else None
    if pidfd is not None:
        assert select.select([pidfd], [], [], 30)[0], "the decoder outlived its collector"
        os.close(pidfd)
    with Collector(db_path, grpc_port=None, http_port=None, decoder_process=True) as collector:
        assert collector.stats().replayed_requests > 0
    assert _rows(db_path, "SELECT count(*), count(DISTINCT name) FROM spans") == [(650, 650)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_sigterm_to_the_whole_group_drains_through_the_decoder(db_path: Path) -> None:
    """systemd and process managers signal every process of the group: the decoder leaves
    stopping to the collector, which drains through it and exits cleanly."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from tracesim.cli import main; main()", "collect"]
        + ["--db", str(db_path), "--grpc-port", "0", "--http-port", "-1"],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )
    try:
        banner = process.stdout.readline()
        endpoint = banner.split("OTLP gRPC on ", 1)[1].split(",", 1)[0]
        client = GrpcClient(endpoint)
        for r in range(5):
            client.export(trace_request([span(f"r{r}-s{i}") for i in range(40)]))
        client.close()
        os.killpg(process.pid, signal.SIGTERM)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0, err
    assert "stored 200 spans" in out
    assert "decoder process died" not in err
    assert _rows(db_path, "SELECT count(*) FROM spans") == [(200,)]
