"""Provenance of a tool call's fields (SPEC §5): which evidence gave each one.

`ToolCall.provenance` maps a field (`id`, `name`, `arguments`, `result`, `error`) to one
of these kinds (`schemas.EVIDENCE_KINDS` says what each is); the `tool_calls` table keeps
them as `id_from`, `arguments_from`, `result_from`, `error_from`.
"""

from __future__ import annotations

from tracesim.schemas import ToolCall

__all__ = [
    "EXECUTION",
    "INPUT",
    "INPUT_POSITION",
    "MCP_SPAN",
    "REQUEST",
    "TOOL_SPAN",
    "note",
]

TOOL_SPAN = "tool_span"
MCP_SPAN = "mcp_span"
REQUEST = "model_request"
INPUT = "model_input"
INPUT_POSITION = "model_input_position"
EXECUTION = "execution_span"


def note(call: ToolCall, field: str, kind: str) -> None:
    """Record that `field` of `call` was read from evidence `kind`."""
    if call.provenance is None:
        call.provenance = {field: kind}
    else:
        call.provenance[field] = kind
