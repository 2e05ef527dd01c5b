"""arksim's simulated-user settings: `simulated_user_prompt_template` (Jinja2 over
`scenario.*`) and `provider`, end to end through a provider's stand-in API."""

from __future__ import annotations

import asyncio

import pytest
from tracesim.schemas.config import UserConfig
from tracesim.schemas.llm_config import LLMConfig
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.users import UserFactory
from tracesim.simulator.users.base import UserConfigError
from tracesim.simulator.users.llm import render_prompt_template

from tests.fakes.provider_servers import anthropic_message, fake_provider

TEMPLATE = (
    "Context: {{ scenario.agent_context }}\n"
    "You are {{ scenario.user_profile }}. Goal: {{ scenario.goal }}\n"
    "{% if scenario.knowledge and scenario.knowledge|length == 1 %}"
    "Know: {{ scenario.knowledge[0].content }}"
    "{% elif scenario.knowledge|length > 1 %}Several facts.{% endif %}"
)
SCENARIO = Scenario(
    scenario_id="s1",
    goal="Cancel order 42",
    user_profile="a busy nurse",
    agent_context="an online shop",
    knowledge=[{"content": "order 42 was placed yesterday"}],
)


def test_template_sees_arksims_variables() -> None:
    text = render_prompt_template(TEMPLATE, SCENARIO)
    assert "Context: an online shop" in text and "You are a busy nurse." in text
    assert "Goal: Cancel order 42" in text and "Know: order 42 was placed yesterday" in text
    two = SCENARIO.model_copy(update={"knowledge": ["a", "b"]})
    assert "Several facts." in render_prompt_template(TEMPLATE, two)


def test_broken_template_fails_before_the_run() -> None:
    users = UserFactory(UserConfig(prompt_template="{% if %}"), LLMConfig(base_url="http://x"))
    with pytest.raises(UserConfigError, match="simulated_user_prompt_template"):
        users.check([SCENARIO])


def test_sandbox_refuses_unsafe_template() -> None:
    with pytest.raises(UserConfigError):
        render_prompt_template("{{ ''.__class__.__mro__[1].__subclasses__() }}", SCENARIO)


def test_llm_user_with_template_on_anthropic() -> None:
    with fake_provider(
        "anthropic", lambda body, _: anthropic_message("Hi, cancel 42 please")
    ) as fake:
        llm = LLMConfig(provider="anthropic", model="claude-x", base_url=fake.base_url)
        users = UserFactory(UserConfig(type="llm", prompt_template=TEMPLATE), llm, seed=1)
        users.check([SCENARIO])
        user = users.create(SCENARIO, conversation_index=0)

        async def first() -> str | None:
            try:
                return await user.next_message([])
            finally:
                await users.aclose()

        message = asyncio.run(first())
    assert message == "Hi, cancel 42 please"
    [body] = fake.requests
    assert body["system"].startswith("Context: an online shop")
    assert body["model"] == "claude-x" and body["messages"][0]["role"] == "user"
