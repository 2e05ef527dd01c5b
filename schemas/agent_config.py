"""`agent_config`: which agent to drive and how to reach it (config.yaml).

Three agent types, selected by `agent_type`: a python class (`custom`), an
OpenAI-compatible chat-completions endpoint, or an A2A agent. Field names
follow arksim's config where it has one.

HTTP agents may carry a `server` block: the command `tracesim run` starts
(and stops) around the simulation, so a run needs no hand-started server.
Its placeholders (`PLACEHOLDERS`) are substituted by `tracesim.agent_server`;
this module only checks that they are used consistently.
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "A2AAgentConfig",
    "A2AApiConfig",
    "AgentConfig",
    "AgentServerConfig",
    "ChatCompletionsAgentConfig",
    "ChatCompletionsApiConfig",
    "CustomAgentConfig",
    "PLACEHOLDERS",
]

PLACEHOLDERS = ("{port}", "{python}", "{collector_grpc}", "{collector_http}")
"""Substituted in `server.command`, `server.env` values and `api_config.endpoint`:
the server's port, the running python (`sys.executable`), the run's collector
OTLP/gRPC and OTLP/HTTP endpoints (`http://host:port`)."""


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
    agent_class: Any = None
    """The agent class itself (from python code, as arksim's `agent_class`) or its
    `package.module:Class` name; instead of `module_path`."""
    init_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments given to the class's constructor. Without them, a constructor
    taking one argument (arksim's `__init__(self, agent_config)`) gets this config."""
    timeout: float = 60.0
    """Seconds a turn may take before it is recorded as a timeout."""

    @model_validator(mode="after")
    def _needs_module(self) -> CustomAgentConfig:
        if not self.module_path and self.agent_class is None:
            raise ValueError(
                "agent_type 'custom' needs module_path (a .py file or module:Class) or agent_class"
            )
        if self.module_path and self.agent_class is not None:
            raise ValueError("give module_path or agent_class, not both")
        if self.agent_class is not None and not isinstance(self.agent_class, (type, str)):
            raise ValueError("agent_class must be a class or a 'package.module:Class' name")
        return self

    @property
    def custom_config(self) -> CustomAgentConfig:
        """arksim's `agent_config.custom_config` (module_path, class_name, agent_class): this."""
        return self


class AgentServerConfig(_Strict):
    """The agent's HTTP server, started by `tracesim run` and stopped after the last turn.

    The process gets `OTEL_EXPORTER_OTLP_ENDPOINT` (the run's collector) and
    `OTEL_SERVICE_NAME` (the agent name, unless set); its output goes to
    `<output_dir>/agent_server.log`. Leave the block out to run against a
    server you started yourself. A program that cannot be found fails the run
    with exit code 2 (before anything runs), a server that exits or is not
    ready within `ready_timeout` with exit code 3 and the log's last lines.
    """

    command: list[str] = Field(min_length=1)
    """The program and its arguments, e.g. `["{python}", "-m", "my_agent", "--port", "{port}"]`
    (a string is split like a shell would, without running one)."""
    cwd: str | None = None
    """Working directory, relative to the config file's folder (default: that folder)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables (they win over the inherited and the OTEL_* ones)."""
    ready_timeout: float = Field(default=30.0, gt=0)
    """Seconds to wait for the server to accept connections (or `ready_path` to answer 2xx)."""
    ready_path: str | None = None
    """HTTP path polled until it answers 2xx, e.g. `/.well-known/agent-card.json`;
    None: ready once the endpoint's port accepts a TCP connection."""
    port: int = Field(default=0, ge=0, le=65535)
    """The value of `{port}`; 0 = a free loopback port picked at start."""
    stop_timeout: float = Field(default=10.0, gt=0)
    """Seconds between SIGTERM (the server flushes its spans) and SIGKILL."""

    @field_validator("command", mode="before")
    @classmethod
    def _split_string(cls, value: Any) -> Any:
        return shlex.split(value) if isinstance(value, str) else value

    @field_validator("ready_path")
    @classmethod
    def _absolute_path(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise ValueError("ready_path must start with '/', e.g. /health")
        return value


def _check_server(endpoint: str, server: AgentServerConfig | None) -> None:
    """`{port}` needs a server to give it a value; a picked port needs `{port}` in the endpoint."""
    if server is None:
        if "{port}" in endpoint:
            raise ValueError(
                "api_config.endpoint uses {port} but there is no `server` block to give it "
                "a value: add `server:` or write the port"
            )
        return
    if server.port == 0 and "{port}" not in endpoint:
        raise ValueError(
            "server.port 0 picks a free port: write {port} in api_config.endpoint "
            "(e.g. http://127.0.0.1:{port}/...) or set server.port"
        )


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


class _RemoteAgentConfig(_Strict):
    """What every agent reached over HTTP has: a name, an endpoint, optionally a server to start."""

    agent_name: str = "agent"
    server: AgentServerConfig | None = None
    """Start the agent's server for the run (see `AgentServerConfig`); None: it is already up."""

    @model_validator(mode="after")
    def _server_and_port(self) -> _RemoteAgentConfig:
        _check_server(self.api_config.endpoint, self.server)  # type: ignore[attr-defined]
        return self


class ChatCompletionsAgentConfig(_RemoteAgentConfig):
    """An agent behind an OpenAI-compatible chat-completions endpoint."""

    agent_type: Literal["chat_completions"]
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


class A2AAgentConfig(_RemoteAgentConfig):
    """An agent speaking the A2A protocol (a2a-sdk)."""

    agent_type: Literal["a2a"]
    api_config: A2AApiConfig


AgentConfig = Annotated[
    CustomAgentConfig | ChatCompletionsAgentConfig | A2AAgentConfig,
    Field(discriminator="agent_type"),
]
"""Any agent configuration, selected by `agent_type`."""
