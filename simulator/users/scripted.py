"""`ScriptedUser`: replays a fixed list of messages; the in-memory `SimulatedUser`.

Deterministic and offline: the default for scenarios that list `turns`,
and the user of choice in tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tracesim.simulator.users.base import Message, SimulatedUser

__all__ = ["ScriptedUser"]


class ScriptedUser(SimulatedUser):
    """Sends `messages` in order, one per turn; ends when they are exhausted."""

    needs_home_loop: ClassVar[bool] = False  # pure: runs on whichever loop drives it

    def __init__(self, messages: Sequence[str]) -> None:
        self._messages = tuple(messages)
        self._next = 0

    async def next_message(self, history: Sequence[Message]) -> str | None:
        if self._next >= len(self._messages):
            return None
        message = self._messages[self._next]
        self._next += 1
        return message

    def finished(self) -> bool:
        return self._next >= len(self._messages)
