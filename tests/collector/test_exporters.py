"""Official OTel SDK exporters and raw OTLP/JSON land in `spans` / `logs` intact, exactly once."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode
from tracesim.collector import Collector

from tests.collector.otlp import log_record, logs_request


def _emit(exporter: object) -> None:
    """Three spans (one with an event, one an error) through an SDK provider."""
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-x", "env": "t"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("my.scope")
    with tracer.start_as_current_span(
        "invoke_agent", kind=SpanKind.SERVER, attributes={"gen_ai.operation.name": "invoke_agent"}
    ):
        with tracer.start_as_current_span(
            "chat gpt",
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.request.model": "gpt-x",
                "gen_ai.usage.input_tokens": 12,
                "gen_ai.usage.output_tokens": 3,
                "temperature": 0.5,
                "stream": False,
                "tags": ["a", "b"],
            },
        ) as model_span:
            model_span.add_event("gen_ai.choice", {"index": 0})
        with tracer.start_as_current_span("execute_tool lookup") as tool_span:
            tool_span.set_status(Status(StatusCode.ERROR, "boom"))
    provider.shutdown()


def _check(collector: Collector) -> None:
    assert collector.flush(10)
    _, rows = collector.query(
        "SELECT name, kind, status_code, status_message, service_name, scope_name, operation, "
        "tool_name, model, input_tokens, output_tokens, attributes, resource_attributes, events, "
        "parent_span_id IS NULL FROM spans ORDER BY name"
    )
    by_name = {row[0]: row for row in rows}
    assert sorted(by_name) == ["chat gpt", "execute_tool lookup", "invoke_agent"]
    assert len(rows) == 3
    chat = by_name["chat gpt"]
    assert chat[1:6] == ["CLIENT", "UNSET", None, "agent-x", "my.scope"]
    assert chat[6:11] == [None, None, "gpt-x", 12, 3]
    attrs = json.loads(chat[11])
    assert attrs["temperature"] == 0.5 and attrs["stream"] is False and attrs["tags"] == ["a", "b"]
    assert json.loads(chat[12])["env"] == "t"
    events = json.loads(chat[13])
    assert events[0]["name"] == "gen_ai.choice" and events[0]["attributes"] == {"index": 0}
    tool = by_name["execute_tool lookup"]
    assert tool[2:4] == ["ERROR", "boom"] and tool[6:8] == ["execute_tool", "lookup"]
    root = by_name["invoke_agent"]
    assert root[1] == "SERVER" and root[6] == "invoke_agent" and root[14] is True


def test_sdk_grpc_exporter(collector: Collector) -> None:
    _emit(GrpcExporter(endpoint=collector.grpc_endpoint, insecure=True))
    _check(collector)


def test_sdk_grpc_exporter_with_gzip(collector: Collector) -> None:
    from grpc import Compression

    _emit(
        GrpcExporter(endpoint=collector.grpc_endpoint, insecure=True, compression=Compression.Gzip)
    )
    _check(collector)


def test_sdk_http_exporter(collector: Collector) -> None:
    _emit(HttpExporter(endpoint=f"{collector.http_endpoint}/v1/traces"))
    _check(collector)


def _json_body(trace_id: str, span_ids: list[str]) -> dict:
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "js"}}]
                },
                "scopeSpans": [
                    {
                        "scope": {"name": "json-scope"},
                        "spans": [
                            {
                                "traceId": trace_id,
                                "spanId": span_id,
                                "name": f"span-{i}",
                                "kind": "SPAN_KIND_CLIENT" if i else 3,
                                "startTimeUnixNano": "1700000000000000000",
                                "endTimeUnixNano": "1700000000500000000",
                                "attributes": [
                                    {
                                        "key": "gen_ai.usage.input_tokens",
                                        "value": {"intValue": "42"},
                                    },
                                    {
                                        "key": "tracesim.chat_id",
                                        "value": {"stringValue": "chat-json"},
                                    },
                                    {"key": "tracesim.turn_id", "value": {"stringValue": "2"}},
                                    {
                                        "key": "obj",
                                        "value": {
                                            "kvlistValue": {
                                                "values": [
                                                    {"key": "k", "value": {"doubleValue": 1.5}}
                                                ]
                                            }
                                        },
                                    },
                                ],
                                "status": {"code": 2, "message": "bad"},
                            }
                            for i, span_id in enumerate(span_ids)
                        ],
                    }
                ],
            }
        ]
    }


def test_raw_otlp_json(collector: Collector) -> None:
    trace_id = "0AF7651916CD43DD8448EB211C80319C"
    body = _json_body(trace_id, ["B7AD6B7169203331", "00f067aa0ba902b7"])
    url = f"{collector.http_endpoint}/v1/traces"
    answer = httpx.post(url, json=body)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == {}
    gz = httpx.post(
        url,
        content=gzip.compress(json.dumps(body).encode()),
        headers={"content-type": "application/json", "content-encoding": "gzip"},
    )
    assert gz.status_code == 200
    _, rows = collector.query(
        "SELECT trace_id, span_id, kind, input_tokens, chat_id, turn_id, status_code, "
        "attributes->>'$.obj.k', duration_ms FROM spans ORDER BY span_id"
    )
    assert rows == [
        [trace_id.lower(), "00f067aa0ba902b7", "CLIENT", 42, "chat-json", 2, "ERROR", "1.5", 500.0],
        [trace_id.lower(), "b7ad6b7169203331", "CLIENT", 42, "chat-json", 2, "ERROR", "1.5", 500.0],
    ]


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_logs(collector: Collector, transport: str) -> None:
    from tests.collector.otlp import GrpcClient

    trace_id = bytes(range(16))
    request = logs_request(
        [
            log_record(
                "hello",
                trace_id=trace_id,
                span_id=bytes(range(8)),
                attrs={"tracesim.chat_id": "c-log", "tracesim.turn_id": 1},
            ),
            log_record("world"),
        ]
    )
    for _ in range(2):  # a resend is stored once
        if transport == "grpc":
            grpc_client = GrpcClient(collector.grpc_endpoint)
            grpc_client.export_logs(request)
            grpc_client.close()
        else:
            answer = httpx.post(
                f"{collector.http_endpoint}/v1/logs",
                content=request.SerializeToString(),
                headers={"content-type": "application/x-protobuf"},
            )
            assert answer.status_code == 200
            assert answer.headers["content-type"] == "application/x-protobuf"
    _, rows = collector.query(
        "SELECT body, trace_id, chat_id, turn_id, severity_text, service_name FROM logs ORDER BY body"
    )
    assert rows == [
        ['"hello"', trace_id.hex(), "c-log", 1, "INFO", "test"],
        ['"world"', None, None, None, "INFO", "test"],
    ]
    assert collector.stats().logs_stored == 2


def test_sdk_log_exporter(collector: Collector) -> None:
    from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

    provider = LoggerProvider(resource=Resource.create({"service.name": "logger"}))
    provider.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(endpoint=collector.grpc_endpoint, insecure=True))
    )
    import logging

    from opentelemetry.sdk._logs import LoggingHandler

    logger = logging.getLogger("tracesim.tests.otel")
    logger.propagate = False
    logger.addHandler(LoggingHandler(logger_provider=provider))
    logger.warning("tool failed", extra={"session.id": "sess-1"})
    provider.shutdown()
    _, rows = collector.query("SELECT body, severity_text, chat_id, service_name FROM logs")
    assert rows == [['"tool failed"', "WARN", "sess-1", "logger"]]
