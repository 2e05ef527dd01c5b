"""Redaction (SPEC §9) on every path a span or a log record takes into the store (attack
round 6): OTLP/HTTP protobuf and JSON (plain and gzip'd), and `tracesim import` of each
of the five file formats. A secret put in every place a span or log carries text (names,
trace states, scope name and version, resource, span, event, link and log attributes,
their keys, status messages, log bodies of every shape, severity text, a baggage-derived
attribute, a span rejected for its bad id) must never reach a file on disk: the
database, its WAL, the spool, the dead-letter file, anything beside them."""

from __future__ import annotations

import gzip
import http.client
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from tracesim.collector import Collector

from tests.collector import trace_files
from tests.collector.otlp import key_values, log_record, logs_request, span, trace_request
from tracesim.cli import cli

SECRET = "mallory.secret@example.com"


def _traces(*, bad_id: bool = True) -> Any:
    hostile = span(
        f"lookup {SECRET}",
        attrs={
            "plain": SECRET,
            "baggage.user.email": SECRET,  # what a baggage span processor copies
            "nested": {"list": [SECRET, 1]},
            "raw": SECRET.encode(),
            f"key {SECRET}": 1,
        },
        status=2,
        status_message=f"no account for {SECRET}",
    )
    hostile.trace_state = f"vendor=user:{SECRET}"
    event = hostile.events.add(name=f"mailed {SECRET}", time_unix_nano=1_700_000_000_000_000_001)
    event.attributes.extend(key_values({"to": SECRET}))
    link = hostile.links.add(trace_id=b"\1" * 16, span_id=b"\2" * 8, trace_state=f"u={SECRET}")
    link.attributes.extend(key_values({"customer": SECRET}))
    rejected = span(f"bad id {SECRET}", attrs={"x": SECRET}, span_id=b"\0" * 8)
    request = trace_request(
        [hostile, rejected] if bad_id else [hostile],
        scope=f"scope {SECRET}",
        resource={"service.name": "s", "r": SECRET},
    )
    scope = request.resource_spans[0].scope_spans[0].scope
    scope.version = f"1 {SECRET}"
    scope.attributes.extend(key_values({"owner": SECRET}))
    return request


def _logs() -> Any:
    text = log_record(f"body {SECRET}", attrs={"to": SECRET, f"k {SECRET}": 1})
    text.severity_text = f"WARN {SECRET}"
    text.event_name = f"event {SECRET}"
    structured = log_record("x")
    structured.body.CopyFrom(AnyValue())
    entry = structured.body.kvlist_value.values.add(key="message")
    entry.value.string_value = f"hi {SECRET}"
    listed = log_record("x")
    listed.body.CopyFrom(AnyValue())
    listed.body.array_value.values.add().string_value = SECRET
    raw = log_record("x")
    raw.body.CopyFrom(AnyValue(bytes_value=SECRET.encode()))
    return logs_request([text, structured, listed, raw], resource={"r": SECRET})


def _disk(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def _rows(db: Path) -> str:
    con = duckdb.connect(str(db), read_only=True)
    try:
        spans = con.execute("SELECT * FROM spans").fetchall()
        logs = con.execute("SELECT * FROM logs").fetchall()
    finally:
        con.close()
    return repr(spans) + repr(logs)


def _post(port: int, path: str, body: bytes, content_type: str, gz: bool) -> int:
    headers = {"Content-Type": content_type}
    if gz:
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        con.request("POST", path, body=body, headers=headers)
        answer = con.getresponse()
        answer.read()
        return answer.status
    finally:
        con.close()


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_http_exports_never_write_the_secret(tmp_path: Path, encoding: str, gz: bool) -> None:
    db = tmp_path / "h.duckdb"
    with Collector(db, grpc_port=None, http_port=0, redaction=["email"], fsync=False) as running:
        port = int((running.http_endpoint or "").rsplit(":", 1)[1])
        for path, request in (("/v1/traces", _traces()), ("/v1/logs", _logs())):
            if encoding == "protobuf":
                body, kind = request.SerializeToString(), "application/x-protobuf"
            else:
                body, kind = json.dumps(trace_files.otlp_json(request)).encode(), "application/json"
            assert _post(port, path, body, kind, gz) == 200
        assert SECRET.encode() not in _disk(tmp_path)  # the spool, before any commit
        assert running.flush(30)
        stats = running.stats()
        assert stats.spans_stored == 1 and stats.logs_stored == 4
    rows = _rows(db)
    assert "[REDACTED]" in rows
    assert SECRET not in rows
    assert SECRET.encode() not in _disk(tmp_path)


def _sdk_file(request: Any) -> str:
    spans = []
    for pb in request.resource_spans[0].scope_spans[0].spans:
        spans.append(
            {
                "name": pb.name,
                "context": {"trace_id": "0x" + pb.trace_id.hex(), "span_id": "0x" + pb.span_id.hex(),
                            "trace_state": f"[('v', '{SECRET}')]"},
                "kind": "SpanKind.INTERNAL",
                "parent_id": None,
                "start_time": "2023-11-14T22:13:20.000000Z",
                "end_time": "2023-11-14T22:13:20.005000Z",
                "status": {"status_code": "ERROR", "description": f"no {SECRET}"},
                "attributes": {"plain": SECRET, f"key {SECRET}": 1},
                "events": [{"name": f"e {SECRET}", "timestamp": "2023-11-14T22:13:20.001000Z",
                            "attributes": {"to": SECRET}}],
                "links": [],
                "resource": {"attributes": {"r": SECRET}, "schema_url": ""},
            }
        )  # fmt: skip
    return "\n".join(json.dumps(s, indent=4) for s in spans)


def _import_files(folder: Path) -> dict[str, Path]:
    traces, logs = _traces(bad_id=False), _logs()  # a bad id refuses the whole file
    good = trace_request([span(f"ok {SECRET}", attrs={"a": SECRET})])
    files = {
        "otlp-json": json.dumps(trace_files.otlp_json(traces)),
        "otlp-jsonl": trace_files.json_lines([traces, logs]),
        "jaeger": json.dumps(trace_files.jaeger(traces)),
        "tempo": json.dumps(trace_files.tempo(traces)),
        "sdk-json": _sdk_file(good),
    }
    out = {name: folder / f"{name}.json" for name in files}
    for name, text in files.items():
        out[name].write_text(text)
    out["otlp-protobuf"] = folder / "traces.pb"
    out["otlp-protobuf"].write_bytes(trace_files.delimited([traces]))
    return out


@pytest.mark.parametrize(
    "fmt", ["otlp-json", "otlp-jsonl", "jaeger", "tempo", "sdk-json", "otlp-protobuf"]
)
def test_imports_never_write_the_secret(tmp_path: Path, fmt: str) -> None:
    source = tmp_path / "in"
    source.mkdir()
    path = _import_files(source)[fmt]
    out = tmp_path / "out"
    out.mkdir()
    db = out / "i.duckdb"
    result = CliRunner().invoke(cli, ["import", str(path), "--db", str(db), "--redact", "email"])
    assert result.exit_code == 0, result.output
    rows = _rows(db)
    assert "[REDACTED]" in rows
    assert SECRET not in rows
    assert SECRET.encode() not in _disk(out)
    assert SECRET not in result.output
