"""Redaction covers every text a span or log carries, before anything reaches disk (SPEC §9):
link attributes, span / event / scope names, status messages, severity text, bytes values,
attribute names (a secret in a key) of spans, events, links, resources, scopes and logs,
and the spool holds only redacted requests."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span
from tracesim.collector import Collector
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.redaction.redaction_request import redact_traces

from tests.collector.otlp import (
    GrpcClient,
    key_values,
    log_record,
    logs_request,
    span,
    trace_request,
)

EMAIL = "alice.smith@example.com"
PRESETS = ["email", "phone", "credit_card", "ssn", "ipv4"]


def _hostile_traces() -> object:
    pb2_span = span(
        f"lookup {EMAIL}",
        attrs={
            "raw": EMAIL.encode(),
            "nested": {"list": [EMAIL, 5]},
            f"visits.{EMAIL}": 3,  # a secret in a name
            f"mail {EMAIL}": "x",
        },
        status=2,
        status_message=f"no account for {EMAIL}",
    )
    event = pb2_span.events.add(name=f"mailed {EMAIL}", time_unix_nano=1)
    event.attributes.extend(key_values({"to": EMAIL, f"cc.{EMAIL}": 1}))
    link = pb2_span.links.add(trace_id=b"\1" * 16, span_id=b"\2" * 8)
    link.attributes.extend(key_values({"customer": EMAIL, f"from {EMAIL}": 1}))
    turn = span("tracesim.turn", attrs={"tracesim.chat_id": "c1", "tracesim.turn_id": 1})
    request = trace_request(
        [pb2_span, turn], scope=f"scope-of-{EMAIL}", resource={"service.name": "s", EMAIL: 1}
    )
    request.resource_spans[0].scope_spans[0].scope.attributes.extend(
        key_values({"o": EMAIL, f"owner {EMAIL}": 2})
    )
    return request


def _files_under(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_every_text_of_a_request_is_redacted_in_place() -> None:
    request = _hostile_traces()
    assert redact_traces(request, Redactor.from_config(PRESETS))
    wire = request.SerializeToString()
    assert EMAIL.encode() not in wire
    pb2_span: PB2Span = request.resource_spans[0].scope_spans[0].spans[0]
    assert pb2_span.name == "lookup [REDACTED]"
    assert request.resource_spans[0].scope_spans[0].spans[1].name == "tracesim.turn"
    names = [kv.key for kv in pb2_span.attributes]
    assert names == ["raw", "nested", "[REDACTED]", "mail [REDACTED]"]


def test_names_redacted_to_the_same_text_keep_every_value() -> None:
    redactor = Redactor.from_config(["email"])
    attrs = {"a@example.com": 1, "b@example.com": 2, "[REDACTED]": 3, "plain": 4}
    assert redactor.span(attrs) == {  # type: ignore[misc]
        "[REDACTED]": 1,
        "[REDACTED]#2": 2,
        "[REDACTED]#3": 3,
        "plain": 4,
    }
    request = trace_request([span("s", attrs=attrs)])
    redact_traces(request, redactor)
    pb2_span = request.resource_spans[0].scope_spans[0].spans[0]
    assert [kv.key for kv in pb2_span.attributes] == [
        "[REDACTED]",
        "[REDACTED]#2",
        "[REDACTED]#3",
        "plain",
    ]
    assert [kv.value.int_value for kv in pb2_span.attributes] == [1, 2, 3, 4]


def test_whole_value_rules_leave_names_alone_unless_named() -> None:
    request = _hostile_traces()
    redact_traces(request, Redactor.from_config([{"attributes": ["*"]}]))
    pb2_span = request.resource_spans[0].scope_spans[0].spans[0]
    assert pb2_span.name == f"lookup {EMAIL}"  # "*" means attribute values, not names
    assert pb2_span.attributes[0].value.string_value == "[REDACTED]"
    named = _hostile_traces()
    redact_traces(named, Redactor.from_config([{"attributes": ["span.name"]}]))
    assert named.resource_spans[0].scope_spans[0].spans[0].name == "[REDACTED]"


def test_nothing_raw_reaches_the_spool_or_the_database(tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    with Collector(db, grpc_port=0, http_port=None, redaction=PRESETS, batch_seconds=3600) as c:
        client = GrpcClient(c.grpc_endpoint)
        client.export(_hostile_traces())
        record = log_record(f"body {EMAIL}", attrs={"b": EMAIL.encode(), f"to {EMAIL}": 1})
        record.severity_text = f"WARN {EMAIL}"
        record.event_name = f"event {EMAIL}"
        client.export_logs(logs_request([record]))
        client.close()
        assert EMAIL.encode() not in _files_under(tmp_path)  # the spool, before the commit
        assert c.flush(10)
        _, rows = c.query("SELECT * FROM spans")
        _, log_rows = c.query("SELECT * FROM logs")
        assert len(rows) == 2 and len(log_rows) == 1
        assert EMAIL not in repr(rows) + repr(log_rows)
    assert EMAIL.encode() not in _files_under(tmp_path)
