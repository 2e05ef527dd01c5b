"""Messages from spans: each convention's user message and agent reply, and production
conversations judged with them (goal inferred, said in the reason)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from tracesim.evaluator import evaluate_db
from tracesim.evaluator.extract.dialogue import turn_dialogue
from tracesim.evaluator.output.results_file import read_results
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import fake_openai, judge_reply

T0 = datetime(2025, 3, 1, 9, 0, 0)
HISTORY_USER = "hello, earlier question"
USER = "Where is my order A1001?"
REPLY = "Order A1001 is shipped."


def span(n: int, attrs: dict, *, events: list | None = None, parent: int | None = None) -> dict:
    return {
        "span_id": f"{n:016x}",
        "parent_span_id": f"{parent:016x}" if parent is not None else None,
        "start_time": T0 + timedelta(seconds=n),
        "end_time": T0 + timedelta(seconds=n, milliseconds=500),
        "attributes": json.dumps(attrs),
        "events": json.dumps(events or []),
    }


CONVENTIONS = {
    "otel_genai": [
        span(
            1,
            {
                "gen_ai.input.messages": json.dumps(
                    [
                        {"role": "user", "parts": [{"type": "text", "content": HISTORY_USER}]},
                        {"role": "assistant", "parts": [{"type": "text", "content": "hi"}]},
                        {"role": "user", "parts": [{"type": "text", "content": USER}]},
                    ]
                ),
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "tool_call", "name": "lookup_order"}],
                        },
                    ]
                ),
            },
        ),
        span(
            2,
            {
                "gen_ai.output.messages": json.dumps(
                    [
                        {"role": "assistant", "parts": [{"type": "text", "content": REPLY}]},
                    ]
                )
            },
        ),
    ],
    "openinference": [
        span(
            1,
            {
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": HISTORY_USER,
                "llm.input_messages.1.message.role": "user",
                "llm.input_messages.1.message.content": USER,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": REPLY,
            },
        ),
    ],
    "openllmetry": [
        span(
            1,
            {
                "gen_ai.prompt.0.role": "system",
                "gen_ai.prompt.0.content": "be nice",
                "gen_ai.prompt.1.role": "user",
                "gen_ai.prompt.1.content": USER,
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.content": REPLY,
            },
        ),
    ],
    "otel_genai_events": [
        span(
            1,
            {},
            events=[
                {"name": "gen_ai.user.message", "attributes": {"content": USER}},
                {
                    "name": "gen_ai.choice",
                    "attributes": {"message": json.dumps({"content": REPLY})},
                },
            ],
        ),
    ],
    "adk": [
        span(
            1,
            {
                "gcp.vertex.agent.llm_request": json.dumps(
                    {"contents": [{"role": "user", "parts": [{"text": USER}]}]}
                ),
                "gcp.vertex.agent.llm_response": json.dumps(
                    {"content": {"role": "model", "parts": [{"text": REPLY}]}}
                ),
            },
        ),
    ],
    "vercel_ai": [
        span(1, {"ai.prompt": json.dumps({"prompt": USER}), "ai.response.text": REPLY}),
        span(
            2,
            {
                "ai.prompt.messages": json.dumps(
                    [{"role": "user", "content": [{"type": "text", "text": USER}]}]
                )
            },
            parent=1,
        ),
    ],
    "pydantic_ai": [
        span(1, {"final_result": REPLY}),
        span(
            2,
            {
                "all_messages_events": json.dumps(
                    [
                        {"event.name": "gen_ai.user.message", "content": USER, "role": "user"},
                        {
                            "event.name": "gen_ai.choice",
                            "message": {"role": "assistant", "content": REPLY},
                        },
                    ]
                )
            },
            parent=1,
        ),
    ],
    "openinference_agent_level": [
        span(1, {"openinference.span.kind": "AGENT", "input.value": USER, "output.value": REPLY}),
        span(
            2,
            {
                "openinference.span.kind": "TOOL",
                "input.value": '{"order_id": "A1001"}',
                "output.value": "shipped",
            },
            parent=1,
        ),
    ],
}


@pytest.mark.parametrize("convention", sorted(CONVENTIONS))
def test_user_message_and_reply_of_each_convention(convention: str) -> None:
    dialogue = turn_dialogue(CONVENTIONS[convention])
    assert dialogue.user_message == USER
    assert dialogue.agent_message == REPLY
    assert dialogue.convention == convention.replace("_agent_level", "")


def test_spans_without_messages_give_none() -> None:
    dialogue = turn_dialogue([span(1, {"gen_ai.tool.name": "x"}), {"attributes": "{not json"}])
    assert dialogue.user_message is None and dialogue.agent_message is None


def _production_db(path: Path) -> Path:
    con = duckdb.connect(str(path))
    create_all(con)
    turns = [("Where is my order A1001?", "It is shipped."), ("Thanks!", "You're welcome.")]
    for t, (user, reply) in enumerate(turns):
        attrs = {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": "prod-1",
            "gen_ai.input.messages": json.dumps([{"role": "user", "content": user}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": reply}]),
        }
        start = T0 + timedelta(minutes=t)
        con.execute(
            "INSERT INTO spans (trace_id, span_id, name, start_time, end_time, attributes, "
            "events, chat_id, turn_id) VALUES (?, ?, 'chat m', ?, ?, ?, '[]', 'prod-1', NULL)",
            [
                f"{t + 1:032x}",
                f"{t + 1:016x}",
                start,
                start + timedelta(seconds=1),
                json.dumps(attrs),
            ],
        )
    con.close()
    return path


def test_production_conversation_is_judged_with_an_inferred_goal(tmp_path: Path) -> None:
    db = _production_db(tmp_path / "prod.duckdb")
    with fake_openai(lambda body: judge_reply(body, goal_done=True)) as fake:
        llm = LLMConfig(model="judge", base_url=fake.base_url, api_key_env="")
        config = EvalConfig(metrics=["goal_completion", "helpfulness"], llm=llm)
        result = evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)
        prompts = [
            m["content"] for r in fake.requests for m in r["messages"] if m["role"] == "user"
        ]
    assert len(fake.requests) == 3  # goal once, helpfulness per turn
    assert any("[turn 1] User: Thanks!" in p and "Agent: You're welcome." in p for p in prompts)
    assert all("Goal: not given; infer what the user wanted" in p for p in prompts)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT metric, turn_id, value, reason FROM scores WHERE chat_id = 'prod-1' "
            "AND metric IN ('goal_completion', 'helpfulness') ORDER BY metric, turn_id"
        ).fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("goal_completion", None, 1.0),
        ("helpfulness", 0, 0.75),
        ("helpfulness", 1, 0.75),
    ]
    assert all(r[3].startswith("goal inferred from the conversation") for r in rows)
    [conversation] = read_results(result.results_path).conversations
    shown = [
        (t.source, t.user_message, t.agent_message, t.message_convention)
        for t in conversation.turns
    ]
    assert shown == [
        ("traced", "Where is my order A1001?", "It is shipped.", "otel_genai"),
        ("traced", "Thanks!", "You're welcome.", "otel_genai"),
    ]


def test_a_tool_span_under_a_silent_root_never_speaks_for_the_turn() -> None:
    spans = [
        span(1, {"http.route": "/chat"}),  # the root: no messages at all
        span(2, {"openinference.span.kind": "TOOL", "input.value": '{"q": 1}'}, parent=1),
    ]
    assert turn_dialogue(spans) == turn_dialogue([])  # nothing, rather than the tool's input


@pytest.mark.parametrize(
    ("spans", "convention"),
    [
        (  # OpenInference on Gemini: role `model`, text in message contents
            [
                span(
                    1,
                    {
                        "llm.input_messages.0.message.role": "user",
                        "llm.input_messages.0.message.contents.0.message_content.text": USER,
                        "llm.output_messages.0.message.role": "model",
                        "llm.output_messages.0.message.contents.0.message_content.text": REPLY,
                    },
                ),
            ],
            "openinference",
        ),
        (  # latest GenAI semconv: messages on the inference details event (or log record)
            [
                span(
                    1,
                    {"gen_ai.operation.name": "chat"},
                    events=[
                        {
                            "name": "gen_ai.client.inference.operation.details",
                            "attributes": {
                                "gen_ai.input.messages": json.dumps(
                                    [{"role": "user", "parts": [{"type": "text", "content": USER}]}]
                                ),
                                "gen_ai.output.messages": json.dumps(
                                    [
                                        {
                                            "role": "assistant",
                                            "parts": [{"type": "text", "content": REPLY}],
                                        }
                                    ]
                                ),
                            },
                        }
                    ],
                ),
            ],
            "otel_genai",
        ),
        (  # any-agent: gen_ai.output of the model call; a tool's gen_ai.output is not a reply
            [
                span(
                    1,
                    {
                        "gen_ai.operation.name": "call_llm",
                        "gen_ai.output.type": "text",
                        "gen_ai.output": REPLY,
                        "gen_ai.input.messages": json.dumps([{"role": "user", "content": USER}]),
                    },
                ),
                span(
                    2,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.output.type": "text",
                        "gen_ai.output": "tool output",
                    },
                ),
            ],
            "otel_genai",
        ),
    ],
    ids=["openinference-gemini", "genai-details-event", "any-agent"],
)
def test_more_shapes(spans: list, convention: str) -> None:
    dialogue = turn_dialogue(spans)
    assert (dialogue.user_message, dialogue.agent_message) == (USER, REPLY)
    assert dialogue.convention == convention


def test_an_inner_chain_step_is_not_the_reply() -> None:
    """LangGraph's routing step (a CHAIN inside the agent) outputs `Send(...)`, not an answer."""
    spans = [
        span(1, {"openinference.span.kind": "CHAIN", "input.value": USER}),
        span(
            2, {"openinference.span.kind": "CHAIN", "output.value": "Send(node='tools')"}, parent=1
        ),
    ]
    dialogue = turn_dialogue(spans)
    assert dialogue.user_message == USER and dialogue.agent_message is None
