"""A scenario: one test case of `scenarios.json` (arksim's schema plus scripted turns).

Accepted forms of each field follow arksim's files: `scenario_id` or `id`,
`user_profile` as text or an object, `knowledge` as strings or
`{"content": ...}` objects. A scripted scenario lists the user's messages in
`turns` and needs no LLM. `assertions` are kept raw: the evaluator validates
them. Fields arksim has and tracesim does not use (`expected_behavior`, ...)
are kept as extras, so nothing of the user's file is lost.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from tracesim.schemas.tool_definitions import ToolDefinitionError, tool_definitions
from tracesim.schemas.tool_stub import ToolStub

__all__ = ["Scenario"]


class Scenario(BaseModel):
    """One scenario; the simulated user's oracle (goal, knowledge) never reaches the agent."""

    model_config = ConfigDict(extra="allow")

    scenario_id: str = Field(min_length=1)
    """Unique id within the file (`id` is accepted as an alias)."""
    name: str | None = None
    """Human-readable name."""
    category: str | None = None
    """Grouping category for filtering."""
    goal: str | dict[str, Any] | None = None
    """What the simulated user wants (text, or arksim's {primary, secondary, ...})."""
    user_profile: str | dict[str, Any] | None = None
    """The persona the simulated user plays."""
    knowledge: list[str] = Field(default_factory=list)
    """Facts the simulated user knows (order numbers, ...)."""
    agent_context: str | dict[str, Any] | None = None
    """Context about the agent given to the simulated user (what it can do)."""
    assertions: list[Any] = Field(default_factory=list)
    """Expected behaviour (tool calls, ...), validated by the evaluator."""
    turns: list[str] | None = None
    """Scripted user messages, replayed in order (no LLM needed)."""
    max_turns: int | None = Field(default=None, ge=1)
    """Overrides the config's `max_turns` for this scenario."""
    repeats: int | None = Field(default=None, ge=1)
    """Overrides the config's `num_conversations_per_scenario` for this scenario: how many
    trials it gets (a flaky scenario may need more to tell a change from chance)."""
    tools: list[dict[str, Any]] | None = None
    """The agent's tool definitions (OpenAI function schemas, MCP tools or A2E
    ToolDefinitions): what `tool_validity` checks calls against and `mcp-mock` serves."""
    tool_stubs: list[ToolStub] | None = None
    """Answers to the agent's tool calls during a replay (`schemas.tool_stub`)."""

    @field_validator("tools")
    @classmethod
    def _tools_readable(cls, value: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        try:
            tool_definitions(value)
        except ToolDefinitionError as exc:
            raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="before")
    @classmethod
    def _accept_id_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "scenario_id" not in data and "id" in data:
            data = dict(data)
            data["scenario_id"] = data.pop("id")
        if isinstance(data, dict) and isinstance(data.get("scenario_id"), int):
            data = {**data, "scenario_id": str(data["scenario_id"])}
        return data

    @field_validator("knowledge", mode="before")
    @classmethod
    def _knowledge_as_text(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list):
            raise ValueError("knowledge must be a list of strings or of {content} objects")
        texts: list[Any] = []
        for i, item in enumerate(value):
            if isinstance(item, dict):
                if "content" not in item:
                    raise ValueError(f"knowledge[{i}] is an object without a 'content' key")
                texts.append(item["content"])
            else:
                texts.append(item)
        return texts

    @field_validator("turns")
    @classmethod
    def _turns_not_empty(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not value:
            raise ValueError("turns must hold at least one user message (or be omitted)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _legacy_user_attributes(cls, data: Any) -> Any:
        if isinstance(data, dict) and "user_attributes" in data and not data.get("user_profile"):
            raise ValueError(
                "has 'user_attributes' but no 'user_profile': arksim moved user_attributes into "
                "'origin' and no longer builds a profile from them; set 'user_profile' directly"
            )
        return data

    @model_validator(mode="after")
    def _goal_or_turns(self) -> Scenario:
        if self.goal is None and self.turns is None:
            raise ValueError("a scenario needs a 'goal' (LLM user) or 'turns' (scripted user)")
        return self

    @property
    def scripted(self) -> bool:
        """True when the scenario lists the user's messages itself."""
        return self.turns is not None

    def goal_text(self) -> str:
        """The goal as prompt text."""
        return _as_text(self.goal)

    def profile_text(self) -> str:
        """The user profile as prompt text."""
        return _as_text(self.user_profile)

    def agent_context_text(self) -> str:
        """The agent context as prompt text."""
        return _as_text(self.agent_context)


def _as_text(value: str | dict[str, Any] | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)
