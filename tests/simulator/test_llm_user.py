"""The LLM-simulated user against the fake OpenAI-compatible server."""

from __future__ import annotations

from tests.fakes.openai_server import chat_completion, fake_openai
from tests.simulator.conftest import Project, custom_agent, query

AGENT = """
from tracesim import BaseAgent

SEEN = []

class Recorder(BaseAgent):
    async def execute(self, user_query, **kwargs):
        SEEN.append((user_query, dict(kwargs)))
        return f"reply to: {user_query}"
"""

SCENARIO = {
    "scenario_id": "refund-llm",
    "goal": "Get a refund for order SECRET-GOAL-42",
    "user_profile": {"name": "Robin", "personality": "impatient"},
    "knowledge": [{"content": "Order number SECRET-GOAL-42"}, "Paid with a gift card"],
    "agent_context": "A shop's support assistant.",
}


def test_llm_user_plays_the_persona_and_stops_on_the_token(project: Project) -> None:
    def handler(body: dict) -> dict:
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        if turn >= 2:
            return chat_completion("Thanks! ###STOP###")
        return chat_completion(f"user message {turn}")

    project.agent(AGENT, "recorder_agent.py")
    project.scenarios([SCENARIO])
    with fake_openai(handler) as server:
        project.config(
            agent_config=custom_agent("recorder_agent.py"),
            llm={"base_url": server.base_url, "model": "sim-user", "temperature": 0.7},
            seed=7,
            max_turns=5,
        )
        outcome = project.run()
        requests = list(server.requests)
    assert outcome.exit_code == 0, outcome.error
    conversation = outcome.result.conversations[0]
    assert conversation.status == "completed" and conversation.num_turns == 2
    # Its system prompt holds persona, goal and knowledge; seed and temperature are sent.
    system = requests[0]["messages"][0]
    assert system["role"] == "system"
    for fact in ("Robin", "impatient", "SECRET-GOAL-42", "gift card", "###STOP###"):
        assert fact in system["content"]
    assert requests[0]["model"] == "sim-user" and requests[0]["temperature"] == 0.7
    assert requests[0]["seed"] == 7
    # It sees the conversation so far: the agent's reply comes back as the other side.
    last = requests[-1]["messages"]
    assert {"role": "user", "content": "reply to: user message 0"} in last
    assert {"role": "assistant", "content": "user message 0"} in last
    # The agent saw only the user's messages, never the goal or knowledge.
    turns = query(
        outcome.db_path,
        "SELECT user_message, agent_message FROM turns WHERE run_id = ? ORDER BY turn_id",
        [outcome.run_id],
    )
    assert turns == [
        ("user message 0", "reply to: user message 0"),
        ("user message 1", "reply to: user message 1"),
    ]
    stored = " ".join(
        str(row)
        for row in query(
            outcome.db_path,
            "SELECT attributes FROM spans WHERE name != 'tracesim.conversation' "
            "AND name != 'tracesim.run'",
        )
    )
    assert "SECRET-GOAL-42" not in stored


def test_llm_user_stops_at_max_turns(project: Project) -> None:
    project.agent(AGENT, "recorder_agent.py")
    project.scenarios([SCENARIO])
    with fake_openai(lambda body: chat_completion("still talking")) as server:
        project.config(
            agent_config=custom_agent("recorder_agent.py"),
            llm={"base_url": server.base_url},
            max_turns=3,
        )
        outcome = project.run()
    assert outcome.exit_code == 0, outcome.error
    conversation = outcome.result.conversations[0]
    assert conversation.status == "max_turns" and conversation.num_turns == 3
