"""The judges' LLM client: any provider (`providers`), cached, bounded, retried.

One `JudgeClient` per evaluation, shared by every judge, so that:
- one `asyncio.Semaphore` bounds the requests in flight (`LLMConfig.max_concurrency`);
- 429, 5xx and connection errors are retried with exponential backoff,
  honouring `Retry-After` (seconds or HTTP date) and `retry-after-ms`;
- every answer goes through the `LLMCache` first (a cached request makes no call);
- tokens and cost are added up in `LLMUsage`.

Requests keep OpenAI's shape whatever the provider (`providers` translates them),
so the cache key is the same request whichever SDK answers it. Provider errors
become `JudgeCallError` here, and only here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tracesim.evaluator.llm.cache import LLMCache, request_hash
from tracesim.evaluator.llm.usage import LLMUsage
from tracesim.providers import (
    ChatClient,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    make_chat_client,
    provider_unavailable_reason,
)
from tracesim.providers.openai_chat import PLACEHOLDER_API_KEY
from tracesim.schemas.llm_config import LLMConfig
from tracesim.schemas.prices import ModelPrice, price_for

__all__ = [
    "JudgeAnswer",
    "JudgeCallError",
    "JudgeClient",
    "LLMUsage",
    "PLACEHOLDER_API_KEY",
    "judge_price",
    "judge_unavailable_reason",
]

_MAX_BACKOFF = 60.0


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


def judge_price(llm: LLMConfig) -> ModelPrice | None:
    """The judge model's price: `input_cost_per_mtok` / `output_cost_per_mtok` when the config
    sets either (0 included: a free local model), else the built-in table; None when unknown."""
    if {"input_cost_per_mtok", "output_cost_per_mtok"} & llm.model_fields_set:
        return ModelPrice(
            input_per_mtok=llm.input_cost_per_mtok, output_per_mtok=llm.output_cost_per_mtok
        )
    return price_for(llm.model)


def unpriced_reason(llm: LLMConfig) -> str:
    """What to set when the judge model has no price."""
    return (
        f"no price for judge model {llm.model!r}: set llm.input_cost_per_mtok and "
        "llm.output_cost_per_mtok (USD per million tokens; 0 for a free local model)"
    )


def judge_unavailable_reason(llm: LLMConfig | None) -> str | None:
    """Why judges cannot run with `llm` (None when they can)."""
    if llm is None:
        return (
            "no judge model configured: add an `llm:` section (or `evaluation.llm`) to the "
            "config to run LLM judges"
        )
    reason = provider_unavailable_reason(llm)
    if reason is not None:
        return f"{reason} to run LLM judges"
    return None


class JudgeClient:
    """Sends judge requests through the cache, the global limiter and the retry loop."""

    def __init__(
        self,
        llm: LLMConfig,
        *,
        cache: LLMCache,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        chat: ChatClient | None = None,
    ) -> None:
        self.llm = llm
        self.cache = cache
        self.price = judge_price(llm)
        self.usage = LLMUsage(model=llm.model, enabled=True, priced=self.price is not None)
        self._sleep = sleep
        self._semaphore = asyncio.Semaphore(max(1, llm.max_concurrency))
        self._in_flight = 0
        self._client = chat if chat is not None else make_chat_client(llm)

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
        content, in_tok, out_tok = response.content, response.input_tokens, response.output_tokens
        cost = 0.0 if self.price is None else self.price.cost(in_tok, out_tok)
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

    def _failed(self, message: str) -> JudgeCallError:
        """Count a request that failed for good and keep the first reason (results.json)."""
        self.usage.failed += 1
        if not self.usage.first_error:
            self.usage.first_error = message
        return JudgeCallError(message)

    async def _call_with_retries(self, request: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            try:
                async with self._semaphore:
                    self._in_flight += 1
                    self.usage.peak_in_flight = max(self.usage.peak_in_flight, self._in_flight)
                    try:
                        return await self._client.complete(request)
                    finally:
                        self._in_flight -= 1
            except ProviderStatusError as exc:
                if not exc.retryable or attempt >= self.llm.max_retries:
                    raise self._failed(
                        f"judge request failed with HTTP {exc.status_code} after {attempt + 1} "
                        f"attempt(s): {exc.message}"
                    ) from exc
                delay = exc.retry_after
            except ProviderConnectionError as exc:
                if attempt >= self.llm.max_retries:
                    raise self._failed(
                        f"judge request could not reach {self.llm.base_url or self.llm.provider + ' API'} "
                        f"after {attempt + 1} attempt(s): {exc.message}"
                    ) from exc
                delay = None
            except ProviderError as exc:
                raise self._failed(f"judge request failed: {exc}") from exc
            if delay is None:
                delay = 0.5 * (2**attempt)
            attempt += 1
            self.usage.retries += 1
            await self._sleep(min(delay, _MAX_BACKOFF))

    async def aclose(self) -> None:
        """Close the HTTP client (safe to call twice)."""
        await self._client.aclose()
