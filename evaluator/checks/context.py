"""What a metric sees: one conversation or one turn, with its tool calls and spans.

Judges and custom metrics are handed the same `MetricContext`, built by the
pipeline from the stored rows, so a user's metric can read anything a
built-in one can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracesim.schemas import ToolCall

__all__ = ["MetricContext"]


@dataclass(frozen=True)
class MetricContext:
    """One unit of grading: a turn (`turn` set) or a whole conversation (`turn` None).

    Rows are plain mappings of the DuckDB tables (`conversations`, `turns`,
    `spans`); JSON columns of `turns` and `conversations` are already parsed.
    """

    chat_id: str
    """The conversation's id."""
    conversation: Mapping[str, Any]
    """The `conversations` row (empty when only turns were recorded)."""
    scenario: Mapping[str, Any]
    """The scenario as run: goal, user_profile, knowledge, agent_context, assertions."""
    turns: Sequence[Mapping[str, Any]]
    """Every `turns` row of the conversation, in turn order."""
    turn_tool_calls: Sequence[Sequence[ToolCall]]
    """The merged tool calls of each turn, aligned with `turns`."""
    turn: Mapping[str, Any] | None = None
    """The graded turn's row; None for a conversation-level metric."""
    tool_calls: Sequence[ToolCall] = field(default_factory=list)
    """The graded turn's merged tool calls (all calls of the conversation at conversation level)."""
    spans: Sequence[Mapping[str, Any]] = field(default_factory=list)
    """The graded turn's spans (all the conversation's spans at conversation level)."""

    @property
    def turn_id(self) -> int | None:
        """The graded turn's id, or None at conversation level."""
        return None if self.turn is None else int(self.turn["turn_id"])

    @property
    def run_id(self) -> str | None:
        """The run the conversation belongs to."""
        value = self.conversation.get("run_id")
        if value is None and self.turns:
            value = self.turns[0].get("run_id")
        return value

    @property
    def scenario_id(self) -> str | None:
        """The scenario the conversation played."""
        value = self.conversation.get("scenario_id") or self.scenario.get("scenario_id")
        if value is None and self.turns:
            value = self.turns[0].get("scenario_id")
        return value

    def messages(self, *, upto_turn: int | None = None) -> list[dict[str, str]]:
        """The transcript as chat messages (`user`/`assistant`), up to and including a turn."""
        out: list[dict[str, str]] = []
        for row in self.turns:
            if upto_turn is not None and int(row["turn_id"]) > upto_turn:
                break
            out.append({"role": "user", "content": row.get("user_message") or ""})
            reply = row.get("agent_message")
            if reply is None and row.get("status") not in (None, "ok"):
                reply = f"[agent {row.get('status')}: {row.get('error') or 'no reply'}]"
            out.append({"role": "assistant", "content": reply or ""})
        return out
