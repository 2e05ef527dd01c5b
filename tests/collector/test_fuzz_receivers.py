"""Bounded, seeded fuzz of both receivers: every span acknowledged is stored.

Valid requests carrying hostile values (numbers past int64, timestamps past 2262, deep
values, bad ids) are mutated (bit flips, truncation, splices) and sent over gRPC and
OTLP/HTTP (protobuf, some gzip'd). For each OK answer, the spans the collector could
parse and accept are expected in DuckDB afterwards; the collector must keep answering.
"""

from __future__ import annotations

import gzip
import json
import random
from typing import Any

import grpc
import httpx
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector import Collector
from tracesim.collector.decode.decode import span_is_valid
from tracesim.collector.decode.decode_logs import log_is_valid

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

SEED = 20261123
REQUESTS = 150  # per receiver: a few seconds in all

_HOSTILE: list[Any] = [
    "100000000000000000000",
    -1e30,
    2**63 - 1,
    "",
    "x" * 3000,
    b"\x00\xff" * 10,
    {"nested": [{"deep": ["v", 1, 2.5, None]}]},
    float("nan"),
]
_KEYS = [
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "tracesim.chat_id",
    "tracesim.turn_id",
    "tracesim.num_turns",
    "gen_ai.tool.name",
    "payload",
]


def _request(rng: random.Random) -> bytes:
    spans = []
    for _ in range(rng.randint(1, 6)):
        attrs = {rng.choice(_KEYS): rng.choice(_HOSTILE) for _ in range(rng.randint(0, 4))}
        if any(isinstance(v, float) and v != v for v in attrs.values()):
            attrs = {k: (0.5 if isinstance(v, float) and v != v else v) for k, v in attrs.items()}
        name = rng.choice(["op", "tracesim.turn", "tracesim.conversation", "execute_tool t"])
        pb2_span = span(name, attrs=attrs, start=rng.choice([1, 1_700_000_000 * 10**9, 2**63]))
        pb2_span.end_time_unix_nano = rng.choice([0, 2**64 - 1, pb2_span.start_time_unix_nano])
        spans.append(pb2_span)
    return trace_request(spans).SerializeToString()


def _mutate(rng: random.Random, data: bytes) -> bytes:
    raw = bytearray(data)
    choice = rng.random()
    if choice < 0.4:
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    elif choice < 0.55:
        del raw[rng.randrange(len(raw)) :]
    elif choice < 0.65:
        at = rng.randrange(len(raw))
        raw[at:at] = rng.randbytes(rng.randint(1, 8))
    return bytes(raw)  # else: unchanged


def _accepted(payload: bytes) -> set[tuple[bytes, bytes]]:
    """(trace_id, span_id) of the spans a collector that parsed `payload` would keep."""
    try:
        request = ExportTraceServiceRequest.FromString(payload)
    except (DecodeError, ValueError, RuntimeError):
        return set()
    return {
        (s.trace_id, s.span_id)
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
        if span_is_valid(s)
    }


def test_every_acknowledged_span_is_stored(db_path: Any) -> None:
    rng = random.Random(SEED)
    acked: set[tuple[bytes, bytes]] = set()
    with Collector(db_path, grpc_port=0, http_port=0, batch_seconds=0.05) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        url = f"{collector.http_endpoint}/v1/traces"
        with httpx.Client(timeout=30) as http:
            for index in range(2 * REQUESTS):
                payload = _mutate(rng, _request(rng))
                if index % 2 == 0:
                    try:
                        client.export(payload)
                    except grpc.RpcError as error:
                        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
                        continue
                else:
                    zipped = rng.random() < 0.3
                    answer = http.post(
                        url,
                        content=gzip.compress(payload) if zipped else payload,
                        headers={
                            "content-type": "application/x-protobuf",
                            **({"content-encoding": "gzip"} if zipped else {}),
                        },
                    )
                    assert answer.status_code in (200, 400), answer.text
                    if answer.status_code != 200:
                        continue
                acked |= _accepted(payload)
        client.close()
        assert collector.flush(30)
        _, rows = collector.query("SELECT trace_id, span_id FROM spans")
        assert collector.stats().dead_letters == 0
    stored = {(bytes.fromhex(t), bytes.fromhex(s)) for t, s in rows}
    assert acked, "the fuzz acknowledged nothing: it tests nothing"
    assert acked <= stored, f"{len(acked - stored)} acknowledged spans were not stored"


def _logs_payload(rng: random.Random) -> bytes:
    records = []
    for _ in range(rng.randint(1, 5)):
        record = log_record(
            f"log-{rng.getrandbits(64):016x}",
            attrs={rng.choice(_KEYS): rng.choice(_HOSTILE[:3]) for _ in range(rng.randint(0, 3))},
            time=rng.choice([0, 1, 2**63, 2**64 - 1]),
        )
        record.observed_time_unix_nano = rng.choice([0, 2**64 - 1])
        record.severity_number = rng.choice([0, 9, 24])
        records.append(record)
    return logs_request(records).SerializeToString()


def _accepted_logs(payload: bytes) -> set[str]:
    """Bodies (strings) of the log records a collector that parsed `payload` would keep."""
    try:
        request = ExportLogsServiceRequest.FromString(payload)
    except (DecodeError, ValueError, RuntimeError):
        return set()
    return {
        record.body.string_value
        for rl in request.resource_logs
        for sl in rl.scope_logs
        for record in sl.log_records
        if log_is_valid(record) and record.body.string_value
    }


def test_every_acknowledged_log_record_is_stored(db_path: Any) -> None:
    rng = random.Random(SEED + 1)
    acked: set[str] = set()
    with Collector(db_path, grpc_port=0, http_port=0, batch_seconds=0.05) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        url = f"{collector.http_endpoint}/v1/logs"
        with httpx.Client(timeout=30) as http:
            for index in range(REQUESTS):
                payload = _mutate(rng, _logs_payload(rng))
                if index % 2 == 0:
                    try:
                        client.export_logs(payload)
                    except grpc.RpcError as error:
                        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
                        continue
                else:
                    answer = http.post(
                        url, content=payload, headers={"content-type": "application/x-protobuf"}
                    )
                    assert answer.status_code in (200, 400), answer.text
                    if answer.status_code != 200:
                        continue
                acked |= _accepted_logs(payload)
        client.close()
        assert collector.flush(30)
        _, rows = collector.query("SELECT body FROM logs")
    stored = {json.loads(body) for (body,) in rows if body is not None}
    assert acked, "the fuzz acknowledged nothing: it tests nothing"
    assert acked <= stored, f"{len(acked - stored)} acknowledged log records were not stored"
