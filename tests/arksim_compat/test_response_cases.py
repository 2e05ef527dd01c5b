"""arksim's response-parser cases (tests/unit/test_response_parsers.py), on tracesim's parser.

arksim drops tool calls found in a chat-completions answer; SPEC §4 keeps them
as explicit calls with source `chat_completions`: those cases are overridden.
"""

from __future__ import annotations

import pytest
from tracesim.schemas import ToolCallSource
from tracesim.simulator.connectors.chat_completions_parse import StreamAccumulator, parse_completion

from tests.arksim_compat.cases import spec_override

KEEPS_TOOL_CALLS = spec_override(
    "SPEC §4: tool calls in a chat-completions answer are explicit calls "
    "(source chat_completions); arksim drops them"
)


def _openai(message: dict) -> dict:
    return {"choices": [{"message": {"role": "assistant", **message}}]}


def _fn(name: str, arguments: str, call_id: str | None = "call_1") -> dict:
    call = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return call


# -- OpenAI -------------------------------------------------------------------------


def test_openai_text_only() -> None:
    response = parse_completion(_openai({"content": "Hello!"}))
    assert response.content == "Hello!" and response.tool_calls == []


@KEEPS_TOOL_CALLS
def test_openai_tool_calls_only_content_none_is_empty_text() -> None:
    response = parse_completion(
        _openai({"content": None, "tool_calls": [_fn("get_weather", '{"city": "NYC"}')]})
    )
    assert response.content == ""
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "get_weather", {"city": "NYC"})
    assert call.source == ToolCallSource.CHAT_COMPLETIONS


@KEEPS_TOOL_CALLS
def test_openai_text_and_tool_calls() -> None:
    response = parse_completion(
        _openai({"content": "Let me check.", "tool_calls": [_fn("search", '{"q": "test"}')]})
    )
    assert response.content == "Let me check."
    assert [c.name for c in response.tool_calls] == ["search"]


def test_openai_delta_content() -> None:
    assert (
        parse_completion({"choices": [{"delta": {"content": "Streamed "}}]}).content == "Streamed "
    )


def test_openai_choice_without_message_or_delta_is_empty() -> None:
    response = parse_completion({"choices": [{"finish_reason": "stop"}]})
    assert (response.content, response.tool_calls) == ("", [])


def test_empty_dict_and_unknown_keys_raise_naming_the_keys() -> None:
    with pytest.raises(ValueError, match="OpenAI"):
        parse_completion({})
    with pytest.raises(ValueError, match="usage"):
        parse_completion({"id": "xyz", "usage": {}})


def test_openai_empty_choices_raises() -> None:
    with pytest.raises(ValueError, match="choices"):
        parse_completion({"choices": []})


@KEEPS_TOOL_CALLS
def test_openai_malformed_arguments_kept_raw() -> None:
    response = parse_completion(_openai({"content": None, "tool_calls": [_fn("bad", "not-json")]}))
    assert response.tool_calls[0].arguments == {"_raw": "not-json"}


@KEEPS_TOOL_CALLS
def test_openai_tool_call_without_id() -> None:
    response = parse_completion(_openai({"content": None, "tool_calls": [_fn("f", "{}", None)]}))
    [call] = response.tool_calls
    assert call.id == "" and call.name == "f" and call.arguments == {}


# -- Anthropic -------------------------------------------------------------------


def test_anthropic_text_blocks() -> None:
    response = parse_completion({"content": [{"type": "text", "text": "Hello from Claude."}]})
    assert response.content == "Hello from Claude." and response.tool_calls == []


@KEEPS_TOOL_CALLS
def test_anthropic_tool_use_blocks() -> None:
    block = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "NYC"}}
    response = parse_completion({"content": [block]})
    assert response.content == ""
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_01", "get_weather", {"city": "NYC"})


@KEEPS_TOOL_CALLS
def test_anthropic_mixed_text_and_tool_use() -> None:
    blocks = [
        {"type": "text", "text": "Let me check. "},
        {"type": "tool_use", "id": "toolu_02", "name": "search", "input": {"q": "test"}},
    ]
    response = parse_completion({"content": blocks})
    assert response.content == "Let me check. "
    assert [c.arguments for c in response.tool_calls] == [{"q": "test"}]


def test_anthropic_non_dict_blocks_ignored() -> None:
    response = parse_completion({"content": ["not-a-dict", {"type": "text", "text": "ok"}]})
    assert response.content == "ok"


def test_anthropic_unknown_block_types_ignored() -> None:
    blocks = [{"type": "image", "source": {}}, {"type": "text", "text": "text only"}]
    response = parse_completion({"content": blocks})
    assert response.content == "text only" and response.tool_calls == []


# -- Gemini ----------------------------------------------------------------------


def _gemini(*parts: dict) -> dict:
    return {"candidates": [{"content": {"parts": list(parts)}}]}


def test_gemini_text_parts() -> None:
    response = parse_completion(_gemini({"text": "Hello from Gemini."}))
    assert response.content == "Hello from Gemini." and response.tool_calls == []


@KEEPS_TOOL_CALLS
def test_gemini_function_call_parts() -> None:
    response = parse_completion(
        _gemini({"functionCall": {"name": "get_weather", "args": {"city": "NYC"}}})
    )
    assert response.content == ""
    [call] = response.tool_calls
    assert (call.name, call.arguments, call.id) == ("get_weather", {"city": "NYC"}, "")


def test_gemini_empty_candidates_raises() -> None:
    with pytest.raises(ValueError, match="candidates"):
        parse_completion({"candidates": []})


def test_gemini_multiple_text_parts_concatenated() -> None:
    assert parse_completion(_gemini({"text": "Hello"}, {"text": " world"})).content == "Hello world"


# -- dispatch ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"choices": [{"message": {"content": "hi"}}]},
        {"content": [{"type": "text", "text": "hi"}]},
        {"candidates": [{"content": {"parts": [{"text": "hi"}]}}]},
    ],
    ids=["openai", "anthropic", "gemini"],
)
def test_dispatch_by_shape(body: dict) -> None:
    assert parse_completion(body).content == "hi"


def test_unknown_format_raises_naming_the_three_formats() -> None:
    with pytest.raises(ValueError, match="OpenAI.*Anthropic.*Gemini"):
        parse_completion({"data": "something"})


def test_openai_takes_precedence_over_anthropic() -> None:
    body = {
        "choices": [{"message": {"content": "from choices"}}],
        "content": [{"type": "text", "text": "from content"}],
    }
    assert parse_completion(body).content == "from choices"


# -- streaming (tracesim's; arksim does not stream) --------------------------------


def _fold(events: list[dict]) -> object:
    accumulator = StreamAccumulator()
    for event in events:
        accumulator.add(event)
    return accumulator.response()


def test_anthropic_stream_text_and_tool_use() -> None:
    response = _fold(
        [
            {"type": "message_start", "message": {"content": []}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Let "},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "me see"},
            },
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_9",
                    "name": "lookup",
                    "input": {},
                },
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"order'},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '_id": "A1"}'},
            },
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"},
        ]
    )
    assert response.content == "Let me see"
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_9", "lookup", {"order_id": "A1"})


def test_gemini_stream_text_and_function_call() -> None:
    response = _fold(
        [
            _gemini({"text": "One "}),
            _gemini({"text": "moment."}),
            _gemini({"functionCall": {"id": "fc1", "name": "lookup", "args": {"order_id": "A1"}}}),
            {
                "candidates": [{"content": {"parts": []}, "finishReason": "STOP"}],
                "usageMetadata": {},
            },
        ]
    )
    assert response.content == "One moment."
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("fc1", "lookup", {"order_id": "A1"})
    ]


def test_anthropic_stream_error_event_raises() -> None:
    with pytest.raises(ValueError, match="overloaded"):
        _fold([{"type": "error", "error": {"type": "overloaded_error", "message": "overloaded"}}])
