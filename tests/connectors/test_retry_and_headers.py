"""retry: Retry-After parsing and backoff; headers: ${ENV} substitution and merging."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from tracesim.simulator.connectors import ConnectorError
from tracesim.simulator.connectors.headers import merge_headers, substitute_env
from tracesim.simulator.connectors.retry import (
    MAX_DELAY,
    backoff_delay,
    is_retryable_status,
    parse_retry_after,
)


def test_retry_after_seconds_and_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("0") == 0.0
    assert parse_retry_after(" 2.5 ") == 2.5
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:07 GMT", now=now) == 7.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now=now) == 0.0  # in the past
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_backoff_honours_retry_after_and_is_capped() -> None:
    assert backoff_delay(5, retry_after=1.5) == 1.5
    assert backoff_delay(0, retry_after=10_000) == MAX_DELAY
    assert all(0 <= backoff_delay(attempt) <= MAX_DELAY for attempt in range(12))


def test_retryable_statuses() -> None:
    assert [s for s in (400, 401, 404, 408, 429, 500, 502, 503) if is_retryable_status(s)] == [
        429,
        500,
        502,
        503,
    ]


def test_env_substitution() -> None:
    env = {"TOKEN": "abc", "TEAM": "qa"}
    assert substitute_env(
        {"Authorization": "Bearer ${TOKEN}", "X": "${TEAM}-${TOKEN}", "Y": "$TOKEN"}, environ=env
    ) == {
        "Authorization": "Bearer abc",
        "X": "qa-abc",
        "Y": "$TOKEN",
    }
    with pytest.raises(ConnectorError, match=r"'Authorization'.*\$\{MISSING\}"):
        substitute_env({"Authorization": "Bearer ${MISSING}"}, environ=env)


def test_merge_is_case_insensitive_and_later_wins() -> None:
    merged = merge_headers({"TraceParent": "old", "A": "1"}, {"traceparent": "new"})
    assert merged == {"A": "1", "traceparent": "new"}
