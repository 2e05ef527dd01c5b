"""`SimulatedUser`: who talks to the agent, one instance per conversation.

The transcript it sees is a list of `{"role": "user" | "assistant",
"content": str}` messages where `user` is the simulated user and
`assistant` the agent under test. Returning None ends the conversation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

__all__ = ["Message", "SimulatedUser", "UserConfigError"]

Message = dict[str, str]
"""One transcript entry: `{"role": "user" | "assistant", "content": ...}`."""


class SimulatedUser(ABC):
    """Produces the next user message from the conversation so far."""

    needs_home_loop: ClassVar[bool] = True
    """True when the user's calls must run on the loop that started the run (a shared
    async client, the LLM limiter); False lets a conversation's lane call it inline."""

    @abstractmethod
    async def next_message(self, history: Sequence[Message]) -> str | None:
        """The next message to send to the agent, or None when the user is done."""

    def finished(self) -> bool:
        """True when the user has nothing more to say; lets a conversation that used its
        last scripted message exactly at `max_turns` count as completed."""
        return False

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (HTTP clients). Safe to call twice."""


class UserConfigError(ValueError):
    """The simulated user cannot be set up (e.g. no API key); raised before the run starts."""
