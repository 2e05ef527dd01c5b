"""Acknowledged means durable: resends, restarts, SIGKILL right after the OK, torn spool tails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
from tracesim.collector import Collector
from tracesim.collector.spool.spool import Spool

from tests.collector.otlp import GrpcClient, span, trace_request

ROOT = Path(__file__).resolve().parents[2]


def _count(db_path: Path) -> tuple[int, int]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return con.execute(
            "SELECT count(*), count(DISTINCT (trace_id, span_id)) FROM spans"
        ).fetchone()


def test_resend_and_restart_keep_each_span_once(db_path: Path) -> None:
    request = trace_request([span(f"s{i}", attrs={"i": i}) for i in range(20)])
    with Collector(db_path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(request)
        client.export(request)
        client.export(trace_request(list(request.resource_spans[0].scope_spans[0].spans) * 2))
        client.close()
        assert collector.flush(10)
        assert collector.stats().spans_stored == 20
    with Collector(db_path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(request)
        client.close()
        assert collector.flush(10)
        assert collector.stats().spans_stored == 0
    assert _count(db_path) == (20, 20)


def test_shutdown_is_idempotent_and_safe_before_start(db_path: Path) -> None:
    never_started = Collector(db_path, grpc_port=0, http_port=0)
    never_started.shutdown()
    collector = Collector(db_path, grpc_port=0, http_port=0).start()
    collector.shutdown()
    collector.shutdown()


_SERVE = """
import sys, threading
from tracesim.collector import Collector
collector = Collector(sys.argv[1], grpc_port=0, http_port=None, batch_rows=300,
                      batch_seconds=3600).start()
print(collector.grpc_endpoint, flush=True)
threading.Event().wait()
"""


def test_sigkill_right_after_ack_loses_nothing(db_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(db_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        endpoint = process.stdout.readline().strip()
        assert endpoint, "collector subprocess did not start"
        client = GrpcClient(endpoint)
        requests = [trace_request([span(f"r{r}-s{i}") for i in range(50)]) for r in range(21)]
        for request in requests:
            client.export(request)  # each OK must survive
        client.export(requests[0])  # a resend
        client.close()
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    # 21 x 50 acknowledged: batches of >= 300 rows were committed, the rest only spooled
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        assert collector.stats().replayed_requests > 0
    assert _count(db_path) == (21 * 50, 21 * 50)
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        assert collector.stats().replayed_requests == 0  # replayed exactly once
    assert _count(db_path) == (21 * 50, 21 * 50)


def test_spool_ignores_torn_tail_and_releases_segments(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool", segment_bytes=100)
    spool.open(next_seq=1)
    seqs = [spool.append(1, bytes([i]) * 60) for i in range(5)]
    spool.sync(seqs[-1])
    assert seqs == [1, 2, 3, 4, 5]
    spool.close()
    segments = sorted((tmp_path / "spool").iterdir())
    assert len(segments) == 3  # 2 records of 80 bytes per 100-byte segment
    with open(segments[-1], "ab") as handle:
        handle.write(b"TS\x01\x00garbage")  # a torn record
    with open(segments[1], "r+b") as handle:
        handle.truncate(100)  # the second record of segment 2 is torn
    reopened = Spool(tmp_path / "spool")
    assert [r.seq for r in reopened.recover(after=1)] == [2, 3, 5]
    assert reopened.last_seq == 5
    reopened.drop_recovered()
    reopened.open(next_seq=6)
    assert reopened.append(1, b"x") == 6
    reopened.close()


def test_spool_release_keeps_the_current_segment(tmp_path: Path) -> None:
    spool = Spool(tmp_path, segment_bytes=10, fsync=False)
    spool.open(next_seq=1)
    for _ in range(4):
        spool.sync(spool.append(2, b"0123456789"))
    assert len(list(tmp_path.iterdir())) == 4
    spool.release(3)
    assert [p.name for p in sorted(tmp_path.iterdir())] == ["spool-00000000000000000004.log"]
    spool.release(10)
    assert len(list(tmp_path.iterdir())) == 1
    spool.close()


def test_a_fully_loaded_spool_leaves_no_folder_behind(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool", fsync=False)
    spool.open(next_seq=1)
    last = spool.append(1, b"payload")
    spool.sync(last)
    spool.close(loaded=last - 1)  # one record not loaded yet: it must stay
    assert len(list((tmp_path / "spool").iterdir())) == 1
    reopened = Spool(tmp_path / "spool", fsync=False)
    assert [r.seq for r in reopened.recover(after=0)] == [last]
    reopened.drop_recovered()
    reopened.open(next_seq=last + 1)
    reopened.close(loaded=last)  # everything loaded: nothing, not even the folder, remains
    assert not (tmp_path / "spool").exists()
