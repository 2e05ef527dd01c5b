"""OTLP/HTTP against hostile clients (attack round 5; these held without a change, kept as
guards): a wrong or missing Content-Type is a 415 naming the two accepted; a body that is
not what its type says, or nested gzip, a 400 naming the problem; unknown encodings a 400;
and hundreds of connections that send half a request and stall (slowloris) do not keep a
well-formed export from being answered and stored."""

from __future__ import annotations

import gzip
import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tracesim.collector import Collector

from tests.collector.otlp import span, trace_request


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[Collector]:
    with Collector(tmp_path / "t.duckdb", grpc_port=None, http_port=0, fsync=False) as running:
        yield running


def _post(collector: Collector, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    port = int((collector.http_endpoint or "").rsplit(":", 1)[1])
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        con.request("POST", "/v1/traces", body=body, headers=headers)
        answer = con.getresponse()
        return answer.status, answer.read()
    finally:
        con.close()


PROTOBUF = trace_request([span("ok")]).SerializeToString()
JSON = json.dumps({"resourceSpans": []}).encode()


@pytest.mark.parametrize(
    ("headers", "body", "status", "said"),
    [
        ({"Content-Type": "text/plain"}, PROTOBUF, 415, "use application/x-protobuf or"),
        ({}, PROTOBUF, 415, "unsupported Content-Type"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, PROTOBUF, 415, "multipart"),
        ({"Content-Type": "application/x-protobuf"}, JSON, 400, "not a valid Export"),
        ({"Content-Type": "application/json"}, PROTOBUF, 400, "not valid JSON"),
        ({"Content-Type": "application/json", "Content-Encoding": "br"}, JSON, 400, "'br'"),
        (
            {"Content-Type": "application/json", "Content-Encoding": "gzip"},
            gzip.compress(gzip.compress(JSON)),
            400,
            "not valid JSON",
        ),
    ],
)
def test_bodies_not_what_they_say_are_refused_with_the_reason(
    collector: Collector, headers: dict[str, str], body: bytes, status: int, said: str
) -> None:
    code, answer = _post(collector, body, headers)
    assert code == status, answer
    assert said in answer.decode()


def test_half_sent_requests_do_not_stall_a_good_export(collector: Collector) -> None:
    port = int((collector.http_endpoint or "").rsplit(":", 1)[1])
    stalled = []
    try:
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(
                b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                b"Content-Length: 100000\r\n"
            )
            stalled.append(sock)
        code, _ = _post(collector, PROTOBUF, {"Content-Type": "application/x-protobuf"})
        assert code == 200
        assert collector.flush(30)
        assert collector.stats().spans_stored == 1
    finally:
        for sock in stalled:
            sock.close()
