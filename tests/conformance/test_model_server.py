"""The scripted model is the recordings' ground truth: in every wire format it serves
(chat completions, Anthropic Messages, Gemini generateContent, Bedrock Converse) the step
is the number of tool results in the request, per-agent scripts are chosen by the tools a
request offers, and the usage it serves is what truth.json records."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "record"))
from model_server import FINAL_ANSWER, ModelServer  # noqa: E402

TOOLS_OPENAI = [
    {"type": "function", "function": {"name": n}} for n in ("get_weather", "lookup_order")
]


@pytest.fixture
def server() -> Iterator[ModelServer]:
    running = ModelServer().start()
    yield running
    running.stop()


def _post(server: ModelServer, path: str, body: dict) -> httpx.Response:
    response = httpx.post(f"{server.root_url}{path}", json=body, timeout=10)
    response.raise_for_status()
    return response


def test_anthropic_messages_walk_the_script(server: ModelServer) -> None:
    tools = [{"name": "get_weather"}, {"name": "lookup_order"}]
    messages: list[dict] = [{"role": "user", "content": "q"}]
    seen = []
    for _ in range(4):
        reply = _post(
            server, "/v1/messages", {"model": "m", "messages": messages, "tools": tools}
        ).json()
        block = reply["content"][0]
        if block["type"] == "text":
            seen.append(("text", block["text"]))
            break
        seen.append((block["id"], block["name"], block["input"]))
        messages += [
            {"role": "assistant", "content": reply["content"]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": "x"}],
            },
        ]
    assert seen == [
        ("call_w1", "get_weather", {"city": "Paris"}),
        ("call_w2", "get_weather", {"city": "Paris"}),
        ("call_o1", "lookup_order", {"order_id": "A1"}),
        ("text", FINAL_ANSWER),
    ]
    assert server.totals() == {"model_calls": 4, "input_tokens": 460, "output_tokens": 80}


def test_anthropic_stream_splits_usage_as_the_api_does(server: ModelServer) -> None:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "q"}]}
    text = _post(server, "/v1/messages", body).text
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events][0] == "message_start"
    assert events[0]["message"]["usage"] == {"input_tokens": 100, "output_tokens": 1}
    delta = next(e for e in events if e["type"] == "content_block_delta")["delta"]
    assert json.loads(delta["partial_json"]) == {"city": "Paris"}
    assert next(e for e in events if e["type"] == "message_delta")["usage"] == {"output_tokens": 20}


def test_gemini_and_bedrock_count_their_own_tool_results(server: ModelServer) -> None:
    gemini = {
        "contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "get_weather", "response": {}}}],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "get_weather"}, {"name": "lookup_order"}]}],
    }
    reply = _post(server, "/v1beta/models/g:generateContent", gemini).json()
    assert reply["candidates"][0]["content"]["parts"][0] == {
        "functionCall": {"name": "get_weather", "args": {"city": "Paris"}}
    }
    assert reply["usageMetadata"]["promptTokenCount"] == 110
    streamed = _post(server, "/v1beta/models/g:streamGenerateContent?alt=sse", gemini).text
    assert streamed.startswith("data: ")
    bedrock = {
        "messages": [
            {"role": "user", "content": [{"text": "q"}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "call_w1", "content": []}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "call_w2", "content": []}}]},
        ],
        "toolConfig": {"tools": [{"toolSpec": {"name": "lookup_order"}}]},
    }
    reply = _post(server, "/model/some-model/converse", bedrock).json()
    assert reply["output"]["message"]["content"][0]["toolUse"] == {
        "toolUseId": "call_o1",
        "name": "lookup_order",
        "input": {"order_id": "A1"},
    }
    assert reply["usage"] == {"inputTokens": 120, "outputTokens": 20, "totalTokens": 140}


def test_scripts_are_chosen_by_the_tools_a_request_offers() -> None:
    scripts = [
        {"when_offered": "weather_agent", "steps": [["call_a1", "weather_agent", {"input": "w"}]]},
        {"when_offered": "get_weather", "steps": [], "final": "Sunny"},
    ]
    server = ModelServer(scripts=scripts).start()
    try:
        outer = {
            "messages": [{"role": "user", "content": "q"}],
            "tools": [{"type": "function", "function": {"name": "weather_agent"}}],
        }
        call = _post(server, "/v1/chat/completions", outer).json()["choices"][0]["message"]
        assert call["tool_calls"][0]["function"]["name"] == "weather_agent"
        inner = {"messages": [{"role": "user", "content": "w"}], "tools": TOOLS_OPENAI[:1]}
        answer = _post(server, "/v1/chat/completions", inner).json()["choices"][0]["message"]
        assert answer["content"] == "Sunny"
    finally:
        server.stop()
