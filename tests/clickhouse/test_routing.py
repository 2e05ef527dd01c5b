"""SPEC §3 routing on the exporter's tables, every layout: the `spans` view keys each span
as the collector would, and evaluation derives the tool calls of each turn."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.clickhouse.conftest import query, request_of
from tests.clickhouse.exporter_mapping import LAYOUTS
from tests.collector.otlp import new_span_id, new_trace_id, span

T0 = 1_700_000_000_000_000_000
SEC = 1_000_000_000


def _routing_request():  # noqa: ANN202 - a protobuf request
    turn_trace, session_trace, split_trace, arksim_trace, lone = (new_trace_id() for _ in range(5))
    turn_span, orphan = new_span_id(), new_span_id()
    agent = {"service.name": "agent"}
    spans = [
        # rule 3: the tool span arrives before its turn span and carries no key
        span(
            "execute_tool lookup",
            trace_id=turn_trace,
            parent=turn_span,
            start=T0 + 1,
            attrs={
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.arguments": '{"id": 7}',
                "gen_ai.tool.call.result": "found",
                "gen_ai.tool.call.id": "call_1",
            },
        ),
        span(
            "tracesim.turn",
            trace_id=turn_trace,
            span_id=turn_span,
            start=T0,
            attrs={
                "tracesim.chat_id": "sim-1",
                "tracesim.turn_id": 2,
                "tracesim.run_id": "r1",
                "tracesim.user_message": "where is my order?",
            },
        ),
        # rule 4, trace level: the conversation id is on the agent span only
        span(
            "execute_tool refund",
            trace_id=session_trace,
            start=T0 + 5 * SEC,
            attrs={"gen_ai.tool.name": "refund", "gen_ai.tool.call.arguments": '{"amount": 2.5}'},
            status=2,
            status_message="refund denied",
        ),
        span(
            "invoke_agent",
            trace_id=session_trace,
            start=T0 + 4 * SEC,
            attrs={"gen_ai.conversation.id": "prod-9", "gen_ai.operation.name": "invoke_agent"},
        ),
        # a nested agent's own session (starts later): an attribute, the trace stays prod-9
        span(
            "invoke_agent delegate",
            trace_id=session_trace,
            start=T0 + 4 * SEC + 10,
            attrs={"session.id": "delegate-7", "gen_ai.operation.name": "invoke_agent"},
        ),
        # an MCP transport session keys nothing; the MCP span is its parent tool's call
        span(
            "tools/call mcp_only",
            trace_id=lone,
            parent=orphan,
            attrs={"mcp.method.name": "tools/call", "session.id": "mcp-s", "mcp.session.id": "s"},
        ),
        # arksim keys on the span
        span(
            "execute_tool ping",
            trace_id=arksim_trace,
            start=T0 + 6 * SEC,
            attrs={
                "arksim.conversation_id": "ark-1",
                "arksim.turn_id": "3",
                "gen_ai.tool.name": "ping",
            },
        ),
        # no key anywhere: stored, never evaluated
        span("execute_tool orphan", trace_id=lone, span_id=orphan, attrs={"gen_ai.tool.name": "orphan"}),
    ]
    # conversation key on the resource, turn key on the span (each at its own first match)
    split = [
        span(
            "execute_tool split",
            trace_id=split_trace,
            start=T0 + 7 * SEC,
            attrs={"tracesim.turn_id": 4, "gen_ai.tool.name": "split"},
        ),
    ]
    return request_of((agent, spans), ({"service.name": "b", "tracesim.chat_id": "res-1"}, split))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_spans_view_routes_like_the_collector(exporter_db: Callable[..., str], layout: str) -> None:
    url = exporter_db(_routing_request(), layout=layout)
    rows = query(url, "SELECT name, chat_id, turn_id, kind, status_code, scope_name FROM spans")
    keys = {row["name"]: (row["chat_id"], row["turn_id"]) for row in rows}
    assert keys == {
        "tracesim.turn": ("sim-1", 2),
        "execute_tool lookup": ("sim-1", 2),
        "invoke_agent": ("prod-9", None),
        "invoke_agent delegate": ("prod-9", None),
        "execute_tool refund": ("prod-9", None),
        "tools/call mcp_only": (None, None),
        "execute_tool ping": ("ark-1", 3),
        "execute_tool split": ("res-1", 4),
        "execute_tool orphan": (None, None),
    }
    assert {row["kind"] for row in rows} == {"INTERNAL"}
    assert {row["status_code"] for row in rows} == {"UNSET", "ERROR"}
    assert {row["scope_name"] for row in rows} == {"test-scope"}
    turns = query(url, "SELECT chat_id, turn_id, run_id, user_message FROM turns")
    assert turns == [
        {"chat_id": "sim-1", "turn_id": 2, "run_id": "r1", "user_message": "where is my order?"}
    ]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_evaluate_derives_tool_calls_per_turn(
    exporter_db: Callable[..., str], layout: str, tmp_path
) -> None:
    url = exporter_db(_routing_request(), layout=layout)
    result = evaluate_db(url, config=EvalConfig(), output_dir=tmp_path / "out", progress=False)
    assert result.exit_code == 3  # nothing graded (no judge ran, no policy): exit 3
    calls = query(
        url,
        "SELECT chat_id, turn_id, seq, id, name, arguments, result, error, source "
        "FROM tool_calls ORDER BY chat_id, turn_id, seq",
    )
    orphan = next(c for c in calls if c["name"] == "orphan")  # no key: its trace's own chat
    calls.remove(orphan)
    assert len(orphan["chat_id"]) == 32 and orphan["turn_id"] == 0
    assert [(c["chat_id"], c["turn_id"], c["name"]) for c in calls] == [
        ("ark-1", 3, "ping"),
        ("prod-9", 0, "refund"),  # traced-only chat: one turn per trace
        ("res-1", 4, "split"),
        ("sim-1", 2, "lookup"),
    ]
    lookup = calls[-1]
    assert (lookup["id"], lookup["arguments"], lookup["result"]) == ("call_1", '{"id":7}', "found")
    assert calls[1]["error"] == "refund denied" and calls[1]["arguments"] == '{"amount":2.5}'
    assert {c["source"] for c in calls} == {"traced"}
