"""Redaction of whole OTLP requests (protobuf messages, in place), before they are spooled.

Every text a request carries is covered (SPEC §9): resource, scope, span, event,
link and log attributes, their names included (`spans` rules cover span and link attributes, `events`
event attributes, `logs` log attributes and bodies, `resources` resource and
scope attributes) at any depth of arrays and maps, bytes values (matched as
UTF-8 text; a hit turns the value into the redacted text), and the texts that
are not attribute values, matched under these names: `span.name`,
`status.message`, `event.name`, `scope.name`, `scope.version`, `trace_state` (spans
and links), `schema_url` (resources, their entity references and scopes, under `resources`
rules), `entity.type`,
`severity_text`, `event_name` (log records) and `body`. Whole-value rules touch those
names only when they name them exactly. Protected attributes (identifiers) are never
touched; a conversation id a rule would change becomes its pseudonym (one token per
raw id, so keying works); a model reply tracesim reads (`CONTENT_ATTRIBUTES`) is
redacted after its model and usage are written as GenAI attributes, so the hot columns
stay what the raw span says.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from tracesim.collector.decode.values import any_value, attributes
from tracesim.collector.redaction.redaction import (
    _UNCHANGED,
    LOG_BODY,
    Redactor,
    _apply,
    _Plan,
    _ScopeRedactor,
    _text,
    unique_names,
)
from tracesim.collector.routing.hot_fields import CONTENT_ATTRIBUTES, hot_fields
from tracesim.schemas.conventions import GENAI

__all__ = [
    "ENTITY_TYPE",
    "EVENT_NAME",
    "LOG_EVENT_NAME",
    "SCOPE_NAME",
    "SEVERITY_TEXT",
    "SPAN_NAME",
    "SCHEMA_URL",
    "SCOPE_VERSION",
    "STATUS_MESSAGE",
    "TRACE_STATE",
    "redact_logs",
    "redact_traces",
]

SPAN_NAME = "span.name"
STATUS_MESSAGE = "status.message"
EVENT_NAME = "event.name"
SCOPE_NAME = "scope.name"
SEVERITY_TEXT = "severity_text"
LOG_EVENT_NAME = "event_name"
TRACE_STATE = "trace_state"
SCOPE_VERSION = "scope.version"
SCHEMA_URL = "schema_url"
ENTITY_TYPE = "entity.type"


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
    changed = renamed = False
    for kv in key_values:
        plan = scope._plan(kv.key)
        if plan is None:
            continue
        if plan.renamed is not None:  # a secret in the name itself
            kv.key = plan.renamed
            changed = renamed = True
        if plan.pseudonym is None:
            changed = _value(plan, kv.value) or changed
            continue
        token = _apply(plan, any_value(kv.value))  # a conversation id: its pseudonym
        if token is not _UNCHANGED:
            kv.value.Clear()
            kv.value.string_value = token
            changed = True
    if renamed:
        names = unique_names([kv.key for kv in key_values])
        for kv, name in zip(key_values, names, strict=True):
            if kv.key != name:
                kv.key = name
    return changed


def _content_before(scope: _ScopeRedactor | None, pb2_span: Any) -> dict[str, bytes] | None:
    """The content attributes (model replies) a rule applies to, as they are before
    redaction; None when there is none (the common case: no work)."""
    if scope is None:
        return None
    found = None
    for kv in pb2_span.attributes:
        if kv.key in CONTENT_ATTRIBUTES and scope._plan(kv.key) is not None:
            found = found or {}
            found[kv.key] = kv.value.SerializeToString()
    return found


def _keep_derived(pb2_span: Any, before: dict[str, bytes], raw: dict[str, Any]) -> None:
    """After redaction changed a content attribute, write what `hot_fields` derived from its
    raw text (model, tokens) as GenAI attributes the reader falls back to."""
    after = {kv.key: kv.value.SerializeToString() for kv in pb2_span.attributes if kv.key in before}
    if after == before:
        return
    try:
        _operation, _tool, model, tokens_in, tokens_out = hot_fields(pb2_span.name, raw)
    except Exception:  # a shape the reader cannot read: nothing derived to keep
        return
    present = {kv.key for kv in pb2_span.attributes}
    for key, value in (
        (GENAI.RESPONSE_MODEL, model),
        (GENAI.USAGE_INPUT_TOKENS, tokens_in),
        (GENAI.USAGE_OUTPUT_TOKENS, tokens_out),
    ):
        if value is None or key in present:
            continue
        kv = KeyValue(key=key)
        if isinstance(value, int):
            kv.value.int_value = value
        else:
            kv.value.string_value = value
        pb2_span.attributes.append(kv)


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


def _resource(scope: _ScopeRedactor | None, resource: Any) -> bool:
    """Redact a Resource in place: its attributes and its entity references' texts."""
    changed = _attributes(scope, resource.attributes)
    for ref in resource.entity_refs:
        changed = _field(scope, ref, "schema_url", SCHEMA_URL) or changed
        changed = _field(scope, ref, "type", ENTITY_TYPE) or changed
    return changed


def redact_traces(request: Any, redactor: Redactor) -> bool:
    """Apply `redactor` to every text of an ExportTraceServiceRequest; True if one changed."""
    spans, events = redactor.scopes.get("spans"), redactor.scopes.get("events")
    resources = redactor.scopes.get("resources")
    changed = False
    for resource_spans in request.resource_spans:
        changed = _resource(resources, resource_spans.resource) or changed
        changed = _field(resources, resource_spans, "schema_url", SCHEMA_URL) or changed
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope
            changed = _attributes(resources, scope.attributes) or changed
            changed = _field(spans, scope, "name", SCOPE_NAME) or changed
            changed = _field(spans, scope, "version", SCOPE_VERSION) or changed
            changed = _field(resources, scope_spans, "schema_url", SCHEMA_URL) or changed
            for pb2_span in scope_spans.spans:
                content = _content_before(spans, pb2_span)
                raw = attributes(pb2_span.attributes) if content else None
                changed = _attributes(spans, pb2_span.attributes) or changed
                if content and raw is not None:
                    _keep_derived(pb2_span, content, raw)
                changed = _field(spans, pb2_span, "name", SPAN_NAME) or changed
                changed = _field(spans, pb2_span.status, "message", STATUS_MESSAGE) or changed
                changed = _field(spans, pb2_span, "trace_state", TRACE_STATE) or changed
                for event in pb2_span.events:
                    changed = _attributes(events, event.attributes) or changed
                    changed = _field(events, event, "name", EVENT_NAME) or changed
                for link in pb2_span.links:
                    changed = _attributes(spans, link.attributes) or changed
                    changed = _field(spans, link, "trace_state", TRACE_STATE) or changed
    return changed


def redact_logs(request: Any, redactor: Redactor) -> bool:
    """Apply `redactor` to every text of an ExportLogsServiceRequest; True if one changed."""
    logs, resources = redactor.scopes.get("logs"), redactor.scopes.get("resources")
    changed = False
    for resource_logs in request.resource_logs:
        changed = _resource(resources, resource_logs.resource) or changed
        changed = _field(resources, resource_logs, "schema_url", SCHEMA_URL) or changed
        for scope_logs in resource_logs.scope_logs:
            scope = scope_logs.scope
            changed = _attributes(resources, scope.attributes) or changed
            changed = _field(logs, scope, "name", SCOPE_NAME) or changed
            changed = _field(logs, scope, "version", SCOPE_VERSION) or changed
            changed = _field(resources, scope_logs, "schema_url", SCHEMA_URL) or changed
            for record in scope_logs.log_records:
                changed = _attributes(logs, record.attributes) or changed
                changed = _field(logs, record, "severity_text", SEVERITY_TEXT) or changed
                changed = _field(logs, record, "event_name", LOG_EVENT_NAME) or changed
                if logs is not None and record.HasField("body"):
                    plan = logs._plan(LOG_BODY)
                    if plan is not None:
                        changed = _value(plan, record.body) or changed
    return changed
