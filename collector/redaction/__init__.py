"""Redaction at ingest: rules, presets, rule files, and whole requests before the spool."""

from tracesim.collector.redaction.redaction import (
    DEFAULT_REPLACEMENT,
    LOG_BODY,
    PROTECTED_ATTRIBUTES,
    SCOPES,
    InvalidRedactionRule,
    RedactionRule,
    Redactor,
)
from tracesim.collector.redaction.redaction_file import load_redaction_file
from tracesim.collector.redaction.redaction_presets import PRESETS, Preset, luhn_valid
from tracesim.collector.redaction.redaction_request import (
    EVENT_NAME,
    LOG_EVENT_NAME,
    SCOPE_NAME,
    SEVERITY_TEXT,
    SPAN_NAME,
    STATUS_MESSAGE,
    redact_logs,
    redact_traces,
)

__all__ = [
    "DEFAULT_REPLACEMENT",
    "EVENT_NAME",
    "InvalidRedactionRule",
    "LOG_BODY",
    "LOG_EVENT_NAME",
    "PRESETS",
    "PROTECTED_ATTRIBUTES",
    "Preset",
    "RedactionRule",
    "Redactor",
    "SCOPES",
    "SCOPE_NAME",
    "SEVERITY_TEXT",
    "SPAN_NAME",
    "STATUS_MESSAGE",
    "load_redaction_file",
    "luhn_valid",
    "redact_logs",
    "redact_traces",
]
