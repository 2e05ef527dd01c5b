"""LLM providers: one small chat interface over the official SDKs.

The simulated user (simulator) and the judges (evaluator) both send
OpenAI-shaped requests (`model`, `messages`, `temperature`, `seed`,
`response_format`) to a `ChatClient`; `make_chat_client` picks the SDK from
`LLMConfig.provider`: `openai` (and OpenAI-compatible servers), `azure`
(AzureOpenAI), `anthropic`, `google` (google-genai). Each SDK's exceptions
are translated here, once, into `ProviderStatusError` / `ProviderConnectionError`.

A leaf package like `schemas`: it imports `schemas` and the SDKs, nothing else
of the project, so simulator and evaluator can share it without importing
each other.
"""

from tracesim.providers.base import (
    ChatClient,
    ChatResult,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    json_schema_of,
    split_system,
)
from tracesim.providers.factory import make_chat_client, provider_unavailable_reason

__all__ = [
    "ChatClient",
    "ChatResult",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "json_schema_of",
    "make_chat_client",
    "provider_unavailable_reason",
    "split_system",
]
