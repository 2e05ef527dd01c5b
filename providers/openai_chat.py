"""OpenAI and Azure OpenAI through the `openai` SDK (`AsyncOpenAI` / `AsyncAzureOpenAI`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import openai
from tracesim.providers.base import (
    ChatClient,
    ChatResult,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    retry_after_from_headers,
)
from tracesim.schemas.llm_config import LLMConfig

__all__ = ["OpenAIChat", "PLACEHOLDER_API_KEY", "read_completion"]

PLACEHOLDER_API_KEY = "tracesim-no-key"
"""Sent to a `base_url` that needs no key (a local server): the SDK insists on one."""

DEFAULT_AZURE_API_VERSION = "2024-10-21"


class OpenAIChat(ChatClient):
    """Chat completions on the OpenAI API, any OpenAI-compatible server, or Azure OpenAI."""

    def __init__(self, llm: LLMConfig) -> None:
        self.provider = llm.provider
        api_key = os.environ.get(llm.api_key_env) or PLACEHOLDER_API_KEY
        if llm.provider == "azure":
            endpoint = llm.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT")
            self._client: Any = openai.AsyncAzureOpenAI(
                api_key=api_key,
                azure_endpoint=endpoint,
                api_version=llm.api_version
                or os.environ.get("OPENAI_API_VERSION")
                or DEFAULT_AZURE_API_VERSION,
                timeout=llm.timeout,
                max_retries=0,
            )
        else:
            self._client = openai.AsyncOpenAI(
                api_key=api_key, base_url=llm.base_url, timeout=llm.timeout, max_retries=0
            )

    async def complete(self, request: Mapping[str, Any]) -> ChatResult:
        try:
            response = await self._client.chat.completions.create(**request)
        except openai.APIStatusError as exc:
            raise ProviderStatusError(
                exc.status_code,
                exc.message,
                retry_after=retry_after_from_headers(exc.response.headers),
            ) from exc
        except openai.APIConnectionError as exc:
            raise ProviderConnectionError(exc.message) from exc
        except openai.OpenAIError as exc:
            raise ProviderError(str(exc)) from exc
        return read_completion(response)

    async def aclose(self) -> None:
        await self._client.close()


def read_completion(response: Any) -> ChatResult:
    """Text and token counts of a chat.completion (a refusal becomes a JSON note)."""
    content = ""
    choices = getattr(response, "choices", None) or []
    if choices:
        message = choices[0].message
        content = message.content or ""
        if not content and getattr(message, "refusal", None):
            content = f'{{"refusal": {message.refusal!r}}}'
    usage = getattr(response, "usage", None)
    return ChatResult(
        content,
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
    )
