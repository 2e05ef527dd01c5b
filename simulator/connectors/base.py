"""The connector interface: one conversation's link to the agent under test."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from tracesim.schemas import AgentResponse

__all__ = ["AgentConnector", "ConnectorError", "TurnContext"]


@dataclass(frozen=True)
class TurnContext:
    """What a connector needs to send one turn.

    `headers` already holds the W3C `traceparent` and `baggage` of the turn's
    `tracesim.turn` span; HTTP connectors send them with every request, and
    in-process connectors run with that OTel context active instead.
    `history` is the conversation so far as chat messages
    (`{"role": "user" | "assistant", "content": ...}`), this turn's user
    message excluded.
    """

    chat_id: str
    turn_id: int
    headers: dict[str, str] = field(default_factory=dict)
    history: tuple[dict[str, str], ...] = ()


class AgentConnector(ABC):
    """One instance per conversation. Not thread-safe; used from one task.

    Errors a connector raises from `send` are recorded on the turn by the
    runner (the run goes on); connectors translate their transport's
    exceptions into a `ConnectorError` with a message saying what to do.
    """

    in_process: ClassVar[bool] = False
    """True when the agent's own code runs in this process (it may block an event loop):
    the runner then drives each conversation on a lane watched for blocking."""
    sends_headers: ClassVar[bool] = True
    """False when the connector never reads `TurnContext.headers` (spares encoding them)."""

    @abstractmethod
    async def open(self) -> str:
        """Start the conversation and return its chat_id."""

    @abstractmethod
    async def send(self, user_message: str, *, turn: TurnContext) -> AgentResponse:
        """Send one user message; return the reply and any explicit tool calls."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release what `open` acquired. Safe to call twice."""


class ConnectorError(RuntimeError):
    """The agent could not be reached or answered with an error."""
