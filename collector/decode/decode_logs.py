"""OTLP log requests (protobuf messages) -> column lists for the `logs` table. Pure.

`log_id` is a content hash of the record, its scope and resource, so a resent
record is stored once (the hash is of the raw record, so redaction does not change it).
An optional `Redactor` rewrites attributes and bodies before they are stored.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from tracesim.collector.decode.values import any_value, attributes
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.routing.routing_keys import RULE_NONE, ResourceRoute, own_key, resource_key
from tracesim.schemas.conventions import OTEL

__all__ = ["LOG_FIELDS", "LogBatch", "check_logs", "decode_logs", "log_is_valid"]

LOG_FIELDS: tuple[str, ...] = (
    "log_id",
    "time",
    "observed_time",
    "severity_number",
    "severity_text",
    "body",
    "event_name",
    "trace_id",
    "span_id",
    "service_name",
    "scope_name",
    "attributes",
    "resource_attributes",
    "chat_id",
    "turn_id",
)
"""Columns of `logs` that decoding fills (times as unix nanoseconds)."""
_NO_ROUTE: ResourceRoute = ((None, None, RULE_NONE), None)


class LogBatch:
    """Decoded log records as column lists plus their routing rules."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in LOG_FIELDS}
        self.rules: list[int] = []
        self.unreadable = 0
        """Records stored without routing keys because a reader could not read a shape."""

    def __len__(self) -> int:
        return len(self.rules)


def log_is_valid(record: Any) -> bool:
    """True when trace_id is empty or 16 bytes and span_id empty or 8 bytes."""
    return len(record.trace_id) in (0, 16) and len(record.span_id) in (0, 8)


def check_logs(request: Any) -> tuple[int, int, str]:
    """Count (valid, rejected) records of an ExportLogsServiceRequest, with a message."""
    valid = rejected = 0
    message = ""
    for resource_logs in request.resource_logs:
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                if log_is_valid(record):
                    valid += 1
                    continue
                rejected += 1
                if not message:
                    message = (
                        "log record: trace_id must be empty or 16 bytes and span_id empty or "
                        f"8 bytes, got {len(record.trace_id)} and {len(record.span_id)}"
                    )
    if rejected:
        message = f"{rejected} invalid log record(s) rejected; first: {message}"
    return valid, rejected, message


def decode_logs(request: Any, batch: LogBatch, redactor: Redactor | None = None) -> None:
    """Append every valid record of an ExportLogsServiceRequest to `batch`, redacting
    attributes and bodies with `redactor` when given."""
    c = batch.columns
    dumps = orjson.dumps
    redact_log = redact_body = redact_resource = None
    if redactor is not None:
        redact_log, redact_body, redact_resource = (
            redactor.log,
            redactor.log_body,
            redactor.resource,
        )
    for resource_logs in request.resource_logs:
        resource_attrs = attributes(resource_logs.resource.attributes)
        resource_json = dumps(resource_attrs).decode()
        resource_digest = hashlib.blake2b(resource_json.encode(), digest_size=16).digest()
        service = resource_attrs.get(OTEL.SERVICE_NAME)
        try:
            resource_route = resource_key(resource_attrs)
        except Exception:  # an attribute shape no reader expected: no key from the resource
            resource_route = _NO_ROUTE
            batch.unreadable += 1
        if redact_resource is not None:
            resource_json = dumps(redact_resource(resource_attrs)).decode()
        for scope_logs in resource_logs.scope_logs:
            scope = scope_logs.scope.name or None
            scope_bytes = (scope or "").encode()
            for record in scope_logs.log_records:
                if not log_is_valid(record):
                    continue
                attrs = attributes(record.attributes)
                digest = hashlib.blake2b(resource_digest + scope_bytes, digest_size=16)
                digest.update(record.SerializeToString(deterministic=True))
                try:
                    chat, turn, rule = own_key(attrs, resource_route)
                except Exception:
                    chat, turn, rule = _NO_ROUTE[0]
                    batch.unreadable += 1
                body = any_value(record.body) if record.HasField("body") else None
                if redact_log is not None:
                    attrs = redact_log(attrs)
                    if body is not None and redact_body is not None:
                        body = redact_body(body)
                c["log_id"].append(digest.hexdigest())
                c["time"].append(record.time_unix_nano or None)
                c["observed_time"].append(record.observed_time_unix_nano or None)
                c["severity_number"].append(record.severity_number)
                c["severity_text"].append(record.severity_text or None)
                c["body"].append(dumps(body).decode() if body is not None else None)
                c["event_name"].append(record.event_name or None)
                c["trace_id"].append(record.trace_id.hex() or None)
                c["span_id"].append(record.span_id.hex() or None)
                c["service_name"].append(service if isinstance(service, str) else None)
                c["scope_name"].append(scope)
                c["attributes"].append(dumps(attrs).decode())
                c["resource_attributes"].append(resource_json)
                c["chat_id"].append(chat)
                c["turn_id"].append(turn)
                batch.rules.append(rule if chat is not None else RULE_NONE)
