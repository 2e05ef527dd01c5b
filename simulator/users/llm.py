"""`LLMUser`: a model (any `llm.provider`) plays the scenario's user.

Its system prompt holds the persona (`user_profile`), the `goal` and the
`knowledge`: the test oracle stays on this side, the agent never sees it.
The model sees the conversation from the user's side (the agent's replies
as `user` messages, its own as `assistant`) and ends the conversation by
writing the stop token (default `###STOP###`); the runner also stops at
`max_turns`. Requests carry `seed` and the configured temperature, so runs
are reproducible where the API honours seeds.

`user.prompt_template` (arksim's `simulated_user_prompt_template`) replaces
the built-in instructions: a Jinja2 template rendered in a sandbox with
`scenario.{user_profile, goal, knowledge, agent_context}` (knowledge items
have `.content`), as arksim renders it.

`user.knowledge` (`all`, `per_turn`, `relevant`; `users.knowledge`) shows a scenario with
several knowledge items one fact a turn, as arksim does, instead of all of them up front.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracesim.providers import (
    ChatClient,
    ProviderError,
    make_chat_client,
    provider_unavailable_reason,
)
from tracesim.schemas.llm_config import LLMConfig
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.users.base import Message, SimulatedUser, UserConfigError
from tracesim.simulator.users.knowledge import KnowledgeSelector, KnowledgeStrategy

__all__ = [
    "LLMUser",
    "UserLLMUsage",
    "build_system_prompt",
    "make_user_client",
    "render_prompt_template",
]


@dataclass
class UserLLMUsage:
    """What the LLM simulated users asked of their model in one run (its cost is the run's
    to price: `tracesim run` prints it beside the judges')."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


_OPENING = "The conversation starts now. Write your first message to the assistant, in character."


def build_system_prompt(
    scenario: Scenario, *, stop_token: str, knowledge_per_turn: bool = False
) -> str:
    """The simulated user's instructions: persona, goal, knowledge (or, per turn, where it
    will come from), when to stop."""
    sections = [
        "You are role-playing a USER talking to an AI assistant (a customer-facing agent). "
        "Stay in character; write only the user's next message, short and natural. "
        "Never reveal that you are simulated and never act as the assistant.",
    ]
    if scenario.user_profile:
        sections.append(f"## Who you are\n{scenario.profile_text()}")
    sections.append(f"## Your goal\n{scenario.goal_text() or 'Get help from the assistant.'}")
    if scenario.knowledge and knowledge_per_turn:
        sections.append(
            "## What you know\nBefore each of your replies you receive reference knowledge "
            "for that turn in a message; use it when the assistant needs it, and never "
            "invent facts you were not given."
        )
    elif scenario.knowledge:
        facts = "\n".join(f"- {fact}" for fact in scenario.knowledge)
        sections.append(
            "## What you know (share a fact only when the assistant needs it)\n" + facts
        )
    if scenario.agent_context:
        sections.append(f"## About the assistant\n{scenario.agent_context_text()}")
    sections.append(
        "## Ending\nWhen your goal is achieved, or clearly cannot be achieved, "
        f"reply with exactly {stop_token} and nothing else."
    )
    return "\n\n".join(sections)


def render_prompt_template(template: str, scenario: Scenario) -> str:
    """arksim's simulated-user template rendered for `scenario` (Jinja2, sandboxed)."""
    try:
        from jinja2 import TemplateError
        from jinja2.sandbox import SandboxedEnvironment
    except ImportError as exc:  # pragma: no cover - jinja2 is a dependency
        raise UserConfigError("user.prompt_template needs `pip install jinja2`") from exc
    try:
        return (
            SandboxedEnvironment()
            .from_string(template)
            .render(
                scenario={
                    "agent_context": scenario.agent_context_text(),
                    "goal": scenario.goal_text(),
                    "knowledge": [{"content": fact} for fact in scenario.knowledge],
                    "user_profile": scenario.profile_text(),
                }
            )
        )
    except TemplateError as exc:
        raise UserConfigError(
            f"user.prompt_template (simulated_user_prompt_template) cannot be rendered for "
            f"scenario {scenario.scenario_id!r}: {exc}"
        ) from exc


def make_user_client(llm: LLMConfig) -> ChatClient:
    """The provider's chat client for `llm`; fails with a clear message when no key is set.

    With a `base_url` (a local or self-hosted server) a missing key is
    allowed and a placeholder is sent.
    """
    reason = provider_unavailable_reason(llm)
    if reason is not None:
        raise UserConfigError(
            f"the LLM simulated user cannot run: {reason}, or use scripted scenarios "
            "(`turns`) with user.type: scripted"
        )
    try:
        return make_chat_client(llm)
    except ProviderError as exc:
        raise UserConfigError(f"the LLM simulated user cannot run: {exc}") from exc


def hash_seed(text: str) -> int:
    """A stable seed from a text (Python's `hash` of a str changes per process)."""
    import zlib

    return zlib.crc32(text.encode("utf-8"))


class LLMUser(SimulatedUser):
    """Asks the model for each next user message."""

    def __init__(
        self,
        scenario: Scenario,
        *,
        client: ChatClient,
        llm: LLMConfig,
        stop_token: str = "###STOP###",
        seed: int | None = None,
        limiter: asyncio.Semaphore | None = None,
        prompt_template: str | None = None,
        usage: UserLLMUsage | None = None,
        knowledge: KnowledgeStrategy = "all",
    ) -> None:
        self._client = client
        self._usage = usage
        self._llm = llm
        self._stop_token = stop_token
        self._seed = seed
        self._limiter = limiter
        self._knowledge = KnowledgeSelector(
            scenario.knowledge,
            knowledge,
            seed=seed if seed is not None else hash_seed(scenario.scenario_id),
        )
        self.turn_knowledge: list[str | None] = []
        """The fact shown before each of the user's messages (None: all in the instructions)."""
        self.system_prompt = (
            render_prompt_template(prompt_template, scenario)
            if prompt_template
            else build_system_prompt(
                scenario,
                stop_token=stop_token,
                knowledge_per_turn=not self._knowledge.in_instructions,
            )
        )

    async def next_message(self, history: Sequence[Message]) -> str | None:
        messages: list[dict[str, str]] = [{"role": "system", "content": self.system_prompt}]
        messages.append({"role": "user", "content": _OPENING})
        for entry in history:
            # Seen from the simulated user: its own lines are `assistant`.
            role = "assistant" if entry["role"] == "user" else "user"
            messages.append({"role": role, "content": entry["content"]})
        fact = self._knowledge.pick(
            next((e["content"] for e in reversed(history) if e["role"] != "user"), None)
        )
        self.turn_knowledge.append(fact)
        if fact is not None:  # arksim's per-turn knowledge message, just before the reply
            messages.append(
                {"role": "user", "content": f"[Reference knowledge for this turn]:\n{fact}"}
            )
        request: dict[str, Any] = {
            "model": self._llm.model,
            "messages": messages,
            "temperature": self._llm.temperature,
        }
        if self._seed is not None:
            request["seed"] = self._seed
        if self._limiter is not None:
            async with self._limiter:
                completion = await self._client.complete(request)
        else:
            completion = await self._client.complete(request)
        if self._usage is not None:
            self._usage.requests += 1
            self._usage.input_tokens += completion.input_tokens
            self._usage.output_tokens += completion.output_tokens
        text = completion.content.strip()
        if not text or self._stop_token in text:
            return None
        return text
