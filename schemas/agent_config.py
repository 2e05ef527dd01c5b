"""`agent_config`: which agent to drive and how to reach it (config.yaml).

Three agent types, selected by `agent_type`: a python class (`custom`), an
OpenAI-compatible chat-completions endpoint, or an A2A agent. Field names
follow arksim's config where it has one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "A2AAgentConfig",
    "A2AApiConfig",
    "AgentConfig",
    "ChatCompletionsAgentConfig",
    "ChatCompletionsApiConfig",
    "CustomAgentConfig",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CustomAgentConfig(_Strict):
    """A `BaseAgent` subclass loaded from a file or module."""

    agent_type: Literal["custom"]
    agent_name: str = "agent"
    module_path: str | None = None
    """A python file (relative to the config file) or `package.module`, or `module:Class`."""
    class_name: str | None = None
    """The class to load; optional when the module defines exactly one BaseAgent subclass."""
    init_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments given to the class's constructor."""
    timeout: float = 60.0
    """Seconds a turn may take before it is recorded as a timeout."""

    @model_validator(mode="after")
    def _needs_module(self) -> CustomAgentConfig:
        if not self.module_path:
            raise ValueError("agent_type 'custom' needs module_path (a .py file or module:Class)")
        return self


class ChatCompletionsApiConfig(_Strict):
    """How to reach an OpenAI-compatible `/v1/chat/completions` endpoint."""

    endpoint: str
    """Full URL of the chat-completions endpoint."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra headers; `${ENV_VAR}` is replaced from the environment."""
    body: dict[str, Any] = Field(default_factory=dict)
    """Extra body fields (model, temperature, a leading `messages` list of system messages)."""
    stream: bool = False
    """Ask for server-sent events (`stream: true`)."""
    timeout: float = 60.0
    """Seconds per request before the turn is recorded as a timeout."""
    max_retries: int = 3
    """Retries on 429 and 5xx, with exponential backoff honouring Retry-After."""


class ChatCompletionsAgentConfig(_Strict):
    """An agent behind an OpenAI-compatible chat-completions endpoint."""

    agent_type: Literal["chat_completions"]
    agent_name: str = "agent"
    api_config: ChatCompletionsApiConfig


class A2AApiConfig(_Strict):
    """How to reach an A2A agent."""

    endpoint: str
    """The agent's base URL (its card is resolved from it)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra headers (auth); `${ENV_VAR}` is replaced from the environment."""
    streaming: bool | None = None
    """Force streaming on/off; None follows the agent card's capabilities."""
    timeout: float = 60.0
    """Seconds per turn before it is recorded as a timeout."""


class A2AAgentConfig(_Strict):
    """An agent speaking the A2A protocol (a2a-sdk)."""

    agent_type: Literal["a2a"]
    agent_name: str = "agent"
    api_config: A2AApiConfig


AgentConfig = Annotated[
    CustomAgentConfig | ChatCompletionsAgentConfig | A2AAgentConfig,
    Field(discriminator="agent_type"),
]
"""Any agent configuration, selected by `agent_type`."""
