"""Metric results: what every metric returns, graded or not (SPEC §7)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["MetricResult"]


class MetricResult(BaseModel):
    """The outcome of one metric on one turn or conversation.

    `value` is None when the metric could not grade (no API key, nothing to
    compare): "not graded" is its own outcome, never a 0.
    """

    name: str
    """The metric's name, e.g. `tool_call_args`."""
    value: float | None = None
    """Score in [0, 1] (unless the metric documents another range); None = not graded."""
    passed: bool | None = None
    """Pass/fail where a threshold applies; None when not graded or no threshold."""
    reason: str = ""
    """One or two sentences saying why."""
    label: str | None = None
    """A categorical outcome (LLM judges' label, or `not_run`)."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Per-call explanations, missing and extra calls, judge reasoning, ..."""

    @property
    def graded(self) -> bool:
        """True when the metric produced a value."""
        return self.value is not None
