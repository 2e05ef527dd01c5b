"""Redaction at ingest: presets and custom rules, applied before DuckDB, never to hot columns."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tracesim.collector import (
    Collector,
    InvalidRedactionRule,
    RedactionRule,
    Redactor,
    load_redaction_file,
)
from tracesim.collector.redaction.redaction_presets import luhn_valid

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

EMAIL = "alice.smith@example.com"
CARD = "4111 1111 1111 1111"  # Luhn-valid test number
NOT_A_CARD = "4111111111111112"  # same length, fails Luhn: an order id, kept


# pure: the Redactor on hand-built attribute dicts -----------------------------------------
def test_presets_redact_inside_text() -> None:
    redact = Redactor.from_config(["email", "phone", "credit_card", "ssn", "ipv4"]).span
    assert redact is not None
    attrs = {
        "note": f"mail {EMAIL} or call +1 (555) 123-4567, card {CARD}, ssn 123-45-6789, "
        f"host 10.1.2.3, order {NOT_A_CARD}, version 1.2.3, date 2024-01-15",
        "e164": "+14155552671",
        "count": 3,
        "flag": True,
    }
    assert redact(attrs) == {
        "note": "mail [REDACTED] or call [REDACTED], card [REDACTED], ssn [REDACTED], "
        f"host [REDACTED], order {NOT_A_CARD}, version 1.2.3, date 2024-01-15",
        "e164": "[REDACTED]",
        "count": 3,
        "flag": True,
    }


def test_json_strings_are_redacted_value_by_value_and_stay_json() -> None:
    redact = Redactor.from_config(["email", "credit_card"]).span
    arguments = json.dumps(
        {
            "to": EMAIL,
            "card": CARD,
            "card_number": 4111111111111111,
            "amount": 12.5,
            "items": [{"sku": "A-1", "contact": f"<{EMAIL}>"}],
            "order": NOT_A_CARD,
            "quote": 'he said "hi"',
        },
        indent=2,
    )
    out = redact({"gen_ai.tool.call.arguments": arguments})
    assert json.loads(out["gen_ai.tool.call.arguments"]) == {
        "to": "[REDACTED]",
        "card": "[REDACTED]",
        "card_number": "[REDACTED]",
        "amount": 12.5,
        "items": [{"sku": "A-1", "contact": "<[REDACTED]>"}],
        "order": NOT_A_CARD,
        "quote": 'he said "hi"',
    }


def test_nothing_to_redact_returns_the_same_objects() -> None:
    redact = Redactor.from_config(["email"]).span
    text = json.dumps({"a": "no personal data", "b": [1, 2]}, indent=4)
    attrs = {"gen_ai.tool.call.arguments": text, "list": ["x", {"k": "v"}]}
    assert redact(attrs) is attrs


def test_identifiers_are_never_redacted_and_conversation_ids_become_pseudonyms() -> None:
    redactor = Redactor.from_config([{"attributes": ["*"]}, "email"])
    redact = redactor.span
    attrs = {
        "gen_ai.tool.name": "send_to_bob@example.com",
        "gen_ai.request.model": "m@x.io",
        "tracesim.chat_id": "c@x.io",
        "session.id": "s",
        "gen_ai.usage.input_tokens": 4111111111111111,
        "other": "x",
    }
    token = redactor.pseudonyms.token("s")
    assert token.startswith("tracesim-pseudonym-") and token == redactor.pseudonyms.token("s")
    assert redact(attrs) == {**attrs, "other": "[REDACTED]", "session.id": token}


def test_rule_order_scopes_globs_and_replacement() -> None:
    redactor = Redactor.from_config(
        [
            "phone",  # listed first, but the card preset still runs before it
            "credit_card",
            {"attributes": ["*.secret"], "replacement": "<gone>", "apply_to": ["spans"]},
            {"attributes": ["api.*"], "pattern": r"sk-[A-Za-z0-9]{8,}", "replacement": r"\key"},
        ]
    )
    assert redactor.span is not None and redactor.log is not None
    assert redactor.span(
        {"a": f"pay {CARD}", "db.secret": ["x"], "api.call": "key=sk-abcdef123456 ok"}
    ) == {"a": "pay [REDACTED]", "db.secret": "<gone>", "api.call": r"key=\key ok"}
    assert redactor.log({"db.secret": "x"}) == {"db.secret": "x"}  # spans only
    only_logs = Redactor.from_config([{"preset": "email", "apply_to": ["logs"]}])
    assert only_logs.span is None and only_logs.event is None and only_logs.resource is None
    assert not Redactor.from_config(None) and Redactor.from_config([RedactionRule()])


def test_luhn() -> None:
    assert luhn_valid("4111-1111-1111-1111") and luhn_valid("378282246310005")
    assert not luhn_valid(NOT_A_CARD) and not luhn_valid("0000")


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("emial", "unknown preset 'emial'; presets are credit_card, ssn, email, phone, ipv4"),
        ({"pattern": "(["}, "(pattern '([' on *): invalid regular expression"),
        ({"pattern": "a*"}, "matches the empty string"),
        ({"attribute": ["x"]}, "unknown field(s) 'attribute'; allowed: attributes, pattern"),
        ({"apply_to": ["span"]}, "apply_to ['span'] is not a non-empty list of spans, events"),
        ({"pattern": "x", "preset": "email"}, "give 'pattern' or 'preset', not both"),
        ({"attributes": []}, "'attributes' needs at least one"),
        ({"replacement": 3}, "'replacement' must be a string"),
    ],
)
def test_bad_rule_errors_name_the_rule_and_what_is_allowed(rule: object, expected: str) -> None:
    with pytest.raises(InvalidRedactionRule) as error:
        Redactor.from_config(["email", rule])
    assert "redaction rule 2" in str(error.value) and expected in str(error.value)


def test_bad_rule_fails_the_collector_before_it_listens(tmp_path: Path) -> None:
    with pytest.raises(InvalidRedactionRule, match="unknown preset 'mail'"):
        Collector(tmp_path / "x.duckdb", grpc_port=0, http_port=0, redaction=["mail"])
    assert not (tmp_path / "x.duckdb").exists()


def test_redaction_file(tmp_path: Path) -> None:
    good = tmp_path / "rules.yaml"
    good.write_text(
        "redaction:\n"
        "  - email\n"
        "  - attributes: [input.value]\n"
        "  - {attributes: ['*.key'], pattern: 'sk-\\w+', replacement: '[KEY]', apply_to: [logs]}\n"
    )
    assert load_redaction_file(good) == [
        RedactionRule(preset="email"),
        RedactionRule(attributes=("input.value",)),
        RedactionRule(
            attributes=("*.key",), pattern=r"sk-\w+", replacement="[KEY]", apply_to=("logs",)
        ),
    ]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- email\n- pattern: '(unclosed'\n")
    with pytest.raises(InvalidRedactionRule, match=r"bad\.yaml: redaction rule 2 \(pattern"):
        load_redaction_file(bad)


def test_cli_reports_a_bad_rule(tmp_path: Path) -> None:
    from tracesim.commands.collect import command

    db = tmp_path / "cli.duckdb"
    result = CliRunner().invoke(command, ["--db", str(db), "--redact", "email", "--redact", "phon"])
    assert result.exit_code == 2
    assert "redaction rule 2 (preset 'phon' on *): unknown preset 'phon'" in result.output
    rules = tmp_path / "rules.yaml"
    rules.write_text("- {attributes: [x], apply_to: [traces]}\n")
    result = CliRunner().invoke(command, ["--db", str(db), "--redaction-file", str(rules)])
    assert result.exit_code == 2 and "rules.yaml: redaction rule 1" in result.output
    assert "apply_to ['traces']" in result.output and not db.exists()


# integration: official exporters into a running collector ---------------------------------
TOOL_ARGS = {"recipient": EMAIL, "card": CARD, "amount": 12.5, "order": NOT_A_CARD}
TOOL_RESULT = f"sent receipt to {EMAIL}"


def _tool_span(exporter: object) -> None:
    """One execute_tool span with personal data in arguments, result, an event and the resource."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": "shop-agent", "user.email": EMAIL})
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("shop")
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "charge_card",
        "gen_ai.tool.call.id": "call-1",
        "gen_ai.tool.call.arguments": json.dumps(TOOL_ARGS),
        "gen_ai.tool.call.result": TOOL_RESULT,
        "input.value": "the raw prompt",
        "tracesim.chat_id": "chat-7",
        "tracesim.turn_id": 2,
        "retries": 0,
    }
    with tracer.start_as_current_span("execute_tool charge_card", attributes=attributes) as tool:
        tool.add_event("audit", {"who": EMAIL, "step": 1})
    provider.shutdown()


def _stored(collector: Collector) -> list:
    assert collector.flush(10)
    _, rows = collector.query(
        "SELECT attributes, resource_attributes, events, tool_name, operation, chat_id, turn_id "
        "FROM spans"
    )
    assert len(rows) == 1
    return rows[0]


def test_sdk_grpc_exporter_spans_are_redacted_in_place(tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    with Collector(
        tmp_path / "r.duckdb",
        grpc_port=0,
        http_port=0,
        spool_dir=spool,
        redaction=["email", "credit_card"],
    ) as collector:
        _tool_span(GrpcExporter(endpoint=collector.grpc_endpoint, insecure=True))
        attributes, resource, events, *hot = _stored(collector)
        stored = json.loads(attributes)
        args = json.loads(stored.pop("gen_ai.tool.call.arguments"))
        assert args == {**TOOL_ARGS, "recipient": "[REDACTED]", "card": "[REDACTED]"}
        assert stored == {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "charge_card",
            "gen_ai.tool.call.id": "call-1",
            "gen_ai.tool.call.result": "sent receipt to [REDACTED]",
            "input.value": "the raw prompt",
            "tracesim.chat_id": "chat-7",
            "tracesim.turn_id": 2,
            "retries": 0,
        }
        assert json.loads(resource)["user.email"] == "[REDACTED]"
        assert json.loads(resource)["service.name"] == "shop-agent"
        assert json.loads(events)[0]["attributes"] == {"who": "[REDACTED]", "step": 1}
        assert hot == ["charge_card", "execute_tool", "chat-7", 2]
        _, leaks = collector.query(
            "SELECT count(*) FROM spans WHERE concat(attributes, resource_attributes, events) "
            "LIKE '%' || ? || '%' OR attributes LIKE '%4111 1111%'",
            [EMAIL],
        )
        assert leaks == [[0]]
    # the spool held the raw request; once everything is loaded it is gone, folder and all
    assert not spool.exists()  # stricter than "empty": not even the folder remains


def test_sdk_http_exporter_whole_attribute_rule(tmp_path: Path) -> None:
    rules = [{"attributes": ["input.value", "gen_ai.tool.call.*"], "apply_to": ["spans"]}]
    with Collector(tmp_path / "w.duckdb", grpc_port=0, http_port=0, redaction=rules) as collector:
        _tool_span(HttpExporter(endpoint=f"{collector.http_endpoint}/v1/traces"))
        attributes, resource, events, *hot = _stored(collector)
        stored = json.loads(attributes)
        assert stored["input.value"] == "[REDACTED]"
        assert stored["gen_ai.tool.call.arguments"] == "[REDACTED]"
        assert stored["gen_ai.tool.call.result"] == "[REDACTED]"
        assert stored["gen_ai.tool.call.id"] == "[REDACTED]"
        assert stored["gen_ai.tool.name"] == "charge_card"  # not matched, and protected anyway
        assert json.loads(resource)["user.email"] == EMAIL  # rule applies to spans only
        assert json.loads(events)[0]["attributes"]["who"] == EMAIL
        assert hot == ["charge_card", "execute_tool", "chat-7", 2]


def test_logs_are_redacted(tmp_path: Path) -> None:
    with Collector(
        tmp_path / "l.duckdb", grpc_port=0, http_port=0, redaction=["email", "phone"]
    ) as collector:
        provider = LoggerProvider(resource=Resource.create({"service.name": "logger"}))
        provider.add_log_record_processor(
            SimpleLogRecordProcessor(
                OTLPLogExporter(endpoint=collector.grpc_endpoint, insecure=True)
            )
        )
        logger = logging.getLogger("tracesim.tests.redaction")
        logger.propagate = False
        handler = LoggingHandler(logger_provider=provider)
        logger.addHandler(handler)
        try:
            logger.warning(
                "refund for %s", EMAIL, extra={"customer.phone": "+1 555-123-4567", "n": 1}
            )
        finally:
            logger.removeHandler(handler)
            provider.shutdown()
        client = GrpcClient(collector.grpc_endpoint)
        client.export_logs(logs_request([log_record("plain", attrs={"to": {"mail": [EMAIL]}})]))
        client.export(trace_request([span("untouched", attrs={"a": "b"})]))
        client.close()
        assert collector.flush(10)
        _, rows = collector.query("SELECT body, attributes FROM logs ORDER BY body")
        assert [json.loads(body) for body, _ in rows] == ["plain", "refund for [REDACTED]"]
        assert json.loads(rows[0][1]) == {"to": {"mail": ["[REDACTED]"]}}
        refund = json.loads(rows[1][1])
        assert refund["customer.phone"] == "[REDACTED]" and refund["n"] == 1
        _, spans = collector.query("SELECT attributes FROM spans")
        assert spans == [['{"a":"b"}']]
