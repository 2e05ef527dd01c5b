"""Calls known only from the history a later model input replays, and answers tied to their
calls only by position (SPEC §5), on rows shaped as real instrumentations emit them."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.provenance import source_of

TRACE = "0" * 31 + "3"


def _row(second: int, attributes: dict) -> dict:
    return {
        "trace_id": TRACE,
        "span_id": f"{second:016x}",
        "parent_span_id": None,
        "name": "chat m",
        "start_time": datetime(2025, 1, 1, 12, 0, second),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps({"gen_ai.operation.name": "chat", **attributes}),
        "events": "[]",
    }


def _legacy_prompt(history: list[tuple[str, str, dict | str]]) -> dict:
    """`gen_ai.prompt.N.*` (OpenLLMetry): user, then (assistant call | tool answer) items."""
    attributes: dict = {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi"}
    for index, (role, name, value) in enumerate(history, start=1):
        attributes[f"gen_ai.prompt.{index}.role"] = role
        if role == "assistant":
            attributes[f"gen_ai.prompt.{index}.tool_calls.0.name"] = name
            attributes[f"gen_ai.prompt.{index}.tool_calls.0.arguments"] = json.dumps(value)
        else:
            attributes[f"gen_ai.prompt.{index}.content"] = value
    return attributes


def test_calls_only_in_the_replayed_history_are_calls() -> None:
    """Ollama under OpenLLMetry (plain and streamed) records no reply's tool calls, only the
    prompt: the history the next model input replays holds the calls (no ids) and their
    answers (no ids), paired by position."""
    first = [("assistant", "get_weather", {"city": "Paris"}), ("tool", "", "Sunny")]
    second = [*first, ("assistant", "lookup_order", {"order_id": "A1"}), ("tool", "", "none")]
    rows = [
        _row(1, _legacy_prompt([])),
        _row(2, _legacy_prompt(first)),
        _row(3, _legacy_prompt(second)),
    ]
    calls = extract_tool_calls(rows, context=rows)
    assert [(c.name, c.arguments, c.result) for c in calls] == [
        ("get_weather", {"city": "Paris"}, "Sunny"),
        ("lookup_order", {"order_id": "A1"}, "none"),
    ]
    assert source_of(calls[0], "arguments") == "model_history"
    assert source_of(calls[0], "result") == "model_input_position"
    assert calls[0].start_time == datetime(2025, 1, 1, 12, 0, 2, tzinfo=timezone.utc)  # replayed


def test_calls_an_earlier_turn_replayed_are_not_this_turns() -> None:
    """The second turn's inputs replay the first turn's call: only new history is its own."""
    first = [("assistant", "get_weather", {"city": "Paris"}), ("tool", "", "Sunny")]
    turn_one = [_row(1, _legacy_prompt([])), _row(2, _legacy_prompt(first))]
    later = [*first, ("assistant", "get_weather", {"city": "Rome"}), ("tool", "", "Rainy")]
    turn_two = [_row(3, _legacy_prompt(first)), _row(4, _legacy_prompt(later))]
    context = ConversationSpans([*turn_one, *turn_two])
    assert [c.arguments for c in extract_tool_calls(turn_one, context=context)] == [
        {"city": "Paris"}
    ]
    calls = extract_tool_calls(turn_two, context=context)
    assert [(c.arguments, c.result) for c in calls] == [({"city": "Rome"}, "Rainy")]


def test_recorded_requests_are_not_doubled_by_their_replay() -> None:
    """Requests recorded on the model span (with ids) and replayed later are one call each."""
    output = {
        "gen_ai.output.messages": json.dumps(
            [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": "c1",
                            "name": "get_weather",
                            "arguments": {"city": "Paris"},
                        }
                    ],
                }
            ]
        )
    }
    replay = {
        "gen_ai.input.messages": json.dumps(
            [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": "c1",
                            "name": "get_weather",
                            "arguments": {"city": "Paris"},
                        }
                    ],
                },
                {
                    "role": "tool",
                    "parts": [{"type": "tool_call_response", "id": "c1", "response": "Sunny"}],
                },
            ]
        )
    }
    rows = [_row(1, output), _row(2, replay)]
    [call] = extract_tool_calls(rows, context=rows)
    assert (call.id, call.result, source_of(call, "arguments")) == ("c1", "Sunny", "model_request")


def test_answers_without_ids_pair_by_position_with_calls_whose_ids_none_answers() -> None:
    """Cohere under OpenLLMetry: the calls have ids (gen_ai.completion.0.tool_calls), the
    answers are `gen_ai.prompt.N.role=tool` messages without tool_call_id."""
    rows = []
    history: dict = {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi"}
    for second, (call_id, city, answer) in enumerate(
        [("c1", "Paris", "Sunny"), ("c2", "Rome", "Rainy")], 1
    ):
        rows.append(
            _row(
                second,
                {
                    **history,
                    "gen_ai.completion.0.tool_calls.0.id": call_id,
                    "gen_ai.completion.0.tool_calls.0.name": "get_weather",
                    "gen_ai.completion.0.tool_calls.0.arguments": json.dumps({"city": city}),
                },
            )
        )
        index = 2 * second
        history = {
            **history,
            f"gen_ai.prompt.{index - 1}.role": "assistant",
            f"gen_ai.prompt.{index}.role": "tool",
            f"gen_ai.prompt.{index}.content": answer,
        }
    rows.append(_row(3, history))
    calls = extract_tool_calls(rows, context=rows)
    assert [(c.id, c.result) for c in calls] == [("c1", "Sunny"), ("c2", "Rainy")]
    assert source_of(calls[1], "result") == "model_input_position"


def test_what_the_turns_first_input_replays_was_called_before_it() -> None:
    """A trace of its own per model call (LiteLLM's callback, no conversation key): its one
    input replays calls made in earlier, unlinked traces; they are not this turn's calls."""
    earlier = [("assistant", "get_weather", {"city": "Paris"}), ("tool", "", "Sunny")]
    row = _row(1, _legacy_prompt(earlier))
    assert extract_tool_calls([row], context=[row]) == []


def test_genai_tool_messages_without_ids_pair_by_position() -> None:
    """OpenLIT over Ollama: tool_call parts with id "" and answers as `role: tool` messages
    of text parts, in `gen_ai.input.messages`."""
    call = {"type": "tool_call", "id": "", "name": "get_weather", "arguments": {"city": "Paris"}}
    output = {"gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}])}
    replay = {
        "gen_ai.input.messages": json.dumps(
            [
                {"role": "assistant", "parts": [call]},
                {"role": "tool", "parts": [{"type": "text", "content": "Sunny"}]},
            ]
        )
    }
    rows = [_row(1, output), _row(2, replay)]
    [found] = extract_tool_calls(rows, context=rows)
    assert (found.id, found.result) == ("", "Sunny")
    assert source_of(found, "result") == "model_input_position"


def test_a_replay_under_another_id_is_the_recorded_request_by_position() -> None:
    """Ids rewritten between the recorded request and its replay: one call, not two."""
    output = {
        "gen_ai.output.messages": json.dumps(
            [
                {
                    "role": "assistant",
                    "parts": [{"type": "tool_call", "id": "c1", "name": "t", "arguments": {}}],
                }
            ]
        )
    }
    replay = {
        "gen_ai.input.messages": json.dumps(
            [
                {
                    "role": "assistant",
                    "parts": [
                        {"type": "tool_call", "id": "x9", "name": "t", "arguments": {"a": 1}}
                    ],
                }
            ]
        )
    }
    rows = [_row(1, output), _row(2, replay)]
    [call] = extract_tool_calls(rows, context=rows)
    assert call.id == "c1"


def _genai_row(second: int, history: list[dict], output: list[dict]) -> dict:
    return _row(
        second,
        {
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}, *history]
            ),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": output}]),
        },
    )


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def _exchange(call_id: str, name: str, arguments: dict, answer: str) -> list[dict]:
    return [
        {"role": "assistant", "parts": [_call(call_id, name, arguments)]},
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": call_id, "response": answer}],
        },
    ]


def test_a_reply_and_its_replay_under_another_id_are_one_call() -> None:
    """The Responses API under OpenLLMetry: the reply's tool_call part has the item id, the
    next input replays the call and answers it under the call_id. Same name, arguments and
    position: one call, known by both ids (the replay's, which answers name, kept)."""
    paris, order = {"city": "Paris"}, {"order_id": "A1"}
    one = _exchange("call_1", "get_weather", paris, "Sunny")
    two = [*one, *_exchange("call_2", "lookup_order", order, "none")]
    rows = [
        _genai_row(1, [], [_call("item_1", "get_weather", paris)]),
        _genai_row(2, one, [_call("item_2", "lookup_order", order)]),
        _genai_row(3, two, [{"type": "text", "content": "done"}]),
    ]
    audit: list = []
    calls = extract_tool_calls(rows, context=rows, audit=audit)
    assert [(c.id, c.name, c.result) for c in calls] == [
        ("call_1", "get_weather", "Sunny"),
        ("call_2", "lookup_order", "none"),
    ]
    assert source_of(calls[0], "id") == "model_history"
    assert audit == []  # the item ids and the answers are explained


def test_a_replay_with_other_arguments_is_not_renamed() -> None:
    """Other arguments at the same position: not the same call, the reply's id stays."""
    one = _exchange("call_1", "get_weather", {"city": "Rome"}, "Rainy")
    rows = [
        _genai_row(1, [], [_call("item_1", "get_weather", {"city": "Paris"})]),
        _genai_row(2, one, [{"type": "text", "content": "done"}]),
    ]
    calls = extract_tool_calls(rows, context=rows)
    assert calls[0].id == "item_1"
