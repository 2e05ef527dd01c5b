"""Calls of one chat-completions answer share a `group` (one model message), over loopback."""

from __future__ import annotations

import asyncio

import pytest

from schemas.agent_config import ChatCompletionsAgentConfig
from simulator.connectors import TurnContext
from simulator.connectors.chat_completions import ChatCompletionsConnector
from tests.connectors.test_chat_completions_formats import _app
from tests.fakes.asgi import serve_asgi


def _call(index: int, name: str) -> dict:
    return {
        "index": index,
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": "{}"},
    }


def _openai(calls: list[dict], *, answer_id: str | None) -> tuple[dict, list[dict]]:
    whole = {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": calls}}]}
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [c]}}]} for c in calls]
    if answer_id is not None:
        whole["id"] = answer_id
        for chunk in chunks:
            chunk["id"] = answer_id
    return whole, chunks


def _send(whole: dict, events: list[dict], *, stream: bool, turn_id: int) -> list:
    with serve_asgi(_app(whole, events)) as url:
        config = ChatCompletionsAgentConfig.model_validate(
            {
                "agent_type": "chat_completions",
                "api_config": {"endpoint": f"{url}/chat", "stream": stream},
            }
        )
        connector = ChatCompletionsConnector(config)

        async def one_turn():
            chat_id = await connector.open()
            try:
                turn = TurnContext(chat_id=chat_id, turn_id=turn_id, headers={}, history=())
                return await connector.send("go", turn=turn)
            finally:
                await connector.close()

        return asyncio.run(one_turn()).tool_calls


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(
    ("answer_id", "group"),
    [("chatcmpl-7", "turn-3-chatcmpl-7"), (None, "turn-3-msg-0")],
    ids=["answer-id", "no-id"],
)
def test_several_calls_of_one_answer_share_a_turn_scoped_group(
    stream: bool, answer_id: str | None, group: str
) -> None:
    whole, chunks = _openai([_call(0, "a"), _call(1, "b")], answer_id=answer_id)
    calls = _send(whole, chunks, stream=stream, turn_id=3)
    assert [(c.name, c.group) for c in calls] == [("a", group), ("b", group)]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_single_call_gets_no_group(stream: bool) -> None:
    whole, chunks = _openai([_call(0, "a")], answer_id="chatcmpl-1")
    [call] = _send(whole, chunks, stream=stream, turn_id=0)
    assert call.group is None


def test_anthropic_stream_groups_by_the_message_start_id() -> None:
    events = [{"type": "message_start", "message": {"id": "msg_9", "content": []}}]
    for index, name in enumerate(("a", "b")):
        block = {"type": "tool_use", "id": f"t{index}", "name": name, "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
    calls = _send({}, events, stream=True, turn_id=1)
    assert [(c.name, c.group) for c in calls] == [("a", "turn-1-msg_9"), ("b", "turn-1-msg_9")]
