"""`config.yaml`: everything `tracesim run` needs, as one validated model.

Unknown keys are errors (`extra="forbid"`), so a typo fails before anything
runs. Relative paths are resolved against the config file's directory by
the loader (`tracesim/config_loader.py`), not here: this module is pure data.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from tracesim.schemas.agent_config import AgentConfig
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

__all__ = [
    "CollectorConfig",
    "RunConfig",
    "TraceWaitConfig",
    "UserConfig",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CollectorConfig(_Strict):
    """Where the run's spans go: an embedded collector (default) or a running one."""

    mode: Literal["embedded", "remote", "otlp"] = "embedded"
    """`embedded`: the run starts its own collector writing `db_path`; `remote`: spans go to
    `endpoint`; `otlp`: spans go to any OTLP `endpoint` (e.g. the stock OTel Collector with its
    ClickHouse exporter) and the run evaluates them from the run config's `store`."""
    host: str = "127.0.0.1"
    """Interface the embedded collector listens on."""
    grpc_port: int = Field(default=0, ge=0, le=65535)
    """Embedded collector's OTLP/gRPC port; 0 = a free port."""
    http_port: int = Field(default=0, ge=0, le=65535)
    """Embedded collector's OTLP/HTTP port; 0 = a free port."""
    endpoint: str | None = None
    """Remote collector: `host:port` (gRPC) or `http(s)://host:port` (OTLP/HTTP)."""
    auth_token_env: str | None = None
    """Name of the environment variable holding the collector's bearer token."""

    @model_validator(mode="after")
    def _remote_needs_endpoint(self) -> CollectorConfig:
        if self.mode in ("remote", "otlp") and not self.endpoint:
            raise ValueError(
                f"collector mode {self.mode!r} needs an endpoint (e.g. 127.0.0.1:4317)"
            )
        return self


class TraceWaitConfig(_Strict):
    """How long the run waits, after the last turn, for remote agents' late spans (SPEC §3)."""

    settle: float = Field(default=1.0, ge=0)
    """Stop waiting once no span has arrived for this many seconds."""
    wait_timeout: float = Field(default=10.0, ge=0)
    """Never wait longer than this many seconds."""


class UserConfig(_Strict):
    """The simulated user."""

    type: Literal["scripted", "llm", "auto"] = "auto"
    """`scripted` replays a scenario's `turns`; `llm` plays the persona with `llm`;
    `auto` = scripted when the scenario has `turns`, else llm."""
    stop_token: str = "###STOP###"
    """The LLM user ends the conversation by saying this."""
    prompt_template: str | None = None
    """Jinja2 template replacing the LLM user's instructions (arksim's
    `simulated_user_prompt_template`); sees `scenario.{user_profile, goal, knowledge,
    agent_context}`."""
    knowledge: Literal["all", "per_turn", "relevant"] | None = None
    """How a scenario with several knowledge items is shown to the LLM user: `all` in its
    instructions; `per_turn` one fact a turn, each in turn (arksim's per-turn selection);
    `relevant` the fact the agent's last message asks about, else the next one
    (`simulator.users.knowledge`). Unset: `all`, or `relevant` with a `prompt_template`
    (arksim's templates show no fact when there are several: they promise one a turn)."""


class RunConfig(_Strict):
    """The whole `config.yaml` of `tracesim run`."""

    agent_config: AgentConfig
    """The agent under test (custom python class, chat_completions, a2a)."""
    scenario_file_path: str
    """The scenarios file (arksim's scenarios.json schema, or scripted `turns`)."""
    num_conversations_per_scenario: int = Field(default=1, ge=1)
    """How many conversations each scenario is run."""
    max_turns: int = Field(default=5, ge=1)
    """Maximum turns per conversation (a scenario's own `max_turns` wins)."""
    num_workers: int | Literal["auto"] = Field(default=4)
    """Conversations run at the same time; `auto` = one per conversation (arksim's
    num_conversations_per_scenario x scenarios; LLM requests stay bounded by
    `llm.max_concurrency`)."""
    output_dir: str = "results"
    """Where `run_summary.json`, the DuckDB file and the report go."""
    db_path: str | None = None
    """The DuckDB file; default `<output_dir>/tracesim.duckdb`."""
    collector: CollectorConfig = Field(default_factory=CollectorConfig)
    """Embedded (default) or remote collector."""
    store: str | None = None
    """With `collector.mode: otlp`: where the spans land and are evaluated,
    `clickhouse://user:pass@host:8123/otel` or `chdb://DIR`."""
    trace_wait: TraceWaitConfig = Field(default_factory=TraceWaitConfig)
    """Waiting for late spans after the last turn."""
    llm: LLMConfig = Field(default_factory=LLMConfig)
    """Model of the LLM-simulated user."""
    user: UserConfig = Field(default_factory=UserConfig)
    """Which simulated user plays the scenarios."""
    seed: int | None = None
    """Seed given to the simulated user's model (reproducible runs where the API honours it)."""
    evaluation: EvalConfig = Field(default_factory=EvalConfig)
    """Metrics, thresholds and gates (evaluator)."""

    @model_validator(mode="after")
    def _otlp_needs_store(self) -> RunConfig:
        if self.collector.mode == "otlp" and not self.store:
            raise ValueError(
                "collector mode 'otlp' needs `store:`, the database the collector writes "
                "(e.g. clickhouse://user:pass@localhost:8123/otel)"
            )
        if self.store and self.collector.mode != "otlp":
            raise ValueError("`store:` is read with collector mode 'otlp' only")
        return self

    @field_validator("num_workers")
    @classmethod
    def _workers_positive(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value < 1:
            raise ValueError("num_workers must be >= 1 or 'auto'")
        return value

    def workers_for(self, conversations: int) -> int:
        """`num_workers` for a run of `conversations` conversations (resolves `auto`)."""
        if self.num_workers == "auto":
            return max(1, conversations)
        return int(self.num_workers)

    @property
    def resolved_db_path(self) -> str:
        """`db_path`, or `<output_dir>/tracesim.duckdb` when unset."""
        if self.db_path:
            return self.db_path
        return f"{self.output_dir.rstrip('/')}/tracesim.duckdb"
