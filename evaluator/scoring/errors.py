"""Why a conversation cannot be graded: an error (with its source) or an interruption.

Read from what the simulator stored: a turn with status `error` / `timeout`
(the agent did not answer: the agent's error), the conversation's status
`error` with its error text (`schemas.error_source` names who failed: the
agent opening the conversation, the simulated user's LLM, tracesim), or
`interrupted` (the run was stopped). Traced-only conversations (`tracesim
collect`) have no such record and never end in an error here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracesim.evaluator.scoring.scoring import (
    FAILED_TURN_STATUSES,
    STATUS_ERROR,
    STATUS_INTERRUPTED,
)
from tracesim.schemas.error_source import SOURCE_AGENT, split_error

__all__ = ["ConversationEnd", "conversation_end"]


@dataclass(frozen=True)
class ConversationEnd:
    """A conversation made ungradeable: its status, who failed and what happened."""

    status: str
    """`Error` or `Interrupted` (`evaluator.scoring.scoring`)."""
    source: str
    """agent | simulated user | judge | tracesim; `run stopped` for an interruption."""
    message: str
    """One line: `turn 2 timeout: no answer within 30 s`."""

    @property
    def text(self) -> str:
        """`agent: turn 2 timeout: ...`: the message with its source, for one-line outputs."""
        return f"{self.source}: {self.message}"


def conversation_end(
    conversation: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]
) -> ConversationEnd | None:
    """What made the conversation ungradeable, None when nothing did."""
    status = conversation.get("status")
    if status == "interrupted":
        return ConversationEnd(
            STATUS_INTERRUPTED,
            "run stopped",
            str(conversation.get("error") or "the run was stopped before it ended"),
        )
    for turn in turns:
        if turn.get("status") in FAILED_TURN_STATUSES:
            message = f"turn {turn.get('turn_id')} {turn.get('status')}"
            if turn.get("error"):
                message += f": {turn['error']}"
            return ConversationEnd(STATUS_ERROR, SOURCE_AGENT, message)
    if status == "error":
        source, message = split_error(conversation.get("error"))
        return ConversationEnd(
            STATUS_ERROR, source, message or "the conversation ended with an error"
        )
    return None
