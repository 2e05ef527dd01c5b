"""Malformed, partially invalid, oversized, unauthenticated and overload requests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import grpc
import httpx
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

PROTOBUF = {"content-type": "application/x-protobuf"}


def _code(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code()


def test_malformed_requests(collector: Collector, client: GrpcClient) -> None:
    assert (
        _code(lambda: client.export(b"\xff\xff\xff not protobuf"))
        == grpc.StatusCode.INVALID_ARGUMENT
    )
    url = f"{collector.http_endpoint}/v1/traces"
    answer = httpx.post(url, content=b"\xff\xff\xff", headers=PROTOBUF)
    assert answer.status_code == 400 and "ExportTraceServiceRequest" in answer.json()["message"]
    answer = httpx.post(url, content=b"{not json", headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "JSON" in answer.json()["message"]
    answer = httpx.post(url, content=b"x", headers={"content-type": "text/plain"})
    assert answer.status_code == 415
    answer = httpx.post(url, content=b"not gzip", headers={**PROTOBUF, "content-encoding": "gzip"})
    assert answer.status_code == 400
    client.export(trace_request([span("fine")]))
    assert collector.query("SELECT name FROM spans")[1] == [["fine"]]


def test_invalid_spans_rejected_one_by_one(collector: Collector, client: GrpcClient) -> None:
    request = trace_request(
        [
            span("ok-1"),
            span("short-trace", trace_id=b"\x01" * 15),
            span("no-span-id", span_id=b""),
            span("ok-2"),
            span("zero-trace", trace_id=bytes(16)),
        ]
    )
    response = client.export(request)
    assert response.partial_success.rejected_spans == 3
    assert "short-trace" in response.partial_success.error_message
    answer = httpx.post(
        f"{collector.http_endpoint}/v1/traces",
        json={
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": "zz" * 16,
                                    "spanId": "00f067aa0ba902b7",
                                    "name": "bad-hex",
                                },
                                {
                                    "traceId": "ab" * 16,
                                    "spanId": "00f067aa0ba902",
                                    "name": "short-hex",
                                },
                                {
                                    "traceId": "ab" * 16,
                                    "spanId": "00f067aa0ba902b7",
                                    "name": "ok-json",
                                },
                            ]
                        }
                    ]
                }
            ]
        },
    )
    assert answer.status_code == 200
    assert answer.json()["partialSuccess"]["rejectedSpans"] == "2"
    http = httpx.post(
        f"{collector.http_endpoint}/v1/traces",
        content=request.SerializeToString(),
        headers=PROTOBUF,
    )
    parsed = ExportTraceServiceResponse.FromString(http.content)
    assert parsed.partial_success.rejected_spans == 3
    _, rows = collector.query("SELECT name FROM spans ORDER BY name")
    assert rows == [["ok-1"], ["ok-2"], ["ok-json"]]
    assert collector.stats().rejected_spans == 8


def test_invalid_log_records_rejected_one_by_one(collector: Collector, client: GrpcClient) -> None:
    request = logs_request(
        [
            log_record("ok-1", trace_id=b"\x01" * 16, span_id=b"\x02" * 8),
            log_record("short-trace", trace_id=b"\x01" * 15),
            log_record("long-span", span_id=b"\x02" * 9),
            log_record("ok-2"),
        ]
    )
    response = client.export_logs(request)
    assert response.partial_success.rejected_log_records == 2
    assert "trace_id must be empty or 16 bytes" in response.partial_success.error_message
    http = httpx.post(
        f"{collector.http_endpoint}/v1/logs", content=request.SerializeToString(), headers=PROTOBUF
    )
    assert (
        ExportLogsServiceResponse.FromString(http.content).partial_success.rejected_log_records == 2
    )
    assert collector.flush(10)
    _, rows = collector.query("SELECT DISTINCT body FROM logs")
    assert sorted(json.loads(row[0]) for row in rows) == ["ok-1", "ok-2"]  # bodies are JSON
    assert collector.stats().rejected_logs == 4


def test_oversized_requests(db_path: Path) -> None:
    limit = 64 << 10
    big = trace_request([span("big", attrs={"blob": "x" * (limit * 2)})])
    with Collector(db_path, grpc_port=0, http_port=0, max_request_bytes=limit) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        assert _code(lambda: client.export(big)) == grpc.StatusCode.RESOURCE_EXHAUSTED
        url = f"{collector.http_endpoint}/v1/traces"
        assert httpx.post(url, content=big.SerializeToString(), headers=PROTOBUF).status_code == 413
        bomb = gzip.compress(big.SerializeToString())  # small on the wire, big inflated
        assert len(bomb) < limit
        answer = httpx.post(url, content=bomb, headers={**PROTOBUF, "content-encoding": "gzip"})
        assert answer.status_code == 413
        small = trace_request([span("small")])
        client.export(small)
        zipped = gzip.compress(trace_request([span("small-gz")]).SerializeToString())
        answer = httpx.post(url, content=zipped, headers={**PROTOBUF, "content-encoding": "gzip"})
        assert answer.status_code == 200
        client.close()
        assert collector.query("SELECT name FROM spans ORDER BY name")[1] == [
            ["small"],
            ["small-gz"],
        ]


def test_bearer_token(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=0, auth_token="s3cret") as collector:
        request = trace_request([span("authed")])
        for token in (None, "wrong"):
            client = GrpcClient(collector.grpc_endpoint, token=token)
            assert _code(lambda c=client: c.export(request)) == grpc.StatusCode.UNAUTHENTICATED
            client.close()
        url = collector.http_endpoint
        body = request.SerializeToString()
        assert httpx.post(f"{url}/v1/traces", content=body, headers=PROTOBUF).status_code == 401
        wrong = {**PROTOBUF, "authorization": "Bearer nope"}
        assert httpx.post(f"{url}/v1/traces", content=body, headers=wrong).status_code == 401
        query = {"sql": "SELECT 1"}
        assert httpx.post(f"{url}/tracesim/query", json=query).status_code == 401
        client = GrpcClient(collector.grpc_endpoint, token="s3cret")
        client.export(request)
        client.close()
        good = {"authorization": "Bearer s3cret"}
        answer = httpx.post(
            f"{url}/tracesim/query", json={"sql": "SELECT name FROM spans"}, headers=good
        )
        assert answer.json()["rows"] == [["authed"]]


def test_full_queue_answers_unavailable_and_loses_nothing(db_path: Path) -> None:
    with Collector(
        db_path, grpc_port=0, http_port=0, max_pending_bytes=1, batch_rows=10**9, batch_seconds=3600
    ) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("accepted-1")]))  # fills the 1-byte budget
        refused = trace_request([span("refused")])
        assert _code(lambda: client.export(refused)) == grpc.StatusCode.UNAVAILABLE
        answer = httpx.post(
            f"{collector.http_endpoint}/v1/traces",
            content=refused.SerializeToString(),
            headers=PROTOBUF,
        )
        assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
        assert collector.flush(10)  # commits and frees the budget
        client.export(trace_request([span("accepted-2")]))
        client.close()
        assert collector.stats().busy_answers == 2
        _, rows = collector.query("SELECT name FROM spans ORDER BY name")
    assert rows == [["accepted-1"], ["accepted-2"]]
