"""Per-turn knowledge for the LLM simulated user (`user.knowledge`), as arksim selects it:
one fact a turn (`per_turn`), or the fact the agent asks about (`relevant`), through a
real provider client against a local stand-in API."""

from __future__ import annotations

import asyncio
from typing import Any

from tracesim.schemas.config import UserConfig
from tracesim.schemas.llm_config import LLMConfig
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.users import UserFactory
from tracesim.simulator.users.knowledge import KnowledgeSelector

from tests.fakes.openai_server import chat_completion, fake_openai

FACTS = ["Order number: A1001", "Email: dana@example.com", "Postcode: 75011"]
SCENARIO = Scenario(scenario_id="k", goal="Track order A1001", knowledge=FACTS)


def test_per_turn_shows_every_fact_once_before_repeating() -> None:
    selector = KnowledgeSelector(FACTS, "per_turn", seed=3)
    first_round = [selector.pick(None) for _ in FACTS]
    assert sorted(first_round) == sorted(FACTS)  # no repeat until all were shown
    assert selector.pick(None) in FACTS
    again = KnowledgeSelector(FACTS, "per_turn", seed=3)
    assert [again.pick(None) for _ in FACTS] == first_round  # reproducible from the seed


def test_relevant_answers_what_the_agent_asked_else_moves_on() -> None:
    selector = KnowledgeSelector(FACTS, "relevant", seed=0)
    assert selector.pick("Could you give me your email address?") == FACTS[1]
    assert selector.pick("And the postcode of the delivery?") == FACTS[2]
    assert selector.pick("Thanks, one moment.") == FACTS[0]  # nothing asked: the next fact
    assert KnowledgeSelector(FACTS[:1], "relevant").in_instructions  # one fact: all


def _converse(knowledge: str, agent_lines: list[str]) -> tuple[list[dict[str, Any]], Any]:
    with fake_openai(lambda body: chat_completion("ok")) as fake:
        users = UserFactory(
            UserConfig(type="llm", knowledge=knowledge), LLMConfig(base_url=fake.base_url)
        )
        user = users.create(SCENARIO, conversation_index=0)

        async def talk() -> None:
            history: list[dict[str, str]] = []
            try:
                for line in [None, *agent_lines]:
                    if line is not None:
                        history.append({"role": "assistant", "content": line})
                    history.append({"role": "user", "content": await user.next_message(history)})
            finally:
                await users.aclose()

        asyncio.run(talk())
    return fake.requests, user


def test_the_user_sees_the_fact_of_the_turn_not_all_of_them() -> None:
    requests, user = _converse("relevant", ["What is your email?", "And your postcode?"])
    system = requests[0]["messages"][0]["content"]
    assert "dana@example.com" not in system and "reference knowledge" in system
    last = [r["messages"][-1]["content"] for r in requests]
    assert last[1] == "[Reference knowledge for this turn]:\nEmail: dana@example.com"
    assert last[2] == "[Reference knowledge for this turn]:\nPostcode: 75011"
    assert user.turn_knowledge[1:] == [FACTS[1], FACTS[2]]


def test_all_keeps_every_fact_in_the_instructions() -> None:
    requests, user = _converse("all", ["What is your email?"])
    assert all(fact in requests[0]["messages"][0]["content"] for fact in FACTS)
    assert not any("Reference knowledge" in m["content"] for m in requests[1]["messages"])
    assert user.turn_knowledge == [None, None]


def test_an_arksim_template_gets_a_fact_a_turn_by_default() -> None:
    """arksim's template shows no fact when a scenario has several ("You will receive
    reference knowledge ... before each of your replies"): unset, `user.knowledge` then
    delivers them, or the user would never learn any."""
    template = (
        "Goal: {{ scenario.goal }}\n{% if scenario.knowledge|length > 1 %}You will receive "
        "reference knowledge in a user message before each reply.{% endif %}"
    )
    with fake_openai(lambda body: chat_completion("ok")) as fake:
        users = UserFactory(
            UserConfig(type="llm", prompt_template=template), LLMConfig(base_url=fake.base_url)
        )
        user = users.create(SCENARIO, conversation_index=0)

        async def first() -> None:
            try:
                await user.next_message([])
            finally:
                await users.aclose()

        asyncio.run(first())
    [body] = fake.requests
    assert not any(fact in body["messages"][0]["content"] for fact in FACTS)
    assert body["messages"][-1]["content"].startswith("[Reference knowledge for this turn]:\n")
    assert user.turn_knowledge[0] in FACTS
