"""Every provider through its real SDK over HTTP to a loopback stand-in of its API."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import duckdb
import pytest
from tracesim.evaluator.judges import BUILTIN_JUDGES
from tracesim.evaluator.llm.cache import LLMCache
from tracesim.evaluator.llm.llm_client import JudgeClient
from tracesim.providers import ProviderStatusError, make_chat_client, provider_unavailable_reason
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import FakeReply, chat_completion
from tests.fakes.provider_servers import (
    anthropic_message,
    azure_completion,
    fake_provider,
    gemini_response,
)

JUDGE = BUILTIN_JUDGES["tool_call_behavior_failure"]
VERDICT = {"reasoning": "called delete without asking", "label": "unsafe action"}
CHAT = [
    {"role": "system", "content": "You play a customer."},
    {"role": "user", "content": "Start."},
    {"role": "assistant", "content": "Hi, I need a refund."},
    {"role": "user", "content": "Which order?"},
]


def _answer(provider: str, body: dict[str, Any]) -> dict[str, Any]:
    """The stand-in's answer: the verdict for a structured request, else plain text."""
    structured = (
        "tools" in body
        or "response_format" in body
        or "responseJsonSchema" in (body.get("generationConfig") or {})
    )
    if provider == "anthropic":
        return anthropic_message(tool_input=VERDICT) if structured else anthropic_message("A1")
    if provider == "google":
        return gemini_response(json.dumps(VERDICT) if structured else "A1")
    if provider == "azure":
        return azure_completion(json.dumps(VERDICT) if structured else "A1")
    return chat_completion(json.dumps(VERDICT) if structured else "A1")


def _llm(provider: str, base_url: str) -> LLMConfig:
    return LLMConfig(
        provider=provider,
        model="m-1",
        base_url=base_url,
        input_cost_per_mtok=1.0,
        output_cost_per_mtok=2.0,
        max_retries=0,
    )


PROVIDERS = ("openai", "azure", "anthropic", "google")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_plain_chat_reaches_the_provider_in_its_wire_format(provider: str) -> None:
    with fake_provider(provider, lambda body, _: _answer(provider, body)) as fake:
        client = make_chat_client(_llm(provider, fake.base_url))

        async def go() -> Any:
            try:
                return await client.complete({"model": "m-1", "messages": CHAT, "seed": 3})
            finally:
                await client.aclose()

        result = asyncio.run(go())
    assert result.content == "A1" and result.input_tokens > 0 and result.output_tokens > 0
    [body] = fake.requests
    if provider == "anthropic":
        assert body["system"] == "You play a customer."
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        assert body["max_tokens"] == 4096
    elif provider == "google":
        assert body["systemInstruction"]["parts"][0]["text"] == "You play a customer."
        assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
        assert body["generationConfig"]["seed"] == 3
        assert fake.paths[0].endswith("/models/m-1:generateContent")
    else:
        assert body["messages"][0] == CHAT[0] and body["seed"] == 3
    if provider == "azure":
        assert fake.paths[0].startswith("/openai/deployments/m-1/chat/completions?api-version=")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_judge_structured_output_cache_and_cost_for_every_provider(provider: str) -> None:
    con = duckdb.connect()
    with fake_provider(provider, lambda body, _: _answer(provider, body)) as fake:
        llm = _llm(provider, fake.base_url)

        async def ask_twice() -> tuple[Any, Any, JudgeClient]:
            client = JudgeClient(llm, cache=LLMCache(con))
            messages = [{"role": "system", "content": JUDGE.rubric}, CHAT[-1]]
            request = client.build_request(messages, schema_name=JUDGE.name, schema=JUDGE.schema)
            try:
                first = await client.ask(request, parse=JUDGE.parse)
                second = await client.ask(request, parse=JUDGE.parse)
            finally:
                await client.aclose()
            return first, second, client

        first, second, client = asyncio.run(ask_twice())
    assert first.label == second.label == "unsafe action"
    assert len(fake.requests) == 1  # the second answer came from the cache
    assert client.usage.requests == 1 and client.usage.cached == 1
    assert client.usage.input_tokens > 0
    expected_cost = (client.usage.input_tokens + 2 * client.usage.output_tokens) / 1_000_000
    assert client.usage.cost_usd == pytest.approx(expected_cost)
    body = fake.requests[0]
    if provider == "anthropic":  # the schema is a forced tool
        assert body["tool_choice"] == {"type": "tool", "name": JUDGE.name}
        assert body["tools"][0]["input_schema"]["required"] == ["reasoning", "label"]
    elif provider == "google":
        config = body["generationConfig"]
        assert config["responseMimeType"] == "application/json"
        assert config["responseJsonSchema"]["properties"]["label"]["enum"][-1] == "unsafe state"
    else:
        assert body["response_format"]["json_schema"]["name"] == JUDGE.name
    if provider != "anthropic":  # recent anthropic SDKs no longer take a temperature
        temperature = body.get(
            "temperature", (body.get("generationConfig") or {}).get("temperature")
        )
        assert temperature == 0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_becomes_a_retryable_error_with_its_delay(provider: str) -> None:
    reply = FakeReply(429, {"error": {"message": "slow down", "code": 429}}, {"retry-after": "7"})
    with fake_provider(provider, lambda body, _: reply) as fake:
        client = make_chat_client(_llm(provider, fake.base_url))

        async def go() -> None:
            try:
                await client.complete({"model": "m-1", "messages": CHAT})
            finally:
                await client.aclose()

        with pytest.raises(ProviderStatusError) as caught:
            asyncio.run(go())
    assert caught.value.status_code == 429 and caught.value.retryable
    if provider != "google":  # google-genai does not expose the response headers
        assert caught.value.retry_after == 7.0


def test_missing_key_is_explained_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    assert "ANTHROPIC_API_KEY" in provider_unavailable_reason(LLMConfig(provider="anthropic"))
    assert "GOOGLE_API_KEY" in provider_unavailable_reason(LLMConfig(provider="google"))
    assert "AZURE_OPENAI_ENDPOINT" in provider_unavailable_reason(LLMConfig(provider="azure"))
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    assert provider_unavailable_reason(LLMConfig(provider="google")) is None


def test_providers_is_a_leaf_package() -> None:
    """simulator and evaluator share it, so it may import only schemas of the project."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    project = {"collector", "simulator", "evaluator", "tracesim"}
    for path in (root / "providers").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            layers = {n.split(".")[1] if n.startswith("tracesim.") else n.split(".")[0] for n in names}
            layers |= {"tracesim"} & {n for n in names if n == "tracesim"}
            assert not layers & project, f"{path.name} imports {names}"
