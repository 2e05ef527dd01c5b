"""What a run produced, in memory: per turn, per conversation, in total.

The durable record is the spans sent to the collector; these objects feed
the progress display, `run_summary.json` and the benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tracesim.schemas import ToolCall

__all__ = ["ConversationResult", "RunResult", "TurnResult", "describe_error"]

TurnStatus = Literal["ok", "error", "timeout"]
ConversationStatus = Literal["running", "completed", "max_turns", "error", "interrupted"]
"""`running` until it ends; `interrupted`: the run was stopped (Ctrl-C) before it ended."""


@dataclass
class TurnResult:
    """One user message and the agent's answer (or its failure)."""

    turn_id: int
    user_message: str
    status: TurnStatus = "ok"
    agent_message: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None
    agent_seconds: float = 0.0
    """Time spent inside the connector's `send` (the agent's share of the turn)."""
    trace_id: str = ""


@dataclass
class ConversationResult:
    """One run of one scenario."""

    chat_id: str
    scenario_id: str
    conversation_index: int
    status: ConversationStatus = "running"
    error: str | None = None
    turns: list[TurnResult] = field(default_factory=list)

    @property
    def num_turns(self) -> int:
        """Turns sent to the agent."""
        return len(self.turns)

    @property
    def completed_turns(self) -> int:
        """Turns the agent answered (status ok)."""
        return sum(t.status == "ok" for t in self.turns)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready line for `run_summary.json`."""
        return {
            "chat_id": self.chat_id,
            "scenario_id": self.scenario_id,
            "conversation_index": self.conversation_index,
            "status": self.status,
            "num_turns": self.num_turns,
            "turn_errors": sum(t.status == "error" for t in self.turns),
            "turn_timeouts": sum(t.status == "timeout" for t in self.turns),
            "error": self.error,
        }


@dataclass
class RunResult:
    """All conversations of a run, in scenario order."""

    run_id: str
    conversations: list[ConversationResult] = field(default_factory=list)
    wall_seconds: float = 0.0

    @property
    def num_turns(self) -> int:
        """Turns sent, all conversations."""
        return sum(c.num_turns for c in self.conversations)

    @property
    def completed_turns(self) -> int:
        """Turns the agent answered (status ok), all conversations."""
        return sum(c.completed_turns for c in self.conversations)

    @property
    def turn_errors(self) -> int:
        """Turns on which the agent raised."""
        return sum(t.status == "error" for c in self.conversations for t in c.turns)

    @property
    def turn_timeouts(self) -> int:
        """Turns on which the agent timed out."""
        return sum(t.status == "timeout" for c in self.conversations for t in c.turns)

    @property
    def agent_seconds(self) -> float:
        """Total time spent inside the agent (all turns)."""
        return sum(t.agent_seconds for c in self.conversations for t in c.turns)

    def counts(self) -> dict[str, int]:
        """Totals for the summary."""
        by_status: dict[str, int] = {}
        for c in self.conversations:
            by_status[c.status] = by_status.get(c.status, 0) + 1
        return {
            "conversations": len(self.conversations),
            "turns": self.num_turns,
            "turns_completed": self.completed_turns,
            "turn_errors": self.turn_errors,
            "turn_timeouts": self.turn_timeouts,
            **{f"conversations_{k}": v for k, v in sorted(by_status.items())},
        }


def describe_error(exc: BaseException) -> str:
    """How a failure is written in a result: `Type: message` (or just the type)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
