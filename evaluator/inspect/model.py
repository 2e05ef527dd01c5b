"""What `tracesim inspect` reports of a capture: per (service, scope) groups, unkeyed tool
spans and the evidence that did not become a call (the data; `inspect` fills it, `render`
prints it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.extract.audit import Unexplained
from tracesim.schemas.conversation_keys import CONVERSATION_ID_KEYS, EXPLICIT_KEYS

__all__ = ["CONVENTION_PREFIXES", "GroupReport", "Inspection", "UnkeyedToolSpan"]


CONVENTION_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gen_ai.", "OTel GenAI"),
    ("openinference.", "OpenInference"),
    ("llm.", "OpenInference/OpenLLMetry llm.*"),
    ("traceloop.", "OpenLLMetry"),
    ("gcp.vertex.agent.", "Google ADK"),
    ("logfire.", "Logfire"),
    ("mlflow.", "MLflow"),
    ("ai.", "Vercel AI SDK"),
    ("langfuse.", "Langfuse"),
    ("tracesim.", "tracesim"),
    ("arksim.", "arksim"),
)
"""Attribute-key prefix -> the convention it reveals."""

_KEYS_LOOKED_FOR = len(EXPLICIT_KEYS) + len(CONVERSATION_ID_KEYS)
_UNKEYED_REASON = (
    "no conversation key on any span of its trace (looked for tracesim.chat_id, "
    f"arksim.conversation_id, gen_ai.conversation.id, session.id and {_KEYS_LOOKED_FOR - 4} "
    "more; see schemas/conversation_keys.py); evaluated as a conversation of its own "
    "(chat_id = trace id)"
)


@dataclass
class UnkeyedToolSpan:
    """A tool span the collector could not key to a conversation."""

    trace_id: str
    span_id: str
    name: str
    service_name: str | None
    scope_name: str | None
    reason: str = _UNKEYED_REASON

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> UnkeyedToolSpan:
        """The unkeyed tool span a `spans` row is."""
        return cls(
            row["trace_id"], row["span_id"], row["name"], row["service_name"], row["scope_name"]
        )


@dataclass
class GroupReport:
    """What was understood of one (service, scope)."""

    service_name: str | None
    scope_name: str | None
    spans: int = 0
    unkeyed_spans: int = 0
    conventions: list[str] = field(default_factory=list)
    tool_spans: int = 0
    unkeyed_tool_spans: int = 0
    model_calls: int = 0
    model_calls_without_usage: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    unread: dict[str, int] = field(default_factory=dict)
    """Tool-call field -> how many tool spans lacked it (id, arguments, result or error)."""


@dataclass
class Inspection:
    """The whole capture."""

    groups: list[GroupReport]
    unkeyed: list[UnkeyedToolSpan]
    unexplained: list[Unexplained] = field(default_factory=list)
    """Tool evidence that did not become a call (`evaluator.extract.audit`)."""
    unkeyed_traces: list[str] = field(default_factory=list)
    """Traces with tool or model calls that no conversation key reached (each evaluated as a
    conversation of its own)."""

    @property
    def tool_spans(self) -> int:
        """Tool spans over all groups."""
        return sum(g.tool_spans for g in self.groups)
