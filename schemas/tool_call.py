"""Tool calls and agent responses: the records every component exchanges (SPEC §4)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

LEGACY_TRACED = ("tracing_processor",)
"""Stored `source` values meaning TRACED written by arksim and by older tracesim versions."""

__all__ = ["EVIDENCE_KINDS", "LEGACY_TRACED", "AgentResponse", "ToolCall", "ToolCallSource"]


class ToolCallSource(str, Enum):
    """Where a tool call was observed."""

    AGENT_RESPONSE = "agent_response"
    """Returned explicitly by a python agent in its `AgentResponse`."""
    TRACED = "traced"
    """Derived from the agent's OpenTelemetry spans (arksim, and tracesim before, wrote
    `tracing_processor`: still read as this)."""
    TRACING_PROCESSOR = "traced"
    """The former name of TRACED (an alias: the same member)."""
    A2A_PROTOCOL = "a2a_protocol"
    """Read from A2A artifact metadata (tool-call-capture extension)."""
    CHAT_COMPLETIONS = "chat_completions"
    """Read from `message.tool_calls` of a chat-completions response."""
    A2A_STATUS = "a2a_status"
    """Announced in an A2A agent's working-state status updates (tool progress, SPEC §8)."""

    @classmethod
    def _missing_(cls, value: object) -> ToolCallSource | None:
        """Read the former stored name of TRACED (`tracing_processor`) as TRACED."""
        return cls.TRACED if value in LEGACY_TRACED else None

    @property
    def explicit(self) -> bool:
        """True for sources the agent reported itself (they win a merge)."""
        return self is not ToolCallSource.TRACING_PROCESSOR


class ToolCall(BaseModel):
    """One tool invocation; field names are compatible with arksim's ToolCall."""

    model_config = ConfigDict(extra="ignore", use_enum_values=False)

    id: str = ""
    """The tool-call id the model assigned (never a span id)."""
    name: str
    """The tool's name."""
    arguments: dict[str, Any] = Field(
        default_factory=dict, validation_alias=AliasChoices("arguments", "args")
    )
    """Parsed arguments (`args=` is accepted too: UiPath, ragas and MLflow users write it)."""
    result: str | None = None
    """The tool's output as text (non-string results are JSON-encoded)."""
    error: str | None = None
    """The error message when the call failed."""
    source: ToolCallSource | None = None
    """Where the call was observed."""
    span_id: str | None = None
    """The span the call came from or was matched to (lower-case hex)."""
    start_time: datetime | None = None
    """When the call started, when known."""
    duration_ms: float | None = None
    """How long the call took, when known."""
    group: str | None = None
    """Calls requested together by one model message share it (e.g. that model span's id):
    a strict trajectory accepts them in any order."""
    provenance: dict[str, str] | None = None
    """Field (`id`, `name`, `arguments`, `result`, `error`) -> the evidence it was read
    from (`EVIDENCE_KINDS`: a tool span, the model request, the next model input, ...)."""


EVIDENCE_KINDS: dict[str, str] = {
    "tool_span": "a tool span (any convention)",
    "mcp_span": "an MCP tools/call client or server span",
    "model_request": "the model's request for the call (output messages, choice events/logs)",
    "model_history": "the call as a later model input replays it (its history's tool calls)",
    "model_input": "the tool message a later model input carried back, by call id",
    "model_input_position": "a later model input's tool message, paired by position (ids differ)",
    "execution_span": "a span named after the tool (no tool convention)",
    "explicit": "reported by the agent (AgentResponse, chat completions, A2A)",
}
"""Evidence kinds a tool call's fields are read from (`ToolCall.provenance`, the
`tool_calls.*_from` columns; SPEC §5)."""


class AgentResponse(BaseModel):
    """What an agent returns for one turn: its reply and the tools it says it called."""

    model_config = ConfigDict(extra="ignore")

    content: str
    """The agent's reply to the user."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Tool calls the agent reports explicitly."""
