"""SPEC §3 as updated: keys taken separately, and a conversation id on any span of a trace
keys the whole trace in any arrival order and across restarts."""

from __future__ import annotations

from pathlib import Path

import pytest
from tracesim.collector import Collector

from tests.collector.otlp import (
    GrpcClient,
    log_record,
    logs_request,
    new_span_id,
    new_trace_id,
    span,
    trace_request,
)


def _keys(collector: Collector) -> dict[str, list]:
    _, rows = collector.query("SELECT name, chat_id, turn_id FROM spans")
    return {row[0]: row[1:] for row in rows}


def test_chat_and_turn_each_take_their_own_first_match(
    collector: Collector, client: GrpcClient
) -> None:
    client.export(
        trace_request(
            [
                span("turn-on-span", attrs={"tracesim.turn_id": 3}),
                span("arksim-turn", attrs={"arksim.turn_id": "4"}),
                span("own-chat", attrs={"tracesim.chat_id": "own"}),
            ],
            resource={"service.name": "r", "tracesim.chat_id": "res-chat", "tracesim.turn_id": 9},
        )
    )
    client.export(
        trace_request(
            [
                span("chat-on-span", attrs={"arksim.conversation_id": "ark"}),
                span("nothing-on-span"),
            ],
            resource={"service.name": "r", "tracesim.turn_id": 2},
        )
    )
    assert _keys(collector) == {
        "turn-on-span": ["res-chat", 3],
        "arksim-turn": ["res-chat", 4],
        "own-chat": ["own", 9],
        "chat-on-span": ["ark", 2],
        "nothing-on-span": [None, None],  # a turn without a chat keys nothing
    }


@pytest.mark.parametrize(
    "key",
    [
        "gen_ai.conversation.id",
        "session.id",
        "gcp.vertex.agent.session_id",
        "traceloop.association.properties.thread_id",
        "ai.telemetry.metadata.sessionId",
        "mlflow.trace.session",
        "ai.settings.context.sessionId",
        "langfuse.session.id",
        "group_id",  # OpenAI Agents SDK trace group (Logfire puts it on the root only)
    ],
)
def test_conversation_id_on_one_span_keys_its_trace_in_one_request(
    collector: Collector, client: GrpcClient, key: str
) -> None:
    trace_id = new_trace_id()
    client.export(
        trace_request(
            [
                span("execute_tool get_weather", trace_id=trace_id),
                span("invoke_agent", trace_id=trace_id, attrs={key: "conv-42"}),
            ]
        )
    )
    assert _keys(collector) == {
        "execute_tool get_weather": ["conv-42", None],
        "invoke_agent": ["conv-42", None],
    }


def test_conversation_id_arriving_later_backfills_spans_and_logs(
    collector: Collector, client: GrpcClient
) -> None:
    trace_id, other = new_trace_id(), new_trace_id()
    client.export(trace_request([span("tool", trace_id=trace_id), span("other", trace_id=other)]))
    client.export_logs(logs_request([log_record("tool log", trace_id=trace_id)]))
    assert collector.flush(10)
    assert _keys(collector)["tool"] == [None, None]
    client.export(
        trace_request([span("agent", trace_id=trace_id, attrs={"session.id": "conv-42"})])
    )
    client.export(trace_request([span("late-tool", trace_id=trace_id)]))
    keys = _keys(collector)
    assert keys["tool"] == ["conv-42", None]
    assert keys["late-tool"] == ["conv-42", None]
    assert keys["other"] == [None, None]
    _, logs = collector.query("SELECT chat_id FROM logs")
    assert logs == [["conv-42"]]


def test_first_conversation_id_of_a_trace_keys_the_whole_trace(
    collector: Collector, client: GrpcClient
) -> None:
    """SPEC §3: a nested agent's own session id stays an attribute (same start: the first
    seen is the outermost)."""
    trace_id = new_trace_id()
    client.export(
        trace_request(
            [
                span("agent", trace_id=trace_id, attrs={"gen_ai.conversation.id": "first"}),
                span("inner", trace_id=trace_id, attrs={"session.id": "second"}),
                span("tool", trace_id=trace_id),
            ]
        )
    )
    assert _keys(collector) == {
        "agent": ["first", None],
        "inner": ["first", None],
        "tool": ["first", None],
    }


def test_outer_conversation_arriving_after_a_nested_one_rekeys_the_trace(
    collector: Collector, client: GrpcClient
) -> None:
    """A delegate agent's spans end (and are exported) before the orchestrator's root: the
    earliest-starting span's conversation id wins and re-keys what was stored."""
    trace_id, root = new_trace_id(), new_span_id()
    t0 = 1_700_000_000_000_000_000
    client.export(
        trace_request(
            [
                span(
                    "delegate",
                    trace_id=trace_id,
                    parent=root,
                    start=t0 + 2_000,
                    attrs={"session.id": "delegate-session"},
                ),
                span("delegate tool", trace_id=trace_id, parent=root, start=t0 + 3_000),
            ]
        )
    )
    client.export_logs(logs_request([log_record("delegate log", trace_id=trace_id)]))
    assert collector.flush(10)
    assert _keys(collector)["delegate"] == ["delegate-session", None]
    client.export(
        trace_request(
            [
                span(
                    "orchestrator",
                    trace_id=trace_id,
                    span_id=root,
                    start=t0,
                    attrs={"gen_ai.conversation.id": "outer"},
                )
            ]
        )
    )
    client.export(
        trace_request(
            [span("late", trace_id=trace_id, start=t0 + 4_000, attrs={"session.id": "x"})]
        )
    )
    assert _keys(collector) == {
        "delegate": ["outer", None],
        "delegate tool": ["outer", None],
        "orchestrator": ["outer", None],
        "late": ["outer", None],
    }
    _, logs = collector.query("SELECT chat_id FROM logs")
    assert logs == [["outer"]]


def test_mcp_session_ids_never_key_a_conversation(collector: Collector, client: GrpcClient) -> None:
    trace_id = new_trace_id()
    client.export(
        trace_request(
            [
                span(
                    "tools/call get_weather",
                    trace_id=trace_id,
                    attrs={
                        "mcp.method.name": "tools/call",
                        "session.id": "mcp-transport",
                        "mcp.session.id": "mcp-transport",
                    },
                ),
            ]
        )
    )
    assert _keys(collector) == {"tools/call get_weather": [None, None]}


def test_turn_span_beats_conversation_id_for_the_whole_trace(
    collector: Collector, client: GrpcClient
) -> None:
    trace_id = new_trace_id()
    client.export(
        trace_request(
            [
                span("agent", trace_id=trace_id, attrs={"gen_ai.conversation.id": "prod"}),
                span("tool", trace_id=trace_id),
            ]
        )
    )
    assert collector.flush(10)
    client.export(
        trace_request(
            [
                span(
                    "tracesim.turn",
                    trace_id=trace_id,
                    attrs={"tracesim.chat_id": "sim", "tracesim.turn_id": 1},
                )
            ]
        )
    )
    keys = _keys(collector)
    assert keys["agent"] == ["sim", 1]
    assert keys["tool"] == ["sim", 1]


def test_conversation_id_keys_the_trace_across_restarts(db_path: Path) -> None:
    keyed_first, unkeyed_first = new_trace_id(), new_trace_id()
    with Collector(db_path, grpc_port=0, http_port=None) as first:
        grpc_client = GrpcClient(first.grpc_endpoint)
        grpc_client.export(
            trace_request([span("agent-1", trace_id=keyed_first, attrs={"session.id": "c1"})])
        )
        grpc_client.export(trace_request([span("tool-2", trace_id=unkeyed_first)]))
        grpc_client.close()
    with Collector(db_path, grpc_port=0, http_port=None) as second:
        grpc_client = GrpcClient(second.grpc_endpoint)
        grpc_client.export(trace_request([span("tool-1", trace_id=keyed_first)]))
        grpc_client.export(
            trace_request(
                [span("agent-2", trace_id=unkeyed_first, attrs={"gen_ai.conversation.id": "c2"})]
            )
        )
        grpc_client.close()
        keys = _keys(second)
    assert keys["tool-1"] == ["c1", None]
    assert keys["tool-2"] == ["c2", None]
