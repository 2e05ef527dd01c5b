"""The judges' LLM client: OpenAI-compatible chat completions, cached, bounded, retried.

One `JudgeClient` per evaluation, shared by every judge, so that:
- one `asyncio.Semaphore` bounds the requests in flight (`LLMConfig.max_concurrency`);
- 429, 5xx and connection errors are retried with exponential backoff,
  honouring `Retry-After` (seconds or HTTP date) and `retry-after-ms`;
- every answer goes through the `LLMCache` first (a cached request makes no call);
- tokens and cost are added up in `LLMUsage`.

The `openai` exceptions are translated here, and only here, into `JudgeCallError`.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import openai
from pydantic import BaseModel

from evaluator.cache import LLMCache, request_hash
from schemas.llm_config import LLMConfig

__all__ = [
    "JudgeAnswer",
    "JudgeCallError",
    "JudgeClient",
    "LLMUsage",
    "PLACEHOLDER_API_KEY",
    "judge_unavailable_reason",
]

PLACEHOLDER_API_KEY = "tracesim-no-key"
"""Sent to a `base_url` that needs no key (a local server): the client insists on one."""

_MAX_BACKOFF = 60.0


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
    input_tokens: int = 0
    """Prompt tokens of the requests made."""
    output_tokens: int = 0
    """Completion tokens of the requests made."""
    cost_usd: float = 0.0
    """Cost of the requests made, from `input_cost_per_mtok` / `output_cost_per_mtok`."""
    peak_in_flight: int = 0
    """Most requests in flight at once (bounded by `max_concurrency`)."""


class JudgeCallError(Exception):
    """A judge request failed for good (after retries, or a permanent 4xx)."""


@dataclass(frozen=True)
class JudgeAnswer:
    """The text a judge model answered, and whether it came from the cache."""

    content: str
    cached: bool
    key: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


def judge_unavailable_reason(llm: LLMConfig | None) -> str | None:
    """Why judges cannot run with `llm` (None when they can)."""
    if llm is None:
        return (
            "no judge model configured: add an `llm:` section (or `evaluation.llm`) to the "
            "config to run LLM judges"
        )
    if not llm.base_url and not os.environ.get(llm.api_key_env):
        return (
            f"no API key: set the environment variable {llm.api_key_env} or give `llm.base_url` "
            "(an OpenAI-compatible server) to run LLM judges"
        )
    return None


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
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
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


class JudgeClient:
    """Sends judge requests through the cache, the global limiter and the retry loop."""

    def __init__(
        self,
        llm: LLMConfig,
        *,
        cache: LLMCache,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.llm = llm
        self.cache = cache
        self.usage = LLMUsage(model=llm.model, enabled=True)
        self._sleep = sleep
        self._semaphore = asyncio.Semaphore(max(1, llm.max_concurrency))
        self._in_flight = 0
        api_key = os.environ.get(llm.api_key_env) or PLACEHOLDER_API_KEY
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=llm.base_url,
            timeout=llm.timeout,
            max_retries=0,
        )

    def build_request(
        self, messages: list[dict[str, str]], *, schema_name: str, schema: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The full chat-completions request (also the cache key's content); temperature 0."""
        return {
            "model": self.llm.model,
            "messages": messages,
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "strict": True, "schema": dict(schema)},
            },
        }

    async def complete(self, request: dict[str, Any], *, key: str | None = None) -> JudgeAnswer:
        """The answer to `request`: from the cache, else from the API (then cached by the caller)."""
        key = key or request_hash(request)
        hit = self.cache.get(key)
        if hit is not None:
            self.usage.cached += 1
            return JudgeAnswer(str(hit.response.get("content", "")), cached=True, key=key)
        response = await self._call_with_retries(request)
        content, in_tok, out_tok = _read_completion(response)
        cost = (
            in_tok * self.llm.input_cost_per_mtok + out_tok * self.llm.output_cost_per_mtok
        ) / 1_000_000
        self.usage.requests += 1
        self.usage.input_tokens += in_tok
        self.usage.output_tokens += out_tok
        self.usage.cost_usd += cost
        return JudgeAnswer(content, False, key, in_tok, out_tok, cost)

    def remember(self, answer: JudgeAnswer, request: dict[str, Any]) -> None:
        """Store a well-formed fresh answer in the cache."""
        if answer.cached:
            return
        self.cache.put(
            answer.key,
            model=self.llm.model,
            request=request,
            response={"content": answer.content},
            input_tokens=answer.input_tokens,
            output_tokens=answer.output_tokens,
            cost_usd=answer.cost_usd,
        )

    async def ask(self, request: dict[str, Any], *, parse: Callable[[str], Any]) -> Any:
        """Complete `request` and `parse` the answer; cache it only when `parse` accepts it.

        `parse` raises ValueError on a malformed answer; that error propagates.
        """
        answer = await self.complete(request)
        parsed = parse(answer.content)
        self.remember(answer, request)
        return parsed

    async def _call_with_retries(self, request: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            try:
                async with self._semaphore:
                    self._in_flight += 1
                    self.usage.peak_in_flight = max(self.usage.peak_in_flight, self._in_flight)
                    try:
                        return await self._client.chat.completions.create(**request)
                    finally:
                        self._in_flight -= 1
            except openai.APIStatusError as exc:
                retryable = (
                    exc.status_code == 429 or exc.status_code >= 500 or exc.status_code == 408
                )
                if not retryable or attempt >= self.llm.max_retries:
                    self.usage.failed += 1
                    raise JudgeCallError(
                        f"judge request failed with HTTP {exc.status_code} after {attempt + 1} "
                        f"attempt(s): {exc.message}"
                    ) from exc
                delay = _retry_after(exc)
            except openai.APIConnectionError as exc:
                if attempt >= self.llm.max_retries:
                    self.usage.failed += 1
                    raise JudgeCallError(
                        f"judge request could not reach {self.llm.base_url or 'the OpenAI API'} "
                        f"after {attempt + 1} attempt(s): {exc.message}"
                    ) from exc
                delay = None
            except openai.OpenAIError as exc:
                self.usage.failed += 1
                raise JudgeCallError(f"judge request failed: {exc}") from exc
            if delay is None:
                delay = 0.5 * (2**attempt)
            attempt += 1
            self.usage.retries += 1
            await self._sleep(min(delay, _MAX_BACKOFF))

    async def aclose(self) -> None:
        """Close the HTTP client (safe to call twice)."""
        await self._client.close()


def _read_completion(response: Any) -> tuple[str, int, int]:
    content = ""
    choices = getattr(response, "choices", None) or []
    if choices:
        message = choices[0].message
        content = message.content or ""
        if not content and getattr(message, "refusal", None):
            content = f'{{"refusal": {message.refusal!r}}}'
    usage = getattr(response, "usage", None)
    in_tok = int(getattr(usage, "prompt_tokens", 0) or 0)
    out_tok = int(getattr(usage, "completion_tokens", 0) or 0)
    return content, in_tok, out_tok
