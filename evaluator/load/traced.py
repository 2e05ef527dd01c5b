"""Turns for chats that were traced but never simulated (`tracesim collect` alone).

A DuckDB file filled only by `tracesim collect` holds production traces: the
collector keys their spans by `gen_ai.conversation.id` / `session.id`
(chat_id) with turn_id NULL, and no `turns` or `conversations` row exists.
Such a chat is *traced-only*; the evaluator still derives its tool calls, so
`tool_calls`, the `tool_stats` view and the report show them.

Its turns are derived from the spans:
- spans that carry a turn_id keep it (one turn per stored turn_id);
- spans with turn_id NULL are grouped per trace, one turn per trace, the
  traces ranked by their first span's start time (unknown last, then
  trace_id); turn_id = that rank, counted on after the largest stored
  turn_id (so 0, 1, ... when none is stored).

A derived turn row has `run_id` NULL (its `tool_calls` rows too), `status`
NULL and no explicit tool calls, plus the `trace_id` it was cut from (NULL
for a stored turn_id), `source` `traced`, and the user message and agent reply
the spans carry (`evaluator.extract.dialogue`; None when they carry none) with
the convention they came from (`message_convention`). Spans with no chat_id at all are never
evaluated (`tool_calls.chat_id` is NOT NULL). Traced-only chats are
evaluated only when no run_id is asked for: they belong to no run. LLM judges
grade the ones whose spans carry messages (SPEC §14) and skip the rest; tool checks, custom metrics
and scoring treat them like any conversation, so with nothing deciding their
turns they are reported as not graded, never as 0.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracesim.evaluator.extract.dialogue import turn_dialogue

__all__ = ["derive_trace_turns"]


def _trace_order(spans: list[dict[str, Any]]) -> list[str | None]:
    """The traces of `spans`, by their earliest start time (unknown last), then trace_id."""
    first: dict[str | None, datetime | None] = {}
    for span in spans:
        trace_id, start = span.get("trace_id"), span.get("start_time")
        if trace_id not in first:
            first[trace_id] = start
        elif start is not None and (first[trace_id] is None or start < first[trace_id]):
            first[trace_id] = start

    def key(trace_id: str | None) -> tuple[bool, Any, str]:
        start = first[trace_id]
        return (start is None, start if start is not None else 0, trace_id or "")

    return sorted(first, key=key)


def derive_trace_turns(
    chat_id: str, spans_by_turn: dict[int | None, list[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], dict[int | None, list[dict[str, Any]]]]:
    """(turn rows, spans by turn_id) of a traced-only chat (see the module doc).

    `spans_by_turn` is the chat's spans by stored turn_id (None: no turn_id);
    it is not mutated. Turns come back in turn_id order.
    """
    by_turn: dict[int | None, list[dict[str, Any]]] = {
        turn_id: spans for turn_id, spans in spans_by_turn.items() if turn_id is not None
    }
    traces: dict[int, str | None] = {}
    unkeyed = spans_by_turn.get(None) or []
    if unkeyed:
        next_id = max((t for t in by_turn if t is not None), default=-1) + 1
        per_trace: dict[str | None, list[dict[str, Any]]] = {}
        for span in unkeyed:
            per_trace.setdefault(span.get("trace_id"), []).append(span)
        for rank, trace_id in enumerate(_trace_order(unkeyed)):
            by_turn[next_id + rank] = per_trace[trace_id]
            traces[next_id + rank] = trace_id
    turns = []
    for turn_id in sorted(t for t in by_turn if t is not None):
        dialogue = turn_dialogue(by_turn[turn_id])
        turns.append(
            {
                "chat_id": chat_id,
                "turn_id": turn_id,
                "run_id": None,
                "scenario_id": None,
                "status": None,
                "explicit_tool_calls": [],
                "trace_id": traces.get(turn_id),
                "source": "traced",
                "user_message": dialogue.user_message,
                "agent_message": dialogue.agent_message,
                "message_convention": dialogue.convention,
            }
        )
    return turns, by_turn
