"""`llm`: the OpenAI-compatible model used by the simulated user and the LLM judges."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["LLMConfig"]


class LLMConfig(BaseModel):
    """Any OpenAI-compatible chat-completions API, reached with the `openai` client."""

    model_config = ConfigDict(extra="forbid")

    model: str = "gpt-4o-mini"
    """Model name sent with each request."""
    base_url: str | None = None
    """API base URL (e.g. `http://127.0.0.1:8000/v1`); None = the client's default."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key."""
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
