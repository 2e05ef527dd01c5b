"""SPEC §9: the collector listens on 127.0.0.1 unless told otherwise, and the bearer token
guards every endpoint (both OTLP signals on both transports, and the query endpoint)."""

from __future__ import annotations

import socket
from pathlib import Path

import grpc
import httpx
import pytest
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

PROTOBUF = {"content-type": "application/x-protobuf"}


def _port(endpoint: str | None) -> int:
    assert endpoint is not None
    return int(endpoint.rsplit(":", 1)[1])


def test_by_default_only_loopback_127_0_0_1_is_listened_on(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=0) as running:
        for port in (_port(running.grpc_endpoint), _port(running.http_endpoint)):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
            # another loopback address reaches a socket bound to 0.0.0.0, not to 127.0.0.1
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.2", port), timeout=10)


def test_every_endpoint_refuses_a_missing_or_wrong_token(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=0, auth_token="s3cret") as running:
        traces = trace_request([span("refused")])
        logs = logs_request([log_record("refused")])
        for token in (None, "wrong", "s3cre"):  # a prefix of the right one too
            client = GrpcClient(running.grpc_endpoint or "", token=token)
            for call, request in ((client.export, traces), (client.export_logs, logs)):
                with pytest.raises(grpc.RpcError) as caught:
                    call(request)
                assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
            client.close()
            headers = {**PROTOBUF, **({"authorization": f"Bearer {token}"} if token else {})}
            url = running.http_endpoint
            for path, request in (("/v1/traces", traces), ("/v1/logs", logs)):
                body = request.SerializeToString()
                assert httpx.post(f"{url}{path}", content=body, headers=headers).status_code == 401
            query = httpx.post(f"{url}/tracesim/query", json={"sql": "SELECT 1"}, headers=headers)
            assert query.status_code == 401
        assert running.flush(10)
        assert running.query("SELECT count(*) FROM spans")[1] == [[0]]
        assert running.query("SELECT count(*) FROM logs")[1] == [[0]]
