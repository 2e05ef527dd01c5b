"""Connector for agents behind an OpenAI-compatible `POST /v1/chat/completions`.

One `httpx.AsyncClient` per conversation. Each turn sends the whole
conversation, because chat-completions servers are stateless:
`{**body, "messages": [<system messages of body.messages>, *history, user]}`.
`history` is the runner's (`TurnContext.history`): user and assistant
*contents* only. The assistant's `tool_calls` and the tool results are not
replayed: the agent runs its tool loop server-side, and a replayed
`tool_calls` message without its `tool` answers is rejected by real
OpenAI-compatible servers.

Headers on every request: config headers (`${ENV}` resolved at `open()`)
then the turn's W3C `traceparent`/`baggage`, which win on a clash.
429 and 5xx are retried up to `max_retries` times, honouring `Retry-After`.
All httpx errors become `ConnectorError` in `_translate_errors`, the one
place where that happens.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from tracesim.schemas import AgentResponse
from tracesim.schemas.agent_config import ChatCompletionsAgentConfig, ChatCompletionsApiConfig
from tracesim.simulator.connectors.base import AgentConnector, ConnectorError, TurnContext
from tracesim.simulator.connectors.chat_completions_parse import StreamAccumulator, parse_completion
from tracesim.simulator.connectors.chat_completions_usage import (
    UsageAccumulator,
    record_usage,
    usage_of,
)
from tracesim.simulator.connectors.headers import merge_headers, substitute_env
from tracesim.simulator.connectors.limits import (
    MAX_RESPONSE_BYTES,
    CappedTransport,
    ResponseTooLarge,
)
from tracesim.simulator.connectors.retry import (
    backoff_delay,
    is_retryable_status,
    parse_retry_after,
)
from tracesim.simulator.connectors.sse import DONE, iter_sse_data

__all__ = ["ChatCompletionsConnector"]

_EXCERPT = 500


class _Retryable(Exception):
    """An answer worth another attempt (429/5xx); carries the server's Retry-After."""

    def __init__(self, status: int, excerpt: str, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}: {excerpt}")
        self.status = status
        self.excerpt = excerpt
        self.retry_after = retry_after


class ChatCompletionsConnector(AgentConnector):
    """Drives one conversation against a chat-completions endpoint.

    `config` is the agent config (or just its `api_config`). `transport` is
    for tests that want an in-process httpx transport; normally unset.
    `max_response_bytes`: the largest answer accepted, decompressed (`connectors.limits`).
    """

    def __init__(
        self,
        config: ChatCompletionsAgentConfig | ChatCompletionsApiConfig,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._api = config.api_config if isinstance(config, ChatCompletionsAgentConfig) else config
        self._transport = transport
        self._max_response_bytes = max_response_bytes
        self._client: httpx.AsyncClient | None = None
        self._headers: dict[str, str] = {}
        self._system: list[dict[str, Any]] = []
        self._body: dict[str, Any] = {}

    async def open(self) -> str:
        """Resolve headers and system messages, create the HTTP client; return a fresh chat_id."""
        self._headers = substitute_env(self._api.headers)
        body = dict(self._api.body)
        system = body.pop("messages", [])
        if not isinstance(system, list) or not all(isinstance(m, dict) for m in system):
            raise ConnectorError(
                "agent_config.api_config.body.messages must be a list of messages "
                '(e.g. [{"role": "system", "content": "..."}])'
            )
        self._system = system
        self._body = body
        self._client = httpx.AsyncClient(
            timeout=self._api.timeout,
            transport=CappedTransport(self._transport, limit=self._max_response_bytes),
        )
        return uuid.uuid4().hex

    async def close(self) -> None:
        """Close the HTTP client. Safe twice, and before `open`."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def build_payload(self, user_message: str, turn: TurnContext) -> dict[str, Any]:
        """The JSON body of one turn's request."""
        messages = [
            *self._system,
            *(dict(m) for m in turn.history),
            {"role": "user", "content": user_message},
        ]
        payload = {**self._body, "messages": messages}
        if self._api.stream:
            payload["stream"] = True
        return payload

    async def send(self, user_message: str, *, turn: TurnContext) -> AgentResponse:
        """POST the turn (retrying 429/5xx); return the reply and its tool calls."""
        if self._client is None:
            raise ConnectorError("ChatCompletionsConnector.send() called before open()")
        payload = self.build_payload(user_message, turn)
        headers = merge_headers(self._headers, turn.headers)
        attempt = 0
        while True:
            try:
                async with self._translate_errors():
                    return await asyncio.wait_for(
                        self._attempt(self._client, payload, headers), timeout=self._api.timeout
                    )
            except _Retryable as retryable:
                if attempt >= self._api.max_retries:
                    raise ConnectorError(
                        f"agent at {self._api.endpoint} still answered HTTP {retryable.status} after "
                        f"{attempt} retries: {retryable.excerpt} (raise api_config.max_retries or "
                        "check the agent's capacity)"
                    ) from None
                await asyncio.sleep(backoff_delay(attempt, retry_after=retryable.retry_after))
                attempt += 1

    async def _attempt(
        self, client: httpx.AsyncClient, payload: dict[str, Any], headers: dict[str, str]
    ) -> AgentResponse:
        if not self._api.stream:
            response = await client.post(self._api.endpoint, json=payload, headers=headers)
            self._check_status(response.status_code, response.text, response.headers)
            return self._parse(response)
        async with client.stream(
            "POST", self._api.endpoint, json=payload, headers=headers
        ) as response:
            if response.status_code != 200:
                await response.aread()
                self._check_status(response.status_code, response.text, response.headers)
            if "text/event-stream" not in response.headers.get("content-type", ""):
                await response.aread()  # a server that ignored `stream: true`
                return self._parse(response)
            return await self._read_stream(response.aiter_lines())

    def _parse(self, response: httpx.Response) -> AgentResponse:
        """A whole answer, and the usage it reports written on the turn's span."""
        try:
            body = response.json()
            parsed = parse_completion(body)
        except ValueError as exc:
            raise self._bad_answer(exc) from None
        record_usage(usage_of(body))
        return parsed

    async def _read_stream(self, lines: AsyncIterator[str]) -> AgentResponse:
        accumulator, usage = StreamAccumulator(), UsageAccumulator()
        async for data in iter_sse_data(lines):
            if data.strip() == DONE:
                break
            try:
                event = json.loads(data)
                accumulator.add(event)
            except ValueError as exc:
                raise self._bad_answer(exc) from None
            usage.add(event)
        response = accumulator.response()
        record_usage(usage.result())
        return response

    def _check_status(self, status: int, text: str, headers: httpx.Headers) -> None:
        if status < 400:
            return
        excerpt = text[:_EXCERPT]
        if is_retryable_status(status):
            raise _Retryable(status, excerpt, parse_retry_after(headers.get("retry-after")))
        raise ConnectorError(
            f"agent at {self._api.endpoint} answered HTTP {status}: {excerpt} "
            "(check endpoint, headers and body in agent_config.api_config)"
        )

    def _bad_answer(self, exc: Exception) -> ConnectorError:
        return ConnectorError(
            f"agent at {self._api.endpoint} did not answer a chat completion: {exc} "
            "(is the endpoint the full /v1/chat/completions URL of an OpenAI-compatible server?)"
        )

    @asynccontextmanager
    async def _translate_errors(self) -> AsyncIterator[None]:
        """The one place where transport exceptions become ConnectorError."""
        try:
            yield
        except (asyncio.TimeoutError, httpx.TimeoutException):
            raise ConnectorError(
                f"agent did not answer within {self._api.timeout:g} s at {self._api.endpoint} "
                "(raise agent_config.api_config.timeout, or check that the agent is not stuck)"
            ) from None
        except httpx.ConnectError as exc:
            raise ConnectorError(
                f"could not connect to the agent at {self._api.endpoint}: {exc} "
                "(is the agent server running and the endpoint right?)"
            ) from None
        except ResponseTooLarge as exc:
            raise ConnectorError(f"{exc} (the answer is refused, not truncated)") from None
        except httpx.HTTPError as exc:
            raise ConnectorError(
                f"HTTP error talking to the agent at {self._api.endpoint}: {exc!r}"
            ) from None
