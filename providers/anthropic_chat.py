"""Anthropic's Messages API through the `anthropic` SDK (optional extra `providers`).

The system prompt goes in `system`; a `json_schema` response format becomes
one forced tool whose input schema is that schema, and the tool's input is
the answer (the API's way of returning schema-shaped JSON).
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Mapping
from typing import Any

from tracesim.providers.base import (
    ChatClient,
    ChatResult,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    json_schema_of,
    retry_after_from_headers,
    split_system,
)
from tracesim.schemas.llm_config import LLMConfig

__all__ = ["AnthropicChat", "anthropic_params"]

_PLACEHOLDER = "tracesim-no-key"


def anthropic_params(request: Mapping[str, Any], *, max_tokens: int) -> dict[str, Any]:
    """The `messages.create` arguments for an OpenAI-shaped request."""
    system, messages = split_system(list(request.get("messages") or []))
    params: dict[str, Any] = {
        "model": request["model"],
        "messages": messages,
        "max_tokens": int(request.get("max_tokens") or max_tokens),
    }
    if system:
        params["system"] = system
    if request.get("temperature") is not None:
        params["temperature"] = request["temperature"]
    schema = json_schema_of(request)
    if schema is not None:
        name, body = schema
        params["tools"] = [
            {"name": name, "description": "Record the answer.", "input_schema": body}
        ]
        params["tool_choice"] = {"type": "tool", "name": name}
    return params


class AnthropicChat(ChatClient):
    """Claude models; `base_url` reaches a proxy or a local stand-in."""

    provider = "anthropic"

    def __init__(self, llm: LLMConfig) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise ProviderError(
                "provider 'anthropic' needs the anthropic SDK: pip install 'tracesim[providers]'"
            ) from exc
        self._sdk = anthropic
        self._max_tokens = llm.max_tokens
        accepted = inspect.signature(anthropic.resources.messages.AsyncMessages.create).parameters
        self._drop = {"temperature"} - set(accepted)  # SDK releases that retired sampling knobs
        self._client = anthropic.AsyncAnthropic(
            api_key=os.environ.get(llm.api_key_env) or _PLACEHOLDER,
            base_url=llm.base_url,
            timeout=llm.timeout,
            max_retries=0,
        )

    async def complete(self, request: Mapping[str, Any]) -> ChatResult:
        sdk = self._sdk
        try:
            params = anthropic_params(request, max_tokens=self._max_tokens)
            for key in self._drop:
                params.pop(key, None)
            response = await self._client.messages.create(**params)
        except sdk.APIStatusError as exc:
            raise ProviderStatusError(
                exc.status_code,
                exc.message,
                retry_after=retry_after_from_headers(exc.response.headers),
            ) from exc
        except sdk.APIConnectionError as exc:
            raise ProviderConnectionError(exc.message) from exc
        except sdk.AnthropicError as exc:
            raise ProviderError(str(exc)) from exc
        parts: list[str] = []
        for block in response.content or []:
            if block.type == "tool_use":
                parts = [json.dumps(block.input, ensure_ascii=False)]
                break
            if block.type == "text":
                parts.append(block.text)
        usage = response.usage
        return ChatResult(
            "".join(parts),
            int(getattr(usage, "input_tokens", 0) or 0),
            int(getattr(usage, "output_tokens", 0) or 0),
        )

    async def aclose(self) -> None:
        await self._client.close()
