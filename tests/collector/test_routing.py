"""Every routing rule of SPEC §3, arrival order, restarts, and turns/conversations rows."""

from __future__ import annotations

import json
from pathlib import Path

from tracesim.collector import Collector

from tests.collector.otlp import (
    GrpcClient,
    log_record,
    logs_request,
    new_trace_id,
    span,
    trace_request,
)


def _keys(collector: Collector) -> dict[str, list]:
    _, rows = collector.query("SELECT name, chat_id, turn_id FROM spans")
    return {row[0]: row[1:] for row in rows}


def test_rules_first_match_wins(collector: Collector, client: GrpcClient) -> None:
    client.export(
        trace_request(
            [
                span(
                    "rule1",
                    attrs={
                        "tracesim.chat_id": "c1",
                        "tracesim.turn_id": "3",
                        "gen_ai.conversation.id": "ignored",
                    },
                ),
                span("rule1-arksim", attrs={"arksim.conversation_id": "a1", "arksim.turn_id": 4}),
                span("rule4-genai", attrs={"gen_ai.conversation.id": "g1", "session.id": "s0"}),
                span("rule4-session", attrs={"session.id": "s1"}),
                span("unkeyed"),
            ]
        )
    )
    client.export(
        trace_request(
            [
                span("rule2"),
                span("rule1-over-2", attrs={"tracesim.chat_id": "own", "tracesim.turn_id": 0}),
            ],
            resource={"service.name": "r", "tracesim.chat_id": "res", "tracesim.turn_id": 7},
        )
    )
    assert _keys(collector) == {
        "rule1": ["c1", 3],
        "rule1-arksim": ["a1", 4],
        "rule4-genai": ["g1", None],
        "rule4-session": ["s1", None],
        "unkeyed": [None, None],
        "rule2": ["res", 7],
        "rule1-over-2": ["own", 0],
    }


def _turn_span(trace_id: bytes, chat: str = "chat-t", turn: int = 1, **extra: object):
    return span(
        "tracesim.turn",
        trace_id=trace_id,
        attrs={
            "tracesim.chat_id": chat,
            "tracesim.turn_id": turn,
            "tracesim.run_id": "run-1",
            "tracesim.scenario_id": "sc-1",
            **extra,
        },
    )


def test_trace_rule_when_turn_span_arrives_last(collector: Collector, client: GrpcClient) -> None:
    trace_id = new_trace_id()
    client.export(
        trace_request(
            [
                span("child-llm", trace_id=trace_id, attrs={"gen_ai.request.model": "m"}),
                span("child-session", trace_id=trace_id, attrs={"session.id": "prod-session"}),
            ]
        )
    )
    client.export_logs(logs_request([log_record("early log", trace_id=trace_id)]))
    assert collector.flush(10)
    # stored keyed by the trace's conversation id (rule 4) until its turn is known
    assert _keys(collector)["child-llm"] == ["prod-session", None]
    client.export(trace_request([_turn_span(trace_id)]))
    client.export(trace_request([span("late-child", trace_id=trace_id)]))
    keys = _keys(collector)
    assert keys["child-llm"] == ["chat-t", 1]
    assert keys["child-session"] == ["chat-t", 1]  # rule 3 beats rule 4
    assert keys["late-child"] == ["chat-t", 1]
    _, logs = collector.query("SELECT chat_id, turn_id FROM logs")
    assert logs == [["chat-t", 1]]


def test_trace_rule_in_one_request_any_order(collector: Collector, client: GrpcClient) -> None:
    trace_id = new_trace_id()
    client.export(trace_request([span("first", trace_id=trace_id), _turn_span(trace_id, turn=0)]))
    assert _keys(collector)["first"] == ["chat-t", 0]


def test_trace_rule_survives_restart(db_path: Path) -> None:
    before, after = new_trace_id(), new_trace_id()
    with Collector(db_path, grpc_port=0, http_port=None) as first:
        grpc_client = GrpcClient(first.grpc_endpoint)
        grpc_client.export(trace_request([_turn_span(before, turn=5)]))
        grpc_client.export(trace_request([span("orphan", trace_id=after)]))
        grpc_client.close()
    with Collector(db_path, grpc_port=0, http_port=None) as second:
        grpc_client = GrpcClient(second.grpc_endpoint)
        # child of a turn stored before the restart: routed via the turns table
        grpc_client.export(trace_request([span("child-after-restart", trace_id=before)]))
        # turn of a span stored before the restart: back-fills it
        grpc_client.export(trace_request([_turn_span(after, chat="chat-u", turn=2)]))
        grpc_client.close()
        keys = _keys(second)
    assert keys["child-after-restart"] == ["chat-t", 5]
    assert keys["orphan"] == ["chat-u", 2]


def test_turns_and_conversations_materialised(collector: Collector, client: GrpcClient) -> None:
    trace_id = new_trace_id()
    calls = [{"id": "c1", "name": "lookup", "arguments": {"q": 1}}]
    client.export(
        trace_request(
            [
                _turn_span(
                    trace_id,
                    chat="conv-1",
                    turn=0,
                    **{
                        "tracesim.user_message": "hi",
                        "tracesim.agent_message": "hello",
                        "tracesim.explicit_tool_calls": json.dumps(calls),
                        "tracesim.turn.status": "ok",
                    },
                ),
                span(
                    "tracesim.conversation",
                    attrs={
                        "tracesim.chat_id": "conv-1",
                        "tracesim.run_id": "run-1",
                        "tracesim.scenario_id": "sc",
                        "tracesim.conversation.index": 2,
                        "tracesim.agent_type": "python",
                        "tracesim.conversation.num_turns": 1,
                        "tracesim.conversation.status": "completed",
                        "tracesim.scenario": json.dumps({"goal": "g"}),
                    },
                ),
            ]
        )
    )
    # an updated turn record (same chat_id, turn_id) replaces the first one
    client.export(
        trace_request(
            [
                _turn_span(
                    trace_id,
                    chat="conv-1",
                    turn=0,
                    **{
                        "tracesim.user_message": "hi",
                        "tracesim.agent_message": "hello again",
                        "tracesim.turn.status": "error",
                        "tracesim.error": "boom",
                    },
                )
            ]
        )
    )
    _, turns = collector.query(
        "SELECT chat_id, turn_id, run_id, scenario_id, trace_id, user_message, agent_message, "
        "explicit_tool_calls, status, error, duration_ms FROM turns"
    )
    assert turns == [
        [
            "conv-1",
            0,
            "run-1",
            "sc-1",
            trace_id.hex(),
            "hi",
            "hello again",
            None,
            "error",
            "boom",
            5.0,
        ]
    ]
    _, convs = collector.query(
        "SELECT chat_id, run_id, conversation_index, agent_type, num_turns, status, "
        "scenario->>'$.goal' FROM conversations"
    )
    assert convs == [["conv-1", "run-1", 2, "python", 1, "completed", "g"]]
