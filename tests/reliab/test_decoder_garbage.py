"""A decoder process whose answer cannot be read (tables past the end of its memfd, bytes
that are no Arrow stream: memory corruption, a bug) is killed and replaced like a dead
one, and the batch is stored through the new child: never dead-lettered as if the
request were bad.

Before: the unreadable answer was taken for a bad batch; each request was then sent
alone to the same broken child and went to the dead-letter file."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from tracesim.collector import Collector
from tracesim.collector.store import decoder_process

from tests.collector.otlp import GrpcClient, span, trace_request

_GARBAGE_FIRST = """
import os, sys
from multiprocessing.connection import Connection
from multiprocessing.reduction import send_handle
from tracesim.collector.store.decoder_process import child_main
from tracesim.collector.store.decoder_transport import read_requests
conn = Connection(int(sys.argv[1]))
flag = {flag!r}
if os.path.exists(flag):
    child_main(conn)
open(flag, "w").close()
conn.recv()
conn.send(("ready",))
while True:  # answer every batch with tables past the end of a 16-byte memfd
    message = conn.recv()
    read_requests(conn, message[1])
    fd = os.memfd_create("garbage")
    os.write(fd, b"not arrow at all")
    conn.send(("done", ([("spans", 0, 4096)], 0, 0, 0, []), []))
    send_handle(conn, fd, os.getppid())
    os.close(fd)
"""


def test_an_unreadable_answer_is_a_death_and_the_batch_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _GARBAGE_FIRST.format(flag=str(tmp_path / "garbage-sent"))
    monkeypatch.setattr(decoder_process, "_CHILD", script)
    db = tmp_path / "t.duckdb"
    with Collector(db, grpc_port=0, http_port=None, fsync=False, decoder_process=True) as c:
        client = GrpcClient(c.grpc_endpoint or "")
        try:
            client.export(trace_request([span("one"), span("two")]))
            assert c.flush(60)
        finally:
            client.close()
        stats = c.stats()
    assert stats.spans_stored == 2 and stats.dead_letters == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert sorted(r[0] for r in con.execute("SELECT name FROM spans").fetchall()) == [
            "one",
            "two",
        ]
