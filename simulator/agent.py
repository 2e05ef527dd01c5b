"""`BaseAgent`: what a python agent under test implements (SPEC §4).

One instance per conversation. `get_chat_id()` IS the conversation's
chat_id; `execute()` answers one user message. The agent is never given the
simulated user's goal or knowledge (they are the test oracle); it receives
the user's message and `kwargs["metadata"] = {"chat_id", "turn_id"}`, and
runs with the turn's OpenTelemetry context (span + baggage) active.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from tracesim.schemas import AgentResponse
from tracesim.simulator.ids import new_chat_id

__all__ = ["BaseAgent"]


class BaseAgent(ABC):
    """Subclass it and implement `execute`; override `get_chat_id` to choose ids.

    The constructor receives `agent_config.init_kwargs` as keyword arguments.
    arksim-style classes (same method names, another base class) are accepted
    too: the connector only needs `execute` and, optionally, `get_chat_id`.
    """

    _chat_id: str | None = None

    async def get_chat_id(self) -> str:
        """The conversation's id; the default is a random uuid4 hex, fixed per instance."""
        if self._chat_id is None:
            self._chat_id = new_chat_id()
        return self._chat_id

    @abstractmethod
    async def execute(self, user_query: str, **kwargs: Any) -> str | AgentResponse:
        """Answer one user message.

        `kwargs["metadata"]` holds `{"chat_id": str, "turn_id": int}`. Return
        the reply as text, or an `AgentResponse` carrying the tool calls the
        agent made (recorded as explicit calls, source `agent_response`).
        """

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Called once when the conversation ends; release resources here."""
