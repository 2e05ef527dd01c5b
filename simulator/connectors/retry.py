"""Retry policy for HTTP agents: which answers to retry and how long to wait.

429 and 5xx are retried (the agent or its model provider is overloaded or
restarting); any other 4xx is the caller's mistake and fails at once. The
wait honours `Retry-After` (delta-seconds or an HTTP date) when the server
sends one, else grows exponentially with full jitter, capped.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

__all__ = ["backoff_delay", "is_retryable_status", "parse_retry_after"]

BASE_DELAY = 0.5
"""Seconds before the first retry when the server gives no Retry-After."""
MAX_DELAY = 30.0
"""Never wait longer than this between two attempts."""


def is_retryable_status(status: int) -> bool:
    """True for 429 Too Many Requests and every 5xx."""
    return status == 429 or 500 <= status <= 599


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header value, or None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (when - current).total_seconds())


def backoff_delay(attempt: int, *, retry_after: float | None = None) -> float:
    """Seconds to wait before retry number `attempt` (0-based), capped at MAX_DELAY."""
    if retry_after is not None:
        return min(retry_after, MAX_DELAY)
    ceiling = min(MAX_DELAY, BASE_DELAY * (2**attempt))
    return random.uniform(0, ceiling)  # noqa: S311 - jitter, not crypto
