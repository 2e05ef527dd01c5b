"""A run never loses a conversation silently: oversized turn data is truncated with a marker,
a blocking agent times out without stalling the others, and every conversation run is
cross-checked against the store (a missing one fails the run loudly)."""

from __future__ import annotations

from typing import Any

from tracesim.schemas.conventions import TRACESIM
from tracesim.simulator.span_limits import TRUNCATED_MARKER, TURN_TEXT_LIMIT

from tests.simulator.conftest import Project, custom_agent, query

BIG_AGENT = """
from tracesim import BaseAgent


class Verbose(BaseAgent):
    async def execute(self, user_query, **kwargs):
        return "y" * (17 << 20)  # past the collector's 16 MiB request limit
"""


def test_an_oversized_reply_is_truncated_and_stored(project: Project) -> None:
    project.agent(BIG_AGENT, "verbose_agent.py")
    project.scenarios([{"scenario_id": "big", "turns": ["talk"]}])
    project.config(agent_config=custom_agent("verbose_agent.py"))
    outcome = project.run()
    assert outcome.exit_code == 0, outcome.error
    (message,) = query(
        outcome.db_path, "SELECT agent_message FROM turns WHERE run_id = ?", [outcome.run_id]
    )[0]
    assert TRUNCATED_MARKER in message
    assert len(message.encode()) <= TURN_TEXT_LIMIT + 200


BLOCKING_AGENT = """
import threading
from tracesim import BaseAgent


class Blocking(BaseAgent):
    async def execute(self, user_query, **kwargs):
        if user_query == "block":
            threading.Event().wait(20)  # a sync call inside async code: blocks its loop
        return "done"
"""


def test_a_blocking_agent_times_out_and_never_stalls_others(project: Project) -> None:
    project.agent(BLOCKING_AGENT, "blocking_agent.py")
    project.scenarios(
        [
            {"scenario_id": "blocks", "turns": ["block"]},
            {"scenario_id": "fine", "turns": ["a", "b", "c"]},
        ]
    )
    project.config(agent_config=custom_agent("blocking_agent.py", timeout=1.0), num_workers=2)
    outcome = project.run()
    assert outcome.exit_code == 0, outcome.error
    statuses = query(
        outcome.db_path,
        "SELECT scenario_id, turn_id, status FROM turns WHERE run_id = ? ORDER BY 1, 2",
        [outcome.run_id],
    )
    assert statuses == [("blocks", 0, "timeout"), ("fine", 0, "ok"), ("fine", 1, "ok"),
                        ("fine", 2, "ok")]  # fmt: skip


def test_a_blocking_agent_mid_run_on_the_only_worker_lets_the_rest_run(project: Project) -> None:
    project.agent(BLOCKING_AGENT, "blocking_agent.py")
    project.scenarios(
        [
            {"scenario_id": "blocks", "turns": ["a", "block", "never sent"]},
            {"scenario_id": "later", "turns": ["a", "b"], "repeats": 3},
        ]
    )
    project.config(agent_config=custom_agent("blocking_agent.py", timeout=0.5), num_workers=1)
    outcome = project.run()
    assert outcome.exit_code == 0, outcome.error  # every turn run is in the store
    turns = query(
        outcome.db_path,
        "SELECT scenario_id, turn_id, status, error FROM turns WHERE run_id = ? ORDER BY 1, 2",
        [outcome.run_id],
    )
    assert [(t[0], t[1], t[2]) for t in turns if t[0] == "blocks"] == [
        ("blocks", 0, "ok"), ("blocks", 1, "timeout")
    ]  # fmt: skip
    assert "blocked its event loop" in turns[1][3]
    assert sorted(t[2] for t in turns if t[0] == "later") == ["ok"] * 6
    statuses = query(
        outcome.db_path,
        "SELECT scenario_id, status FROM conversations WHERE run_id = ? ORDER BY 1, 2",
        [outcome.run_id],
    )
    assert statuses == [("blocks", "error")] + [("later", "completed")] * 3


FINE_AGENT = """
from tracesim import BaseAgent


class Fine(BaseAgent):
    async def execute(self, user_query, **kwargs):
        return "ok"
"""


def test_a_conversation_missing_from_the_store_fails_the_run(
    project: Project, monkeypatch: Any
) -> None:
    # the spans of one conversation never reach the store (lost on the way, whatever the
    # collector's decoding path): the run must fail and name that conversation only
    from tracesim.simulator.export_split import SplittingExporter

    real_export = SplittingExporter.export

    def lose_vanishing(self: Any, spans: Any) -> Any:
        kept = [s for s in spans if (s.attributes or {}).get(TRACESIM.SCENARIO_ID) != "vanishes"]
        return real_export(self, kept)

    monkeypatch.setattr(SplittingExporter, "export", lose_vanishing)
    project.agent(FINE_AGENT, "fine_agent.py")
    project.scenarios(
        [{"scenario_id": "vanishes", "turns": ["a"]}, {"scenario_id": "stays", "turns": ["a"]}]
    )
    project.config(agent_config=custom_agent("fine_agent.py"))
    outcome = project.run()
    assert outcome.exit_code != 0
    assert "vanishes" in (outcome.error or "") and "stays" not in (outcome.error or "")


def test_exports_are_split_to_stay_under_the_collector_limit() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from tracesim.simulator.export_split import SplittingExporter

    parts: list[int] = []

    class Recorder(InMemorySpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            parts.append(len(spans))
            return super().export(spans)

    recorder = Recorder()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(recorder))
    spans = []
    for i in range(10):
        with provider.get_tracer("t").start_as_current_span(f"s{i}") as span:
            span.set_attribute("big", "z" * (1 << 20))
            spans.append(span)
    parts.clear()
    splitting = SplittingExporter(recorder, max_bytes=3 << 20)
    assert splitting.export(spans) == SpanExportResult.SUCCESS
    assert sum(parts) == 10 and max(parts) <= 2
