"""Redaction at ingest: rules, presets, rule files, and whole requests before the spool."""

from tracesim.collector.redaction.linear_regex import ENGINE, LinearRegexError
from tracesim.collector.redaction.pseudonym import PSEUDONYM_PREFIX, Pseudonyms
from tracesim.collector.redaction.redaction import (
    DEFAULT_REPLACEMENT,
    LOG_BODY,
    PROTECTED_ATTRIBUTES,
    PSEUDONYMISED_ATTRIBUTES,
    SCOPES,
    InvalidRedactionRule,
    RedactionRule,
    Redactor,
)
from tracesim.collector.redaction.redaction_file import load_redaction_file
from tracesim.collector.redaction.redaction_presets import PRESETS, Preset, luhn_valid
from tracesim.collector.redaction.redaction_request import (
    ENTITY_TYPE,
    EVENT_NAME,
    LOG_EVENT_NAME,
    SCHEMA_URL,
    SCOPE_NAME,
    SCOPE_VERSION,
    SEVERITY_TEXT,
    SPAN_NAME,
    STATUS_MESSAGE,
    TRACE_STATE,
    redact_logs,
    redact_traces,
)

__all__ = [
    "DEFAULT_REPLACEMENT",
    "ENGINE",
    "ENTITY_TYPE",
    "EVENT_NAME",
    "InvalidRedactionRule",
    "LOG_BODY",
    "LOG_EVENT_NAME",
    "LinearRegexError",
    "PRESETS",
    "PROTECTED_ATTRIBUTES",
    "PSEUDONYMISED_ATTRIBUTES",
    "PSEUDONYM_PREFIX",
    "Preset",
    "Pseudonyms",
    "RedactionRule",
    "Redactor",
    "SCHEMA_URL",
    "SCOPES",
    "SCOPE_NAME",
    "SCOPE_VERSION",
    "SEVERITY_TEXT",
    "SPAN_NAME",
    "STATUS_MESSAGE",
    "TRACE_STATE",
    "load_redaction_file",
    "luhn_valid",
    "redact_logs",
    "redact_traces",
]
