"""Faults of the machine: short writes, ENOSPC and EIO on the spool never cost an acked span.

An OK only after the whole record is written and fsync'd; a failed write or fsync answers
UNAVAILABLE to every request waiting on it, returns the queue budget, and the collector
resumes by itself when the disk does (SPEC §9).
"""

from __future__ import annotations

import errno
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import grpc
import pytest
import tracesim.collector.spool.spool as spool_module
from tracesim.collector import Collector
from tracesim.collector.errors import Busy
from tracesim.collector.spool.spool import Spool

from tests.collector.otlp import GrpcClient, span, trace_request
from tests.tmpfs import mounted_tmpfs


def _names(db_path: Path) -> set[str]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return {row[0] for row in con.execute("SELECT name FROM spans").fetchall()}


def _records(directory: Path) -> list[int]:
    spool = Spool(directory)
    return [record.seq for record in spool.recover(0)]


def test_a_short_write_is_completed_before_the_ok(tmp_path: Path, monkeypatch: Any) -> None:
    real_write = os.write

    def short_write(fd: int, data: Any) -> int:
        return real_write(fd, bytes(data[: max(1, len(data) // 3)]))

    spool = Spool(tmp_path / "spool")
    spool.open(next_seq=1)
    monkeypatch.setattr(spool_module.os, "write", short_write)
    seqs = [spool.append(1, bytes([i]) * 1000) for i in range(3)]
    spool.sync(seqs[-1])
    monkeypatch.undo()
    spool.close()
    assert _records(tmp_path / "spool") == seqs


def test_enospc_on_write_answers_unavailable_and_resumes(db_path: Path, monkeypatch: Any) -> None:
    real_write = os.write
    failing = {"on": False}

    def write(fd: int, data: Any) -> int:
        if failing["on"]:
            real_write(fd, bytes(data[:10]))  # part of the record reaches the file
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(spool_module.os, "write", write)
    with Collector(db_path, grpc_port=0, http_port=None, max_pending_bytes=4096) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("before")]))
        failing["on"] = True
        for _ in range(5):  # more than the queue budget: each failure must return it
            with pytest.raises(grpc.RpcError) as raised:
                client.export(trace_request([span("lost", attrs={"pad": "x" * 2000})]))
            assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
        failing["on"] = False
        client.export(trace_request([span("after")]))  # resumed by itself
        client.close()
        assert collector.flush(10)
        assert collector.stats().pending_bytes == 0
    assert _names(db_path) == {"before", "after"}


def test_a_failed_fsync_fails_every_waiter(tmp_path: Path, monkeypatch: Any) -> None:
    spool = Spool(tmp_path / "spool")
    spool.open(next_seq=1)
    first = spool.append(1, b"one")
    second = spool.append(1, b"two")

    def eio(_fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(spool_module.os, "fdatasync", eio)
    with pytest.raises(Busy):
        spool.sync(second)  # one fsync for both records failed ...
    monkeypatch.undo()
    with pytest.raises(Busy):
        spool.sync(first)  # ... so the other waiter is not told OK either
    third = spool.append(1, b"three")  # and the spool goes on
    spool.sync(third)
    spool.close()
    assert third in _records(tmp_path / "spool")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs (root only; skipped otherwise)."""
    with mounted_tmpfs(tmp_path / "disk", "2m") as mount:
        yield mount


def test_a_full_disk_loses_no_acknowledged_span(db_path: Path, small_disk: Path) -> None:
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * ((2 << 20) - 200_000))  # nearly full: a few records fit
    acked: set[str] = set()
    refused = 0
    with Collector(db_path, grpc_port=0, http_port=None, spool_dir=small_disk / "spool") as c:
        client = GrpcClient(c.grpc_endpoint)
        for _ in range(40):
            name = uuid.uuid4().hex
            try:
                client.export(trace_request([span(name, attrs={"pad": "y" * 20_000})]))
                acked.add(name)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error.details()
                refused += 1
        assert refused, "the disk never filled up"
        filler.unlink()  # the disk recovers: so does the collector
        client.export(trace_request([span("recovered")]))
        acked.add("recovered")
        client.close()
        assert c.flush(10)
    assert acked <= _names(db_path)
