"""The span record: one row of the `spans` table as a typed model (SPEC §4)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SPAN_COLUMNS", "SpanRecord"]


class SpanRecord(BaseModel):
    """A stored span. The collector writes columns in bulk; this model is for readers."""

    model_config = ConfigDict(extra="ignore")

    trace_id: str
    span_id: str
    parent_span_id: str | None = None
    name: str = ""
    kind: str = "INTERNAL"
    start_time: datetime | None = None
    end_time: datetime | None = None
    duration_ms: float | None = None
    status_code: str = "UNSET"
    status_message: str | None = None
    service_name: str | None = None
    scope_name: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    resource_attributes: dict[str, Any] = Field(default_factory=dict)
    events: list[dict[str, Any]] = Field(default_factory=list)
    links: list[dict[str, Any]] = Field(default_factory=list)
    chat_id: str | None = None
    turn_id: int | None = None
    operation: str | None = None
    tool_name: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


SPAN_COLUMNS: tuple[str, ...] = tuple(SpanRecord.model_fields) + ("received_at",)
"""Column order of the `spans` table."""
