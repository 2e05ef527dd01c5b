"""Pick and build the simulated user for each conversation.

`user.type: auto` plays scenarios that list `turns` with the scripted user
and the others with the LLM user. The LLM client is created once (and
checked before the run: no key and no base_url fails early); all LLM users
share one limiter of `llm.max_concurrency` requests in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from tracesim.schemas.config import UserConfig
from tracesim.schemas.llm_config import LLMConfig
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.users.base import SimulatedUser, UserConfigError
from tracesim.simulator.users.llm import (
    LLMUser,
    UserLLMUsage,
    make_user_client,
    render_prompt_template,
)
from tracesim.simulator.users.scripted import ScriptedUser

__all__ = ["UserFactory"]


class UserFactory:
    """Builds one `SimulatedUser` per conversation."""

    def __init__(
        self,
        user: UserConfig,
        llm: LLMConfig,
        *,
        seed: int | None = None,
        client: Any = None,
    ) -> None:
        self._user = user
        self._llm = llm
        self._seed = seed
        self._client = client
        self._limiter: asyncio.Semaphore | None = None
        self.usage = UserLLMUsage()
        """Requests and tokens of every LLM user built here."""

    def kind(self, scenario: Scenario) -> str:
        """`scripted` or `llm` for this scenario."""
        if self._user.type == "auto":
            return "scripted" if scenario.scripted else "llm"
        return self._user.type

    def check(self, scenarios: Sequence[Scenario]) -> None:
        """Fail before the run when a scenario cannot be played (raises UserConfigError)."""
        for index, scenario in enumerate(scenarios):
            if self.kind(scenario) == "scripted" and not scenario.scripted:
                raise UserConfigError(
                    f"scenario #{index} ({scenario.scenario_id!r}): user.type is 'scripted' but "
                    "the scenario has no 'turns'; add turns or use user.type: llm / auto"
                )
        llm_scenarios = [s for s in scenarios if self.kind(s) == "llm"]
        if self._user.prompt_template:
            for scenario in llm_scenarios:  # a broken template fails before the run
                render_prompt_template(self._user.prompt_template, scenario)
        if llm_scenarios and self._client is None:
            self._client = make_user_client(self._llm)

    def create(self, scenario: Scenario, *, conversation_index: int) -> SimulatedUser:
        """A fresh user; the LLM user's seed is `seed + conversation_index` so repeats differ."""
        if self.kind(scenario) == "scripted":
            return ScriptedUser(scenario.turns or [])
        if self._client is None:
            self._client = make_user_client(self._llm)
        if self._limiter is None:
            self._limiter = asyncio.Semaphore(self._llm.max_concurrency)
        seed = None if self._seed is None else self._seed + conversation_index
        return LLMUser(
            scenario,
            client=self._client,
            llm=self._llm,
            stop_token=self._user.stop_token,
            seed=seed,
            limiter=self._limiter,
            prompt_template=self._user.prompt_template,
            usage=self.usage,
            knowledge=self._user.knowledge or ("relevant" if self._user.prompt_template else "all"),
        )

    async def aclose(self) -> None:
        """Close the shared LLM client."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
