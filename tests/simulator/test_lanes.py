"""In-process agents run inline on lanes; the watchdog handles one that blocks its lane.

A blocking agent in the middle of a run is recorded as timed out (turn and
conversation), every other conversation completes on the remaining and fresh
lanes, and the blocked code, once it returns, records nothing twice. No
cross-thread call is made per turn.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.schemas import Scenario, UserConfig
from tracesim.schemas.conventions import TRACESIM
from tracesim.schemas.llm_config import LLMConfig
from tracesim.simulator import Runner, UserFactory, lane_calls, make_simulator_provider
from tracesim.simulator.agent import BaseAgent
from tracesim.simulator.connectors.python import PythonConnector
from tracesim.simulator.results import ConversationResult, TurnResult

RELEASE = threading.Event()
"""Set by a test to let blocked agent code return."""
BLOCKED = threading.Event()
"""Set by the agent when it starts blocking."""


class BlocksOnStop(BaseAgent):
    """Answers at once, except `stop`: a sync wait inside async code (blocks its loop)."""

    async def execute(self, user_query: str, **kwargs: Any) -> str:
        if user_query == "stop":
            BLOCKED.set()
            RELEASE.wait(30)
        return f"{user_query}@{threading.current_thread().name}"


class BlocksOnClose(BaseAgent):
    async def execute(self, user_query: str, **kwargs: Any) -> str:
        return "ok"

    async def close(self) -> None:
        RELEASE.wait(30)


class Observer:
    def __init__(self) -> None:
        self.turns: Counter[tuple[str, int]] = Counter()
        self.ends: Counter[str] = Counter()
        self.threads: set[str] = set()

    def on_turn_end(self, conversation: ConversationResult, turn: TurnResult) -> None:
        self.threads.add(threading.current_thread().name)
        self.turns[(conversation.chat_id, turn.turn_id)] += 1

    def on_conversation_end(self, conversation: ConversationResult) -> None:
        self.threads.add(threading.current_thread().name)
        self.ends[conversation.chat_id] += 1


@pytest.fixture(autouse=True)
def _release_blocked_agents() -> Any:
    RELEASE.clear()
    BLOCKED.clear()
    yield
    RELEASE.set()  # never leave a thread blocked behind a failed test


def _runner(agent: type, scenarios: list[Scenario], **options: Any) -> tuple[Runner, Any, Any]:
    exporter = InMemorySpanExporter()
    provider = make_simulator_provider(exporter=exporter)
    runner = Runner(
        tracer=provider.get_tracer("test"),
        connector_factory=lambda: PythonConnector(agent),
        user_factory=UserFactory(UserConfig(type="scripted"), LLMConfig()),
        scenarios=scenarios,
        **options,
    )
    return runner, provider, exporter


def _lane_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tracesim-lane-")]


def test_a_blocking_agent_mid_run_is_reported_and_every_other_conversation_completes() -> None:
    scenarios = [
        Scenario(scenario_id="fine", turns=["a", "b", "c"], repeats=5),
        Scenario(scenario_id="blocks", turns=["a", "stop", "never sent"]),
        Scenario(scenario_id="after", turns=["a", "b"], repeats=4),
    ]
    observer = Observer()
    runner, provider, exporter = _runner(
        BlocksOnStop, scenarios, num_workers=1, turn_timeout=0.3, observer=observer
    )
    result = asyncio.run(runner.run())

    by_scenario: dict[str, list[ConversationResult]] = {}
    for conversation in result.conversations:
        by_scenario.setdefault(conversation.scenario_id, []).append(conversation)
    assert len(result.conversations) == 10
    assert all(c.status == "completed" for c in by_scenario["fine"] + by_scenario["after"])
    (blocked,) = by_scenario["blocks"]
    assert blocked.status == "error"
    assert [t.status for t in blocked.turns] == ["ok", "timeout"]
    assert "blocked its event loop" in (blocked.turns[1].error or "")
    assert blocked.error is not None and blocked.error.startswith("agent: turn 1 timeout")
    # the agent ran inline on the one lane; after the stall the run went on on a fresh one
    def lanes(scenario_id: str) -> set[str]:
        return {t.agent_message.split("@")[1] for c in by_scenario[scenario_id] for t in c.turns}

    assert lanes("fine") == {blocked.turns[0].agent_message.split("@")[1]} == {"tracesim-lane-0"}
    assert lanes("after") == {"tracesim-lane-1"}
    # progress reached the observer on the run's own thread, once per turn and conversation
    assert observer.threads == {threading.current_thread().name}
    assert set(observer.ends.values()) == {1} and len(observer.ends) == 10
    assert set(observer.turns.values()) == {1} and len(observer.turns) == result.num_turns

    # the blocked code returns later: its lane unwinds and records nothing twice
    RELEASE.set()
    for thread in _lane_threads():
        thread.join(10)
    provider.force_flush()
    spans = exporter.get_finished_spans()
    conversations = Counter(s.attributes["tracesim.chat_id"] for s in spans
                            if s.name == "tracesim.conversation")  # fmt: skip
    turns = Counter((s.attributes["tracesim.chat_id"], s.attributes["tracesim.turn_id"])
                    for s in spans if s.name == "tracesim.turn")  # fmt: skip
    assert set(conversations.values()) == {1} and len(conversations) == 10
    assert set(turns.values()) == {1} and len(turns) == result.num_turns
    (stalled,) = [s for s in spans if s.name == "tracesim.turn"
                  and s.attributes[TRACESIM.TURN_STATUS] == "timeout"]  # fmt: skip
    assert "blocked its event loop" in stalled.attributes["tracesim.error"]
    assert stalled.attributes["tracesim.chat_id"] == blocked.chat_id


def test_no_cross_thread_call_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = Counter[str]()
    real = asyncio.BaseEventLoop.call_soon_threadsafe

    def counting(self: asyncio.BaseEventLoop, *args: Any, **kwargs: Any) -> Any:
        calls[threading.current_thread().name] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(asyncio.BaseEventLoop, "call_soon_threadsafe", counting)
    scenarios = [Scenario(scenario_id="s", turns=[f"m{i}" for i in range(20)], repeats=10)]
    runner, _, _ = _runner(
        BlocksOnStop, scenarios, num_workers=2, turn_timeout=30.0, max_turns=20
    )
    result = asyncio.run(runner.run())
    assert result.num_turns == 200 and result.completed_turns == 200
    # each lane hands its end back once; nothing per turn or per conversation
    assert sum(n for name, n in calls.items() if name.startswith("tracesim-lane-")) <= 2


def test_ctrl_c_while_an_agent_blocks_records_it_interrupted() -> None:
    scenarios = [Scenario(scenario_id="blocks", turns=["stop"])]
    runner, provider, exporter = _runner(BlocksOnStop, scenarios, num_workers=1, turn_timeout=60)

    async def stop_while_blocked() -> None:
        task = asyncio.create_task(runner.run())
        while not BLOCKED.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_while_blocked())
    provider.force_flush()
    (conversation,) = [s for s in exporter.get_finished_spans()
                       if s.name == "tracesim.conversation"]  # fmt: skip
    assert conversation.attributes[TRACESIM.CONVERSATION_STATUS] == "interrupted"
    assert "the run was stopped" in conversation.attributes["tracesim.error"]


def test_a_close_that_blocks_its_lane_ends_the_conversation_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lane_calls, "CLOSE_TIMEOUT", 0.2)
    scenarios = [Scenario(scenario_id="s", turns=["a", "b"], repeats=3)]
    runner, _, _ = _runner(BlocksOnClose, scenarios, num_workers=1, turn_timeout=5.0)
    result = asyncio.run(runner.run())
    assert [c.num_turns for c in result.conversations] == [2, 2, 2]
    assert all(c.completed_turns == 2 for c in result.conversations)
    assert all("close()" in (c.error or "") for c in result.conversations)


class SyncAgent:
    """A plain `def execute` (no async): answers directly, or blocks on `stop`."""

    def execute(self, user_query: str, **kwargs: Any) -> str:
        if user_query == "stop":
            RELEASE.wait(30)
        return f"sync {user_query}"


def test_a_sync_agent_answers_and_one_that_blocks_times_out() -> None:
    scenarios = [
        Scenario(scenario_id="fine", turns=["a", "b"], repeats=2),
        Scenario(scenario_id="blocks", turns=["a", "stop"]),
    ]
    runner, _, _ = _runner(SyncAgent, scenarios, num_workers=2, turn_timeout=0.3)
    result = asyncio.run(runner.run())
    fine = [c for c in result.conversations if c.scenario_id == "fine"]
    assert [t.agent_message for c in fine for t in c.turns] == ["sync a", "sync b"] * 2
    (blocked,) = [c for c in result.conversations if c.scenario_id == "blocks"]
    assert [t.status for t in blocked.turns] == ["ok", "timeout"] and blocked.status == "error"


class LeavesATaskRunning(BaseAgent):
    cancelled = 0

    async def execute(self, user_query: str, **kwargs: Any) -> str:
        asyncio.get_running_loop().create_task(self._poll())
        return "ok"

    async def _poll(self) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            LeavesATaskRunning.cancelled += 1
            raise


def test_tasks_an_agent_leaves_running_are_cancelled_when_its_lane_ends() -> None:
    LeavesATaskRunning.cancelled = 0
    scenarios = [Scenario(scenario_id="s", turns=["a", "b"], repeats=3)]
    runner, _, _ = _runner(LeavesATaskRunning, scenarios, num_workers=2, turn_timeout=5.0)
    result = asyncio.run(runner.run())
    assert result.completed_turns == 6
    for thread in _lane_threads():
        thread.join(10)
    assert LeavesATaskRunning.cancelled == 6


class HangsOnWait(BaseAgent):
    """`hang` awaits forever (cooperative); other turns use a timeout of their own."""

    cancelled = 0

    async def execute(self, user_query: str, **kwargs: Any) -> str:
        if user_query == "hang":
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                HangsOnWait.cancelled += 1
                raise
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(5)
        except TimeoutError:
            return f"own timeout@{threading.current_thread().name}"
        return "no timeout"


@pytest.mark.skipif(not hasattr(asyncio, "timeout"), reason="the agent uses asyncio.timeout")
def test_a_cooperative_hang_is_cancelled_at_its_deadline_and_the_lane_goes_on() -> None:
    HangsOnWait.cancelled = 0
    scenarios = [
        Scenario(scenario_id="hangs", turns=["hang", "never sent"]),
        Scenario(scenario_id="fine", turns=["a", "b"], repeats=2),
    ]
    runner, _, _ = _runner(HangsOnWait, scenarios, num_workers=1, turn_timeout=0.3)
    result = asyncio.run(runner.run())
    (hung,) = [c for c in result.conversations if c.scenario_id == "hangs"]
    assert [t.status for t in hung.turns] == ["timeout"] and HangsOnWait.cancelled == 1
    assert hung.turns[0].error == "no answer within 0.3 s"  # not a blocked loop
    # the same lane went on, and the agent's own timeouts still work there
    replies = [t.agent_message for c in result.conversations if c.scenario_id == "fine"
               for t in c.turns]  # fmt: skip
    assert replies == ["own timeout@tracesim-lane-0"] * 4
