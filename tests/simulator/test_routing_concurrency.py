"""Many conversations at once never mix their spans (real Collector on loopback)."""

from __future__ import annotations

from tests.simulator.conftest import Project, custom_agent, query

AGENT = """
import asyncio
from opentelemetry import trace
from tracesim import BaseAgent, instrument

instrument(service_name="concurrency-agent", openai_agents=False)
tracer = trace.get_tracer("test.agent")


class Interleaving(BaseAgent):
    async def execute(self, user_query, **kwargs):
        meta = kwargs["metadata"]
        with tracer.start_as_current_span("agent.step") as span:
            span.set_attribute("seen.chat_id", meta["chat_id"])
            span.set_attribute("seen.turn_id", meta["turn_id"])
            for _ in range(3):
                await asyncio.sleep(0)  # yield to the other conversations
                with tracer.start_as_current_span("agent.inner"):
                    await asyncio.sleep(0)
        return f"{meta['chat_id']}:{meta['turn_id']}"
"""


def test_concurrent_conversations_keep_their_own_spans(project: Project) -> None:
    project.agent(AGENT, "concurrent_agent.py")
    project.scenarios([{"scenario_id": f"s{i}", "turns": ["a", "b", "c"]} for i in range(8)])
    project.config(
        agent_config=custom_agent("concurrent_agent.py"),
        num_conversations_per_scenario=5,
        num_workers=8,
    )
    outcome = project.run()
    assert outcome.exit_code == 0, outcome.error
    assert outcome.result.num_turns == 120
    # Every agent span sits in its turn's trace and is keyed to that turn.
    rows = query(
        outcome.db_path,
        """SELECT s.name, s.chat_id, s.turn_id, s.attributes->>'tracesim.chat_id',
                  t.chat_id, t.turn_id
           FROM spans s JOIN spans t ON t.trace_id = s.trace_id AND t.name = 'tracesim.turn'
           WHERE s.name LIKE 'agent.%'""",
    )
    assert len(rows) == 120 * 4
    for _, chat_id, turn_id, baggage_chat, turn_chat, turn_turn in rows:
        assert (chat_id, turn_id) == (turn_chat, turn_turn)
        assert baggage_chat == turn_chat
    # What the agent saw in metadata matches the turn its span belongs to.
    seen = query(
        outcome.db_path,
        """SELECT attributes->>'seen.chat_id', CAST(attributes->>'seen.turn_id' AS INTEGER),
                  chat_id, turn_id FROM spans WHERE name = 'agent.step'""",
    )
    assert all((a, b) == (c, d) for a, b, c, d in seen)
    replies = query(
        outcome.db_path,
        "SELECT chat_id, turn_id, agent_message FROM turns WHERE run_id = ?",
        [outcome.run_id],
    )
    assert len(replies) == 120
    assert all(msg == f"{chat}:{turn}" for chat, turn, msg in replies)
