"""Python agents run on their own thread and loop: as few trips there as the guarantees allow."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from tracesim.simulator.agent import BaseAgent
from tracesim.simulator.connectors import agent_loop
from tracesim.simulator.connectors.agent_loop import AgentLoop
from tracesim.simulator.connectors.base import TurnContext
from tracesim.simulator.connectors.python import PythonConnector


class Echo(BaseAgent):
    async def execute(self, user_query: str, **kwargs: Any) -> str:
        return user_query


class Closing(Echo):
    closed = 0

    async def close(self) -> None:
        Closing.closed += 1


def _trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every `AgentLoop.run` (one trip to the agent's thread and back)."""
    trips: list[str] = []
    real = AgentLoop.run

    async def counting(self: AgentLoop, make: Any) -> Any:
        trips.append(getattr(make, "__name__", "lambda"))
        return await real(self, make)

    monkeypatch.setattr(AgentLoop, "run", counting)
    return trips


async def _conversation(agent_class: type, turns: int) -> list[str]:
    connector = PythonConnector(agent_class)
    chat_id = await connector.open()
    replies = []
    for turn_id in range(turns):
        context = TurnContext(chat_id=chat_id, turn_id=turn_id)
        replies.append((await connector.send(f"m{turn_id}", turn=context)).content)
    await connector.close()
    return replies


def test_one_trip_to_open_and_one_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    trips = _trips(monkeypatch)
    assert asyncio.run(_conversation(Echo, 3)) == ["m0", "m1", "m2"]
    # create + chat id together, one per turn; the inherited no-op close and the release
    # ping of a loop whose last call completed cost nothing
    assert len(trips) == 1 + 3


def test_an_overridden_close_still_runs_on_the_agents_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    trips = _trips(monkeypatch)
    Closing.closed = 0
    asyncio.run(_conversation(Closing, 2))
    assert Closing.closed == 1 and len(trips) == 1 + 2 + 1


def test_a_loop_left_blocked_by_a_timed_out_call_is_not_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agent_loop, "_idle", [])
    unblock = threading.Event()

    async def blocks() -> None:
        unblock.wait()  # sync code holding the agent's loop

    async def scenario() -> AgentLoop:
        loop = AgentLoop()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(loop.run(blocks), 0.05)
        await loop.release(timeout=0.05)  # the ping cannot be answered: closed, not pooled
        return loop

    loop = None
    try:
        loop = asyncio.run(scenario())
        assert loop not in agent_loop._idle
    finally:
        unblock.set()
        if loop is not None:
            loop._thread.join(5)


def test_a_loop_whose_last_call_completed_is_pooled_without_a_ping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agent_loop, "_idle", [])  # earlier tests may have filled the pool
    async def scenario() -> AgentLoop:
        loop = AgentLoop()
        assert await loop.run(lambda: asyncio.sleep(0, "ok")) == "ok"
        trips = _trips(monkeypatch)
        await loop.release()
        assert trips == []
        return loop

    loop = asyncio.run(scenario())
    assert loop in agent_loop._idle
    agent_loop._idle.remove(loop)
    loop.close()
