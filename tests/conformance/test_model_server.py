"""The scripted model is the recordings' ground truth: in every wire format it serves
(chat completions, Anthropic Messages, Gemini generateContent, Bedrock Converse, Cohere v2
chat, Ollama chat; DSPy text fields) the step is the number of tool results in the request,
per-agent scripts are chosen by the tools a request offers, and the usage it serves is what
truth.json records."""

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


def test_cohere_and_ollama_walk_the_script_on_their_tool_messages(server: ModelServer) -> None:
    tool = {"role": "tool", "content": "x"}
    cohere = [
        _post(server, "/v2/chat", {"model": "c", "messages": [tool] * n}).json() for n in range(4)
    ]
    assert [r["finish_reason"] for r in cohere] == ["TOOL_CALL"] * 3 + ["COMPLETE"]
    assert cohere[2]["message"]["tool_calls"][0]["id"] == "call_o1"
    assert cohere[1]["usage"]["tokens"] == {"input_tokens": 110, "output_tokens": 20}
    plain = _post(server, "/api/chat", {"model": "o", "messages": [], "stream": False}).json()
    assert plain["message"]["tool_calls"] == [
        {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    ]  # Ollama's calls have no id
    assert (plain["prompt_eval_count"], plain["eval_count"]) == (100, 20)
    # the Ollama API streams unless told not to: JSON lines, the counts on the last
    lines = _post(server, "/api/chat", {"model": "o", "messages": [tool] * 3}).text.splitlines()
    assert [json.loads(line)["done"] for line in lines] == [False, True]
    assert json.loads(lines[0])["message"]["content"] == FINAL_ANSWER


def test_dspy_text_fields_walk_the_script_by_observations(server: ModelServer) -> None:
    ask = (
        "Respond with the corresponding output fields, starting with the field "
        "`[[ ## next_thought ## ]]`, then `[[ ## next_tool_name ## ]]`, then "
        "`[[ ## next_tool_args ## ]]`, and then ending with the marker for "
        "`[[ ## completed ## ]]`."
    )
    observed = "".join(f"[[ ## observation_{i} ## ]]\nx\n" for i in range(2))
    body = {"model": "m", "messages": [{"role": "user", "content": observed + ask}]}
    text = _post(server, "/v1/chat/completions", body).json()["choices"][0]["message"]["content"]
    assert "[[ ## next_tool_name ## ]]\nlookup_order" in text
    assert '[[ ## next_tool_args ## ]]\n{"order_id": "A1"}' in text
    assert text.endswith("[[ ## completed ## ]]")
    assert server.served[-1]["prompt"] == 120  # step 2: two observations


def test_final_answer_takes_the_argument_name_the_tool_offers(server: ModelServer) -> None:
    final = {
        "type": "function",
        "function": {"name": "final_answer", "parameters": {"properties": {"response": {}}}},
    }
    tool = {"role": "tool", "content": "x"}
    body = {"model": "m", "messages": [tool] * 3, "tools": [*TOOLS_OPENAI, final]}
    reply = _post(server, "/v1/chat/completions", body).json()
    [call] = reply["choices"][0]["message"]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"response": FINAL_ANSWER}
