"""OTLP/HTTP against slow clients (attack round 6). Before: uvicorn has no read timeout, so
a client that sent half a request head, or declared a body and trickled it, held its
connection and its bytes of the in-flight budget forever; five such clients made every
good export answer 503 for as long as they stayed. Now each request must arrive whole
within the read timeout: the connection is cut, counted, said by `collect`, and its bytes
released, so a good export is stored."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tracesim.collector import Collector
from tracesim.collector.receivers.http_read_guard import ReadGuard

from tests.collector.otlp import span, trace_request

BODY = trace_request([span("ok")]).SerializeToString()
LIMIT = 1000


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[Collector]:
    with Collector(
        tmp_path / "t.duckdb",
        grpc_port=None,
        http_port=0,
        fsync=False,
        max_request_bytes=LIMIT,
        http_read_timeout=1.0,
    ) as running:
        yield running


def _port(collector: Collector) -> int:
    return int((collector.http_endpoint or "").rsplit(":", 1)[1])


def _post(collector: Collector) -> int:
    con = http.client.HTTPConnection("127.0.0.1", _port(collector), timeout=60)
    try:
        con.request("POST", "/v1/traces", body=BODY, headers={"Content-Type": _PB})
        answer = con.getresponse()
        answer.read()
        return answer.status
    finally:
        con.close()


_PB = "application/x-protobuf"


def _closed_by_server(sock: socket.socket) -> bool:
    """True once the server closed the connection (EOF), False if it answered instead.
    The socket timeout only guards against a server that never cuts (the bug)."""
    sock.settimeout(60)
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True


def test_a_half_sent_head_is_cut_and_counted(collector: Collector) -> None:
    with socket.create_connection(("127.0.0.1", _port(collector))) as sock:
        sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: applic")
        assert _closed_by_server(sock)
    assert collector.stats().cut_requests == 1


def test_a_silent_connection_is_cut(collector: Collector) -> None:
    with socket.create_connection(("127.0.0.1", _port(collector))) as sock:
        assert _closed_by_server(sock)
    assert collector.stats().cut_requests == 1


def test_trickled_bodies_release_the_in_flight_budget(collector: Collector) -> None:
    head = (
        f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: {_PB}\r\n"
        f"Content-Length: {LIMIT}\r\n\r\n"
    ).encode()
    stalled = [socket.create_connection(("127.0.0.1", _port(collector))) for _ in range(4)]
    try:
        for sock in stalled:  # 4 x 990 bytes held: a good export of 95 would pass the budget
            sock.sendall(head + b"\0" * 990)
        for sock in stalled:
            assert _closed_by_server(sock)
    finally:
        for sock in stalled:
            sock.close()
    assert _post(collector) == 200
    assert collector.flush(30)
    stats = collector.stats()
    assert stats.spans_stored == 1
    assert stats.cut_requests == 4


def test_keep_alive_requests_each_get_their_own_time(collector: Collector) -> None:
    con = http.client.HTTPConnection("127.0.0.1", _port(collector), timeout=60)
    try:
        for _ in range(3):
            con.request("POST", "/v1/traces", body=BODY, headers={"Content-Type": _PB})
            answer = con.getresponse()
            answer.read()
            assert answer.status == 200
    finally:
        con.close()
    assert collector.stats().cut_requests == 0


def test_collect_says_how_many_were_cut() -> None:
    from tracesim.collector.stats import CollectorStats

    from tracesim.damage_lines import damage_lines

    stats = CollectorStats(0, 0, 0, 0, 0, 0, 0, 0, 0, cut_requests=3)
    assert any("3 request(s) cut" in line for line in damage_lines(stats, "t.duckdb"))


def test_a_read_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        ReadGuard(0)


def test_a_stalled_client_over_tls_is_cut_too(tmp_path: Path) -> None:
    """The deadline starts once TLS is up (asyncio bounds the handshake itself)."""
    import ssl

    from tests.tls_certs import self_signed_cert

    cert, key = self_signed_cert(tmp_path / "tls")
    with Collector(
        tmp_path / "t.duckdb", grpc_port=None, http_port=0, fsync=False,
        tls_cert=cert, tls_key=key, http_read_timeout=1.0,
    ) as running:  # fmt: skip
        context = ssl.create_default_context(cafile=str(cert))
        with socket.create_connection(("127.0.0.1", _port(running))) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
                sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\n")
                sock.settimeout(60)
                try:
                    assert sock.recv(4096) == b""
                except (ConnectionResetError, ssl.SSLError):
                    pass
        assert running.stats().cut_requests == 1
