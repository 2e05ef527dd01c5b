"""Synthetic agent turns for the evaluator benchmark: a DuckDB file built with the
real DDL through Arrow (see `benchmarks/evaluate.py` for what is measured).

Each turn: a `tracesim.turn` span, a model span whose `gen_ai.output.messages`
requests the calls, and two tool spans in rotating conventions (GenAI,
OpenInference without ids, OpenLLMetry, Google ADK, older Logfire); one in
eight tool calls fails; half the turns also carry explicit tool calls.
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tracesim.schemas import create_all  # noqa: E402

__all__ = ["TURNS_PER_CHAT", "build_database", "scenario_rows"]

TURNS_PER_CHAT = 10
BASE = datetime(2025, 1, 1)
SPAN_COLUMNS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "start_time",
    "end_time",
    "duration_ms",
    "status_code",
    "status_message",
    "service_name",
    "scope_name",
    "attributes",
    "resource_attributes",
    "events",
    "links",
    "chat_id",
    "turn_id",
    "operation",
    "tool_name",
)
RESOURCE = orjson.dumps({"service.name": "bench-agent"}).decode()
# A scenario's expected calls are normalised once, as the pipeline does.


def _tool_attributes(convention: int, name: str, args: dict, call_id: str, result: str) -> dict:
    """Attributes of a tool span under one of five conventions."""
    args_json = orjson.dumps(args).decode()
    if convention == 0:  # OTel GenAI / the Agents bridge
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": args_json,
            "gen_ai.tool.call.result": result,
        }
    if convention == 1:  # OpenInference, no id: recovered from the model span
        return {
            "openinference.span.kind": "TOOL",
            "tool.name": name,
            "tool.parameters": '{"type": "object"}',
            "input.value": args_json,
            "output.value": result,
        }
    if convention == 2:  # OpenLLMetry
        return {
            "traceloop.span.kind": "tool",
            "traceloop.entity.name": name,
            "traceloop.entity.input": orjson.dumps({"args": [], "kwargs": args}).decode(),
            "traceloop.entity.output": orjson.dumps(result).decode(),
        }
    if convention == 3:  # Google ADK
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gcp.vertex.agent.tool_call_args": args_json,
            "gcp.vertex.agent.tool_response": orjson.dumps({"result": result}).decode(),
        }
    return {  # older Logfire / Pydantic AI
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "tool_arguments": args_json,
        "tool_response": result,
        "logfire.msg": f"running tool: {name}",
    }


def scenario_rows(chat_ids: list[str]) -> dict[str, list[Any]]:
    """`conversations` rows whose scenario asserts, on every turn, what `evaluate_turn` checks."""
    expected = [
        {"name": "search_orders", "args": {"customer": "c-1"}},
        {"name": "refund", "args": {"order_id": "A-1", "amount": 10.0}},
    ]
    assertions = []
    for turn in range(TURNS_PER_CHAT):
        assertions += [
            {"type": "tool_call_args", "expected": expected, "turn": turn},
            {"type": "tool_call_args", "expected": expected, "subset": True, "turn": turn},
            {"type": "tool_call_order", "expected": expected, "turn": turn},
            {
                "type": "tool_call_count",
                "expected": {"search_orders": 1, "refund": ["<=", 1]},
                "turn": turn,
            },
            {
                "type": "tool_calls",
                "expected": expected,
                "match_mode": "contains",
                "forbidden": ["delete_account"],
                "turn": turn,
            },
            {"type": "tool_error_rate", "threshold": 0.5, "turn": turn},
            {"type": "tool_latency", "threshold": 500, "turn": turn},
        ]
    scenario = orjson.dumps(
        {"scenario_id": "refund", "goal": "get a refund", "assertions": assertions}
    ).decode()
    return {
        "chat_id": chat_ids,
        "run_id": ["bench-run"] * len(chat_ids),
        "scenario_id": ["refund"] * len(chat_ids),
        "num_turns": [TURNS_PER_CHAT] * len(chat_ids),
        "status": ["completed"] * len(chat_ids),
        "scenario": [scenario] * len(chat_ids),
    }


def build_database(
    path: str, turns: int, *, scenarios: bool = False, distinct: bool = False
) -> int:
    """Write `turns` synthetic turns into a fresh DuckDB file; return the span count.

    `scenarios`: also a `conversations` row per chat whose scenario asserts the
    deterministic checks on every turn (so `--pipeline` runs them too).
    `distinct`: no two turns make the same calls (a customer id and tool durations of
    their own): every check's input is new, nothing is shared between turns.
    """
    columns: dict[str, list[Any]] = {name: [] for name in SPAN_COLUMNS}
    turn_rows: dict[str, list[Any]] = {
        "chat_id": [],
        "turn_id": [],
        "run_id": [],
        "trace_id": [],
        "explicit_tool_calls": [],
        "start_time": [],
        "status": [],
    }

    def add_span(**values: Any) -> None:
        for name in SPAN_COLUMNS:
            columns[name].append(values.get(name))

    for turn in range(turns):
        chat_id, turn_id = f"chat-{turn // TURNS_PER_CHAT:06d}", turn % TURNS_PER_CHAT
        trace_id = f"{turn + 1:032x}"
        start = BASE + timedelta(seconds=turn)
        root = f"{4 * turn + 1:016x}"
        common = {
            "trace_id": trace_id,
            "chat_id": chat_id,
            "turn_id": turn_id,
            "kind": "INTERNAL",
            "resource_attributes": RESOURCE,
            "links": "[]",
            "service_name": "bench-agent",
            "scope_name": "bench",
        }
        calls = [
            (
                "search_orders",
                {"customer": f"c-{turn}" if distinct else "c-1"},
                f"call_{turn}_0",
                '{"orders": ["A-1"]}',
            ),
            (
                "refund",
                {"order_id": "A-1", "amount": 10 if turn % 3 else 12},
                f"call_{turn}_1",
                "refunded",
            ),
        ]
        add_span(
            **common,
            span_id=root,
            parent_span_id=None,
            name="tracesim.turn",
            start_time=start,
            end_time=start + timedelta(milliseconds=900),
            duration_ms=900.0,
            status_code="OK",
            attributes=orjson.dumps(
                {
                    "tracesim.chat_id": chat_id,
                    "tracesim.turn_id": turn_id,
                    "tracesim.user_message": "please refund my order",
                }
            ).decode(),
            events="[]",
        )
        messages = [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "id": cid, "name": n, "arguments": a}
                    for n, a, cid, _ in calls
                ],
            }
        ]
        add_span(
            **common,
            span_id=f"{4 * turn + 2:016x}",
            parent_span_id=root,
            name="chat gpt-4o",
            start_time=start + timedelta(milliseconds=10),
            end_time=start + timedelta(milliseconds=400),
            duration_ms=390.0,
            status_code="UNSET",
            operation="chat",
            attributes=orjson.dumps(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.usage.input_tokens": 812,
                    "gen_ai.usage.output_tokens": 64,
                    "gen_ai.output.messages": orjson.dumps(messages).decode(),
                }
            ).decode(),
            events="[]",
        )
        for k, (name, args, call_id, result) in enumerate(calls):
            convention = (turn + k) % 5
            failed = (turn * 2 + k) % 8 == 0
            offset = 450 + 150 * k
            add_span(
                **common,
                span_id=f"{4 * turn + 3 + k:016x}",
                parent_span_id=root,
                name=f"execute_tool {name}" if convention in (0, 3) else name,
                start_time=start + timedelta(milliseconds=offset),
                end_time=start + timedelta(milliseconds=offset + 100),
                duration_ms=100.0 + k + (turn / 1000 if distinct else 0),
                status_code="ERROR" if failed else "OK",
                status_message="upstream 503" if failed else None,
                operation="execute_tool",
                tool_name=name,
                attributes=orjson.dumps(
                    _tool_attributes(convention, name, args, call_id, result)
                ).decode(),
                events="[]",
            )
        explicit = []
        if turn % 2 == 0:
            explicit = [
                {"id": "", "name": n, "arguments": a, "result": r, "source": "agent_response"}
                for n, a, _, r in calls
            ]
        turn_rows["chat_id"].append(chat_id)
        turn_rows["turn_id"].append(turn_id)
        turn_rows["run_id"].append("bench-run")
        turn_rows["trace_id"].append(trace_id)
        turn_rows["explicit_tool_calls"].append(orjson.dumps(explicit).decode())
        turn_rows["start_time"].append(start)
        turn_rows["status"].append("ok")

    con = duckdb.connect(path)
    create_all(con)
    spans_arrow = pa.table(columns)  # noqa: F841 - read by DuckDB's replacement scan
    con.execute(f"INSERT INTO spans ({', '.join(SPAN_COLUMNS)}) SELECT * FROM spans_arrow")
    turns_arrow = pa.table(turn_rows)  # noqa: F841
    con.execute(f"INSERT INTO turns ({', '.join(turn_rows)}) SELECT * FROM turns_arrow")
    if scenarios:
        conv_rows = scenario_rows(sorted(set(turn_rows["chat_id"])))
        conv_arrow = pa.table(conv_rows)  # noqa: F841
        con.execute(f"INSERT INTO conversations ({', '.join(conv_rows)}) SELECT * FROM conv_arrow")
    con.close()
    return len(columns["span_id"])
