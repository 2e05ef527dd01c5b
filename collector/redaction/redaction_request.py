"""Redaction of whole OTLP requests (protobuf messages, in place), before they are spooled.

Every text a request carries is covered (SPEC §9): resource, scope, span, event,
link and log attributes (`spans` rules cover span and link attributes, `events`
event attributes, `logs` log attributes and bodies, `resources` resource and
scope attributes) at any depth of arrays and maps, bytes values (matched as
UTF-8 text; a hit turns the value into the redacted text), and the texts that
are not attribute values, matched under these names: `span.name`,
`status.message`, `event.name`, `scope.name`, `severity_text`, `event_name`
(log records) and `body`. Whole-value rules touch those names only when they
name them exactly. Protected attributes (hot columns, routing keys) are never
touched, so what the writer derives from them is unchanged.
"""

from __future__ import annotations

from typing import Any

from tracesim.collector.redaction.redaction import LOG_BODY, Redactor, _Plan, _ScopeRedactor, _text

__all__ = [
    "EVENT_NAME",
    "LOG_EVENT_NAME",
    "SCOPE_NAME",
    "SEVERITY_TEXT",
    "SPAN_NAME",
    "STATUS_MESSAGE",
    "redact_logs",
    "redact_traces",
]

SPAN_NAME = "span.name"
STATUS_MESSAGE = "status.message"
EVENT_NAME = "event.name"
SCOPE_NAME = "scope.name"
SEVERITY_TEXT = "severity_text"
LOG_EVENT_NAME = "event_name"


def _value(plan: _Plan, value: Any) -> bool:
    """Redact one AnyValue in place; True when it changed."""
    if plan.whole is not None:
        value.string_value = plan.whole
        return True
    which = value.WhichOneof("value")
    if which == "string_value":
        text = value.string_value
        new = _text(plan, text)
    elif which == "int_value":
        text = str(value.int_value)
        new = _text(plan, text)
    elif which == "bytes_value":
        text = value.bytes_value.decode("utf-8", "replace")
        new = _text(plan, text)
    elif which == "array_value":
        return any([_value(plan, item) for item in value.array_value.values])
    elif which == "kvlist_value":
        changed = False
        for kv in value.kvlist_value.values:
            key = _text(plan, kv.key)
            if key is not kv.key and key != kv.key:
                kv.key = key
                changed = True
            changed = _value(plan, kv.value) or changed
        return changed
    else:
        return False
    if new is text:
        return False
    value.string_value = new
    return True


def _attributes(scope: _ScopeRedactor | None, key_values: Any) -> bool:
    """Redact repeated KeyValue in place; True when one changed."""
    if scope is None:
        return False
    changed = False
    for kv in key_values:
        plan = scope._plan(kv.key)
        if plan is not None:
            changed = _value(plan, kv.value) or changed
    return changed


def _field(scope: _ScopeRedactor | None, message: Any, field: str, name: str) -> bool:
    """Redact one text field of a message (a name, a status message) in place."""
    if scope is None:
        return False
    text = getattr(message, field)
    if not text:
        return False
    plan = scope.text_plan(name)
    if plan is None:
        return False
    new = plan.whole if plan.whole is not None else _text(plan, text)
    if new is text or new == text:
        return False
    setattr(message, field, new)
    return True


def redact_traces(request: Any, redactor: Redactor) -> bool:
    """Apply `redactor` to every text of an ExportTraceServiceRequest; True if one changed."""
    spans, events = redactor.scopes.get("spans"), redactor.scopes.get("events")
    resources = redactor.scopes.get("resources")
    changed = False
    for resource_spans in request.resource_spans:
        changed = _attributes(resources, resource_spans.resource.attributes) or changed
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope
            changed = _attributes(resources, scope.attributes) or changed
            changed = _field(spans, scope, "name", SCOPE_NAME) or changed
            for pb2_span in scope_spans.spans:
                changed = _attributes(spans, pb2_span.attributes) or changed
                changed = _field(spans, pb2_span, "name", SPAN_NAME) or changed
                changed = _field(spans, pb2_span.status, "message", STATUS_MESSAGE) or changed
                for event in pb2_span.events:
                    changed = _attributes(events, event.attributes) or changed
                    changed = _field(events, event, "name", EVENT_NAME) or changed
                for link in pb2_span.links:
                    changed = _attributes(spans, link.attributes) or changed
    return changed


def redact_logs(request: Any, redactor: Redactor) -> bool:
    """Apply `redactor` to every text of an ExportLogsServiceRequest; True if one changed."""
    logs, resources = redactor.scopes.get("logs"), redactor.scopes.get("resources")
    changed = False
    for resource_logs in request.resource_logs:
        changed = _attributes(resources, resource_logs.resource.attributes) or changed
        for scope_logs in resource_logs.scope_logs:
            scope = scope_logs.scope
            changed = _attributes(resources, scope.attributes) or changed
            changed = _field(logs, scope, "name", SCOPE_NAME) or changed
            for record in scope_logs.log_records:
                changed = _attributes(logs, record.attributes) or changed
                changed = _field(logs, record, "severity_text", SEVERITY_TEXT) or changed
                changed = _field(logs, record, "event_name", LOG_EVENT_NAME) or changed
                if logs is not None and record.HasField("body"):
                    plan = logs._plan(LOG_BODY)
                    if plan is not None:
                        changed = _value(plan, record.body) or changed
    return changed
