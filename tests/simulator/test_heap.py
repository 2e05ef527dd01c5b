"""A run keeps the collector off older objects, and leaves nothing frozen behind."""

from __future__ import annotations

import asyncio
import gc

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.schemas import Scenario, UserConfig
from tracesim.schemas.llm_config import LLMConfig
from tracesim.simulator import Runner, UserFactory, make_simulator_provider
from tracesim.simulator.agent import BaseAgent
from tracesim.simulator.connectors.python import PythonConnector
from tracesim.simulator.heap import frozen_heap


class SeesTheFreeze(BaseAgent):
    frozen: list[int] = []

    async def execute(self, user_query: str, **kwargs: object) -> str:
        SeesTheFreeze.frozen.append(gc.get_freeze_count())
        return "ok"


def test_a_run_freezes_older_objects_and_unfreezes_them_after() -> None:
    SeesTheFreeze.frozen = []
    assert gc.get_freeze_count() == 0
    runner = Runner(
        tracer=make_simulator_provider(exporter=InMemorySpanExporter()).get_tracer("t"),
        connector_factory=lambda: PythonConnector(SeesTheFreeze),
        user_factory=UserFactory(UserConfig(type="scripted"), LLMConfig()),
        scenarios=[Scenario(scenario_id="s", turns=["a", "b"])],
    )
    asyncio.run(runner.run())
    assert len(SeesTheFreeze.frozen) == 2 and all(count > 0 for count in SeesTheFreeze.frozen)
    assert gc.get_freeze_count() == 0


def test_an_applications_own_freeze_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 1000)  # the application froze some
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    with frozen_heap():
        pass
    assert calls == []
