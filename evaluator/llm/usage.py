"""What the judges cost in one evaluation (`LLMUsage`), apart from the client.

Results and worker processes name this model without importing the client: the
client imports the providers' SDKs (~0.4 s), which a worker never uses.
"""

from __future__ import annotations

from pydantic import BaseModel

__all__ = ["LLMUsage"]


class LLMUsage(BaseModel):
    """What the judges cost in one evaluation."""

    model: str | None = None
    """The judge model."""
    enabled: bool = False
    """False when judges were not run (no model, no key and no base_url)."""
    reason: str = ""
    """Why judges did not run, when they did not."""
    requests: int = 0
    """HTTP requests that got a usable answer (retries not counted)."""
    cached: int = 0
    """Answers served from the `llm_cache` table (no request made)."""
    retries: int = 0
    """Retried attempts (429, 5xx, connection errors)."""
    failed: int = 0
    """Requests that failed for good (their metric is reported as not graded)."""
    first_error: str = ""
    """Why the first failed request failed (the verdict of an evaluation with failed judge
    requests is `incomplete`, exit 3, and points here)."""
    input_tokens: int = 0
    """Prompt tokens of the requests made."""
    output_tokens: int = 0
    """Completion tokens of the requests made."""
    cost_usd: float = 0.0
    """Cost of the requests made, from `input_cost_per_mtok` / `output_cost_per_mtok`, else
    the model's built-in price (`schemas.prices`)."""
    priced: bool = True
    """False when the judge model has no price (neither in the config nor built in): then
    `cost_usd` counts nothing and is shown as unknown, never as $0."""
    peak_in_flight: int = 0
    """Most requests in flight at once (bounded by `max_concurrency`)."""
