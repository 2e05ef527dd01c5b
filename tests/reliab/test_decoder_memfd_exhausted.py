"""A batch the collector cannot hand to its decoder process for want of a memfd (file
descriptors or memory exhausted: the machine's fault) is decoded in the collector's own
process and stored, never dead-lettered as if the request were bad (SPEC §9: faults of
the machine lose nothing acknowledged, and the collector goes on by itself).

Before: each such batch restarted a healthy child four times, then went to the dead-letter
file as "could not be decoded"; its spans were never stored."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import duckdb
import pytest
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request


def test_no_memfd_decodes_here_and_stores_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "t.duckdb"
    real = os.memfd_create
    exhausted = {"on": False}

    def memfd_create(name: str, flags: int = 0) -> int:
        if exhausted["on"]:
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        return real(name, flags)

    monkeypatch.setattr(os, "memfd_create", memfd_create)
    with Collector(db, grpc_port=0, http_port=None, fsync=False, decoder_process=True) as c:
        client = GrpcClient(c.grpc_endpoint or "")
        try:
            client.export(trace_request([span("before")]))
            assert c.flush(30)
            exhausted["on"] = True
            client.export(trace_request([span("during")]))
            assert c.flush(60)
            exhausted["on"] = False
            client.export(trace_request([span("after")]))
            assert c.flush(60)
        finally:
            client.close()
        stats = c.stats()
    assert stats.spans_stored == 3 and stats.dead_letters == 0
    assert not (tmp_path / "t.duckdb.deadletter.jsonl").exists()
    with duckdb.connect(str(db), read_only=True) as con:
        names = [r[0] for r in con.execute("SELECT name FROM spans ORDER BY name").fetchall()]
    assert names == ["after", "before", "during"]
