"""Provenance of a tool call's fields (SPEC §5): which evidence gave each one.

`ToolCall.provenance` maps a field (`id`, `name`, `arguments`, `result`, `error`) to one
of these kinds (`schemas.EVIDENCE_KINDS` says what each is); the `tool_calls` table keeps
them as `id_from`, `arguments_from`, `result_from`, `error_from`. A field without an entry
came from the call's own source (`source_of`): a traced call's tool span, an explicit call's
report, so the common case builds no dict.
"""

from __future__ import annotations

from tracesim.schemas import ToolCall

__all__ = [
    "EXECUTION",
    "EXPLICIT",
    "INPUT",
    "INPUT_POSITION",
    "MCP_SPAN",
    "REPLAY",
    "REQUEST",
    "TOOL_SPAN",
    "PROVENANCE_FIELDS",
    "note",
    "source_of",
]

TOOL_SPAN = "tool_span"
MCP_SPAN = "mcp_span"
REQUEST = "model_request"
REPLAY = "model_history"
INPUT = "model_input"
INPUT_POSITION = "model_input_position"
EXECUTION = "execution_span"
EXPLICIT = "explicit"
PROVENANCE_FIELDS = ("id", "name", "arguments", "result", "error")


def note(call: ToolCall, field: str, kind: str) -> None:
    """Record that `field` of `call` was read from evidence `kind`."""
    if call.provenance is None:
        call.provenance = {field: kind}
    else:
        call.provenance[field] = kind


def source_of(call: ToolCall, field: str) -> str | None:
    """The evidence `field` of `call` was read from (None when the field is empty)."""
    value = getattr(call, field)
    if value is None or value == "" or value == {}:
        return None
    provenance = call.provenance
    if provenance is not None and field in provenance:
        return provenance[field]
    source = call.source
    traced = source is None or getattr(source, "value", source) in ("traced", "tracing_processor")
    return TOOL_SPAN if traced else EXPLICIT
