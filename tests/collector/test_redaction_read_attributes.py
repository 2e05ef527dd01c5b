"""Redaction covers what tracesim reads for itself (SPEC §9): a model reply it reads
(`haystack.agent.step.llm.output`) is redacted after its model and usage are kept; a
conversation id a rule hits (`session.id`) becomes a stable pseudonym, so keying still
works, also after a restart; trace_state, scope versions, schema URLs, link and event
attributes, status messages and log bodies are redacted before anything is spooled. The
spool, the database and every file beside it are searched for the raw values."""

from __future__ import annotations

import json
from pathlib import Path

from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span
from tracesim.collector import Collector
from tracesim.collector.redaction import Redactor

from tests.collector.otlp import (
    GrpcClient,
    log_record,
    logs_request,
    new_span_id,
    new_trace_id,
    span,
    trace_request,
)

ALICE = "alice@example.com"
BOB = "bob@example.com"
RULES = ["email", {"attributes": ["session.id"]}]
REPLY = json.dumps(
    {
        "replies": [
            {
                "content": f"I mailed {ALICE}",
                "meta": {"model": "gpt-x", "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
            }
        ]
    }
)


def _request(trace: bytes) -> object:
    llm = span(
        "llm",
        trace_id=trace,
        attrs={"session.id": ALICE, "haystack.agent.step.llm.output": REPLY},
        status=2,
        status_message=f"failed for {ALICE}",
    )
    llm.trace_state = f"vendor=k{ALICE}"
    link = PB2Span.Link(trace_id=new_trace_id(), span_id=new_span_id(), trace_state=f"v={ALICE}")
    link.attributes.add(key="who", value={"string_value": ALICE})
    llm.links.append(link)
    event = llm.events.add(name="note", time_unix_nano=1)
    event.attributes.add(key="who", value={"string_value": ALICE})
    other = span("tool", trace_id=trace, attrs={"session.id": ALICE})
    request = trace_request([llm, other])
    request.resource_spans[0].schema_url = f"https://schemas/{ALICE}"
    ref = request.resource_spans[0].resource.entity_refs.add(type=f"host-{ALICE}")
    ref.schema_url = f"https://schemas/{ALICE}/entity"
    ref.id_keys.append("service.name")
    scope = request.resource_spans[0].scope_spans[0]
    scope.scope.version = f"1.0+{ALICE}"
    scope.schema_url = f"https://schemas/{ALICE}/scope"
    return request


def _files_holding(folder: Path, text: str) -> list[str]:
    return [
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and text.encode() in path.read_bytes()
    ]


def test_read_attributes_are_redacted_and_conversations_still_key(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    with Collector(db, grpc_port=0, http_port=None, redaction=RULES) as running:
        client = GrpcClient(running.grpc_endpoint)
        try:
            client.export(_request(new_trace_id()))
            client.export(trace_request([span("elsewhere", attrs={"session.id": BOB})]))
            client.export_logs(
                logs_request([log_record(f"user {ALICE} logged in", attrs={"session.id": ALICE})])
            )
        finally:
            client.close()
        assert running.flush(30)
        spooled = _files_holding(tmp_path, ALICE)  # the spool's open segment is still there
        alice = running.redactor.pseudonyms.token(ALICE)
        rows = running.query(
            "SELECT name, chat_id, model, input_tokens, output_tokens FROM spans ORDER BY name"
        )[1]
        logs = running.query("SELECT chat_id, body FROM logs")[1]
        everything = running.query(
            "SELECT count(*) FROM (SELECT s::VARCHAR AS t FROM spans s UNION ALL "
            "SELECT l::VARCHAR FROM logs l) WHERE t LIKE '%alice@%' OR t LIKE '%bob@%'"
        )[1]
    assert spooled == []
    assert alice.startswith("tracesim-pseudonym-")
    bob = Redactor.from_config(RULES).pseudonyms  # another key: another token
    assert bob.token(ALICE) != alice
    by_name = {row[0]: row[1:] for row in rows}
    assert by_name["llm"] == [alice, "gpt-x", 3, 4]  # model and usage read before redaction
    assert by_name["tool"][0] == alice  # one token per raw id: the conversation keys together
    assert by_name["elsewhere"][0] not in (alice, None, BOB)
    assert logs[0][0] == alice and ALICE not in logs[0][1]
    assert everything == [[0]]
    assert _files_holding(tmp_path, ALICE) == [] and _files_holding(tmp_path, BOB) == []

    with Collector(db, grpc_port=0, http_port=None, redaction=RULES) as again:
        client = GrpcClient(again.grpc_endpoint)
        try:
            client.export(trace_request([span("after-restart", attrs={"session.id": ALICE})]))
        finally:
            client.close()
        assert again.flush(30)
        chat = again.query("SELECT chat_id FROM spans WHERE name = 'after-restart'")[1]
    assert chat == [[alice]]
