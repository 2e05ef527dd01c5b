"""The live store routes against hostile clients (SPEC §9 "memory is bounded in bytes";
"malformed requests: a clear 400"): Arrow bodies that would inflate once decoded
(compressed, dictionary-encoded) are refused before they are; a header nested past the
JSON parser's depth is a 400, not a 500; tables a query sent are gone once it is answered;
two evaluations writing the same keys at once both succeed.

Before: a 600-byte zstd body decoded to 8 MB past a 64 KB limit, a 1 MB dictionary column
was 50 MB of text once read, and a deep header was a 500."""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pytest
from tracesim.collector import Collector
from tracesim.schemas.frames import FRAMES, encode_frames

TOKEN = "hostile-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": FRAMES}


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Collector]:
    with Collector(
        tmp_path / "h.duckdb",
        grpc_port=None,
        http_port=0,
        auth_token=TOKEN,
        max_request_bytes=1 << 16,
        query_workers=1,  # one worker: the next request runs where the last one did
    ) as collector:
        yield collector


def _post(collector: Collector, route: str, body: bytes) -> httpx.Response:
    return httpx.post(f"{collector.http_endpoint}{route}", content=body, headers=AUTH, timeout=60)


def _ipc(table: pa.Table, compression: str | None = None) -> bytes:
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _framed(header: dict[str, Any], streams: list[bytes]) -> bytes:
    head = encode_frames({**header}, [])[8:]  # the JSON header as encode_frames writes it
    head = head.replace(b'"tables": 0', f'"tables": {len(streams)}'.encode())
    parts = [b"TSF1", struct.pack(">I", len(head)), head]
    for stream in streams:
        parts += [struct.pack(">Q", len(stream)), stream]
    return b"".join(parts)


@pytest.mark.parametrize("compression", ["zstd", "lz4"])
def test_compressed_arrow_is_refused_before_it_inflates(
    running: Collector, compression: str
) -> None:
    zeros = pa.table({"k": pa.array([0] * 1_000_000, pa.int64())})  # 8 MB decoded
    stream = _ipc(zeros, compression)
    assert len(stream) < 40_000  # within the 64 KB body limit
    header = {"sql": "SELECT count(*) FROM _tracesim_in", "params": [], "inputs": ["_tracesim_in"]}
    answer = _post(running, "/tracesim/arrow", _framed(header, [stream]))
    assert answer.status_code == 400, answer.text
    assert "compressed" in answer.json()["message"]
    writes = {"writes": [{"table": "runs", "rows": 0}]}
    assert _post(running, "/tracesim/write", _framed(writes, [stream])).status_code == 400


def test_dictionary_encoded_columns_are_refused(running: Collector) -> None:
    big = pa.DictionaryArray.from_arrays(pa.array([0] * 10_000, pa.int8()), pa.array(["x" * 5000]))
    stream = _ipc(pa.table({"eval_id": big}))
    assert len(stream) < 1 << 16  # 50 MB of text once expanded
    header = {"sql": "SELECT eval_id FROM _tracesim_in", "inputs": ["_tracesim_in"]}
    answer = _post(running, "/tracesim/arrow", _framed(header, [stream]))
    assert answer.status_code == 400 and "dictionary" in answer.json()["message"], answer.text


def test_a_header_nested_past_the_parser_is_a_400(running: Collector) -> None:
    head = b"[" * 30_000 + b"]" * 30_000
    body = b"TSF1" + struct.pack(">I", len(head)) + head
    answer = _post(running, "/tracesim/arrow", body)
    assert answer.status_code == 400 and "nested too deeply" in answer.json()["message"]


def test_tables_a_query_sent_are_gone_after_its_answer(running: Collector) -> None:
    secret = pa.table({"v": ["someone else's rows"]})
    header = {"sql": "SELECT v FROM _tracesim_secret", "inputs": ["_tracesim_secret"]}
    body = encode_frames(header, [secret])
    assert _post(running, "/tracesim/arrow", body).status_code == 200
    later = _post(
        running, "/tracesim/arrow", encode_frames({"sql": "SELECT v FROM _tracesim_secret"}, [])
    )
    assert later.status_code == 400, later.content[:200]
    assert "someone else" not in later.text


def test_two_evaluations_writing_the_same_keys_at_once_both_succeed(
    running: Collector,
) -> None:
    def rows(tag: str) -> pa.Table:
        return pa.table({"eval_id": [f"e{i}" for i in range(200)], "run_id": [tag] * 200})

    answers: list[int] = []
    start = threading.Barrier(4)

    def write(tag: str) -> None:
        body = encode_frames(
            {"writes": [{"table": "runs", "delete": [f"e{i}" for i in range(200)], "rows": 0}]},
            [rows(tag)],
        )
        start.wait()
        answers.append(_post(running, "/tracesim/write", body).status_code)

    threads = [threading.Thread(target=write, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200] * 4
    assert running.query("SELECT count(*), count(DISTINCT run_id) FROM runs")[1] == [[200, 1]]
