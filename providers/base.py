"""The provider-neutral chat interface: request in OpenAI's shape, text and tokens out."""

from __future__ import annotations

import email.utils
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ChatClient",
    "ChatResult",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "json_schema_of",
    "retry_after_from_headers",
    "split_system",
]


class ProviderError(Exception):
    """A request failed for a reason retrying will not fix (bad request, refused, ...)."""


class ProviderStatusError(ProviderError):
    """The API answered an HTTP error; 429, 408 and 5xx are worth retrying."""

    def __init__(self, status_code: int, message: str, *, retry_after: float | None = None):
        super().__init__(message)
        self.status_code = status_code
        self.message = message
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """True for 408, 429 and 5xx."""
        return self.status_code in (408, 429) or self.status_code >= 500


class ProviderConnectionError(ProviderError):
    """The API could not be reached (connection refused, timeout); worth retrying."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ChatResult:
    """One answer: its text and the tokens it cost."""

    content: str
    input_tokens: int = 0
    output_tokens: int = 0


class ChatClient(ABC):
    """Sends one OpenAI-shaped chat request to a provider.

    `request` holds `model`, `messages` (system/user/assistant), optionally
    `temperature`, `seed`, `max_tokens` and `response_format`
    (`{"type": "json_schema", "json_schema": {"name", "schema"}}`): every
    provider then answers a JSON object matching the schema. No retries here
    (callers own their retry policy); errors are `ProviderError`s.
    """

    provider: str = ""

    @abstractmethod
    async def complete(self, request: Mapping[str, Any]) -> ChatResult:
        """The answer to `request`."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release the HTTP client (safe to call twice)."""


def split_system(messages: list[Mapping[str, Any]]) -> tuple[str | None, list[dict[str, str]]]:
    """(system text, the other messages): Anthropic and Gemini take the system prompt apart.

    Several system messages are joined; a conversation of only system text
    becomes one user message (both APIs need at least one).
    """
    system: list[str] = []
    rest: list[dict[str, str]] = []
    for message in messages:
        role, content = message.get("role"), str(message.get("content") or "")
        if role in ("system", "developer"):
            system.append(content)
        else:
            rest.append(
                {"role": "assistant" if role == "assistant" else "user", "content": content}
            )
    if not rest:
        return None, [{"role": "user", "content": "\n\n".join(system)}]
    return ("\n\n".join(system) or None), rest


def json_schema_of(request: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(name, JSON schema) of a `response_format: json_schema` request, else None."""
    fmt = request.get("response_format")
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema") or {}
    return str(spec.get("name") or "answer"), dict(spec.get("schema") or {})


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    if not headers:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() - time.time())
