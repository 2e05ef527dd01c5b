"""Span rows for the extraction-rule tests: a `spans`-table row, tool, model and tool-answer spans."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

__all__ = ["T0", "exception_events", "model_row", "responses_row", "rule_row", "tool_row"]


T0 = datetime(2025, 1, 1, 12, 0, 0)


def rule_row(n: int, name: str, attributes: dict, *, trace: int = 1, **extra) -> dict:
    row = {
        "trace_id": format(trace, "032x"),
        "span_id": format(n, "016x"),
        "parent_span_id": None,
        "name": name,
        "start_time": T0 + timedelta(seconds=n),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }
    row.update(extra)
    return row


def tool_row(n: int, attributes: dict, **extra) -> dict:
    return rule_row(n, "execute_tool t", {"gen_ai.tool.name": "t", **attributes}, **extra)


def exception_events(message: str) -> str:
    return json.dumps(
        [{"name": "exception", "attributes": {"exception.message": message, "exception.type": "E"}}]
    )


def model_row(n: int, calls: list[tuple[str, str, dict]], *, trace: int = 1, **attrs) -> dict:
    parts = [{"type": "tool_call", "id": i, "name": name, "arguments": a} for i, name, a in calls]
    return rule_row(
        n,
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
            **attrs,
        },
        trace=trace,
    )


def responses_row(n: int, answered: list[tuple[str, str]], *, trace: int) -> dict:
    parts = [{"type": "tool_call_response", "id": i, "response": r} for i, r in answered]
    return rule_row(
        n,
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps([{"role": "tool", "parts": parts}]),
        },
        trace=trace,
    )
