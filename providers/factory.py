"""Pick the provider's client from `LLMConfig.provider`; say why one cannot run."""

from __future__ import annotations

import os

from tracesim.providers.base import ChatClient
from tracesim.schemas.llm_config import LLMConfig

__all__ = ["make_chat_client", "provider_unavailable_reason"]


def provider_unavailable_reason(llm: LLMConfig) -> str | None:
    """Why `llm` cannot be called (no key and no base_url), None when it can."""
    if llm.provider == "azure" and not (llm.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT")):
        return (
            "provider 'azure' needs the resource endpoint: set AZURE_OPENAI_ENDPOINT or "
            "`llm.base_url`"
        )
    if llm.base_url or os.environ.get(llm.api_key_env):
        return None
    if llm.provider == "google" and os.environ.get("GEMINI_API_KEY"):
        return None
    return (
        f"no API key for provider {llm.provider!r}: set the environment variable "
        f"{llm.api_key_env} or give `llm.base_url`"
    )


def make_chat_client(llm: LLMConfig) -> ChatClient:
    """A `ChatClient` for `llm.provider` (the SDK is imported only when used)."""
    if llm.provider == "anthropic":
        from tracesim.providers.anthropic_chat import AnthropicChat

        return AnthropicChat(llm)
    if llm.provider == "google":
        from tracesim.providers.google_chat import GoogleChat

        return GoogleChat(llm)
    from tracesim.providers.openai_chat import OpenAIChat

    return OpenAIChat(llm)
