"""`llm`: the model used by the simulated user and the LLM judges, and its provider.

`provider` picks the official SDK (arksim's `provider` values): `openai` (and any
OpenAI-compatible server via `base_url`), `azure` (Azure OpenAI), `anthropic`,
`google` (Gemini through google-genai). The key's environment variable defaults
per provider (`DEFAULT_KEY_ENV`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["DEFAULT_KEY_ENV", "LLMConfig", "PROVIDERS", "Provider"]

Provider = Literal["openai", "azure", "anthropic", "google"]
"""The LLM providers (arksim's names)."""

PROVIDERS: tuple[str, ...] = ("openai", "azure", "anthropic", "google")

DEFAULT_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "azure": "AZURE_OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GOOGLE_API_KEY",
}
"""The API key's environment variable of each provider when `api_key_env` is not set."""


class LLMConfig(BaseModel):
    """A chat model reached through its provider's official SDK."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider = "openai"
    """`openai` (or any OpenAI-compatible `base_url`), `azure`, `anthropic` or `google`."""
    model: str = Field(default="gpt-4o-mini", min_length=1)
    """Model name sent with each request (Azure: the deployment name)."""
    base_url: str | None = None
    """API base URL (e.g. `http://127.0.0.1:8000/v1`; Azure: the resource endpoint,
    default `$AZURE_OPENAI_ENDPOINT`); None = the SDK's default."""
    api_key_env: str = ""
    """Name of the environment variable holding the API key (default per provider:
    OPENAI_API_KEY, AZURE_OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY)."""
    api_version: str | None = None
    """Azure OpenAI API version (default `$OPENAI_API_VERSION`, else 2024-10-21)."""
    max_tokens: int = 4096
    """Longest answer (Anthropic requires a bound; the others ignore it unless set by the API)."""
    temperature: float = 0.0
    """Sampling temperature (judges always use 0)."""
    max_concurrency: int = 8
    """Global limit of LLM requests in flight."""
    timeout: float = 60.0
    """Seconds per request."""
    max_retries: int = 4
    """Retries with exponential backoff on 429 / 5xx / connection errors."""
    input_cost_per_mtok: float = 0.0
    """USD per million input tokens, for cost accounting."""
    output_cost_per_mtok: float = 0.0
    """USD per million output tokens, for cost accounting."""

    @model_validator(mode="before")
    @classmethod
    def _key_env_per_provider(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("api_key_env"):
            provider = data.get("provider") or "openai"
            data = {**data, "api_key_env": DEFAULT_KEY_ENV.get(provider, "OPENAI_API_KEY")}
        return data
