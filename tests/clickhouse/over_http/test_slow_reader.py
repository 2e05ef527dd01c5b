"""ClickHouse aborts a query whose client reads nothing for `http_send_timeout` (30 s) while
its answer fills the socket buffers; the evaluation holds its span stream open while it
scores a chunk (LLM judges: minutes). HttpClient therefore drains a stream as the server
sends it, and the evaluation reads it at its own pace."""

from __future__ import annotations

from pathlib import Path

import pytest
from tracesim.evaluator.store import parse_store_url
from tracesim.evaluator.store.clickhouse_client import HttpClient
from tracesim.evaluator.store.http_spool import Spool

from tests.clickhouse.chdb_http import ChdbHttpServer

_ROWS = 600_000  # ~70 MB of Arrow: more than the socket buffers hold (4 + 32 MB here)


def test_the_server_sends_a_stream_whole_while_the_reader_holds_one_batch(
    tmp_path: Path,
) -> None:
    server = ChdbHttpServer(tmp_path / "ch", user="u", password="p").start()
    try:
        client = HttpClient(parse_store_url(server.url("default")))
        try:
            batches = client.stream(
                "SELECT number, randomPrintableASCII(100) AS pad FROM numbers({n:UInt64}) "
                "SETTINGS output_format_arrow_compression_method = 'none'",
                {"n": _ROWS},
            )
            rows = next(batches).num_rows
            # the evaluation is busy with this batch; the server must not wait on it
            assert server.wait_for_answer(60_000_000, timeout=60)
            rows += sum(batch.num_rows for batch in batches)
            assert rows == _ROWS
        finally:
            client.close()
    finally:
        server.shutdown()


class _Answer:
    """An HTTP answer whose connection breaks after `parts`."""

    def __init__(self, *parts: bytes) -> None:
        self.parts, self.closed = list(parts), False

    def read(self, size: int) -> bytes:
        if self.parts:
            return self.parts.pop(0)
        raise ConnectionResetError("connection reset by peer")

    def close(self) -> None:
        self.closed = True


def test_spool_hands_over_what_arrived_then_the_failure() -> None:
    answer = _Answer(b"abc", b"def")
    with Spool(answer) as spool:
        data = b""
        while len(data) < 6:
            data += spool.read(6 - len(data))
        assert data == b"abcdef"
        with pytest.raises(ConnectionResetError, match="reset by peer"):
            spool.read(1)
    assert answer.closed
