"""Google Gemini through the `google-genai` SDK (optional extra `providers`).

The system prompt goes in `system_instruction`, assistant turns become
`model` turns, and a `json_schema` response format becomes
`response_mime_type: application/json` with `response_json_schema`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import httpx
from tracesim.providers.base import (
    ChatClient,
    ChatResult,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    json_schema_of,
    split_system,
)
from tracesim.schemas.llm_config import LLMConfig

__all__ = ["GoogleChat", "gemini_config"]

_PLACEHOLDER = "tracesim-no-key"


def gemini_config(request: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(contents, GenerateContentConfig fields) for an OpenAI-shaped request."""
    system, messages = split_system(list(request.get("messages") or []))
    contents = [
        {"role": "model" if m["role"] == "assistant" else "user", "parts": [{"text": m["content"]}]}
        for m in messages
    ]
    config: dict[str, Any] = {}
    if system:
        config["system_instruction"] = system
    for key, target in (
        ("temperature", "temperature"),
        ("seed", "seed"),
        ("max_tokens", "max_output_tokens"),
    ):
        if request.get(key) is not None:
            config[target] = request[key]
    schema = json_schema_of(request)
    if schema is not None:
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = schema[1]
    return contents, config


class GoogleChat(ChatClient):
    """Gemini models; `base_url` reaches a proxy or a local stand-in."""

    provider = "google"

    def __init__(self, llm: LLMConfig) -> None:
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError as exc:
            raise ProviderError(
                "provider 'google' needs the google-genai SDK: pip install 'tracesim[providers]'"
            ) from exc
        self._errors = errors
        self._types = types
        options: dict[str, Any] = {"timeout": int(llm.timeout * 1000)}
        if llm.base_url:
            options["base_url"] = llm.base_url
        api_key = os.environ.get(llm.api_key_env) or os.environ.get("GEMINI_API_KEY")
        self._client = genai.Client(
            api_key=api_key or _PLACEHOLDER, http_options=types.HttpOptions(**options)
        )

    async def complete(self, request: Mapping[str, Any]) -> ChatResult:
        contents, config = gemini_config(request)
        try:
            response = await self._client.aio.models.generate_content(
                model=request["model"],
                contents=contents,
                config=self._types.GenerateContentConfig(**config),
            )
        except self._errors.APIError as exc:
            raise ProviderStatusError(int(exc.code or 0), str(exc.message or exc)) from exc
        except (httpx.TransportError, OSError) as exc:
            raise ProviderConnectionError(f"{type(exc).__name__}: {exc}") from exc
        usage = response.usage_metadata
        return ChatResult(
            response.text or "",
            int(getattr(usage, "prompt_token_count", 0) or 0),
            int(getattr(usage, "candidates_token_count", 0) or 0),
        )

    async def aclose(self) -> None:
        closer = getattr(self._client.aio, "aclose", None)
        if closer is not None:
            await closer()
