"""Fixture conversations' turns: span trees, turn rows and tool calls.

Each turn is a `tracesim.turn` span over an `invoke_agent` span whose
children alternate model calls and tool calls (some with a nested HTTP
span, some failing), plus its `turns` row and its `tool_calls` rows
observed explicitly, by tracing, or both.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from tests.report.fixture_rows import Rows, hex_id, to_json

__all__ = ["SCENARIOS", "XSS_TEXT", "add_span", "add_turn", "scenario_tools"]

XSS_TEXT = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
"""Agent text that would run script if the report did not escape it."""

SCENARIOS = {
    "refund_request": ["lookup_order", "check_refund_policy", "issue_refund"],
    "order_status": ["lookup_order", "track_shipment"],
    "change_address": ["lookup_order", "update_address"],
    "product_question": ["search_catalog"],
}
"""Scenario id -> the tools its agent calls, in order."""


def scenario_tools(scenario_id: str) -> list[str]:
    """The tools of a scenario id, or of its base for a numbered one (`order_status-0042`)."""
    return SCENARIOS.get(scenario_id) or SCENARIOS[scenario_id.rsplit("-", 1)[0]]


def add_span(
    rows: Rows,
    *,
    trace: str,
    span: str,
    parent: str | None,
    name: str,
    start: datetime,
    ms: float,
    chat_id: str,
    turn_id: int,
    error: str | None = None,
    operation: str | None = None,
    tool_name: str | None = None,
    model: str | None = None,
    tokens: tuple[int, int] | None = None,
    attributes: dict[str, Any] | None = None,
    service: str = "support-agent",
) -> None:
    """Append one span row (status ERROR when `error` is given)."""
    rows.add(
        "spans",
        trace_id=trace,
        span_id=span,
        parent_span_id=parent,
        name=name,
        kind="INTERNAL",
        start_time=start,
        end_time=start + timedelta(milliseconds=ms),
        duration_ms=ms,
        status_code="ERROR" if error else "UNSET",
        status_message=error,
        service_name=service,
        scope_name="fixture",
        attributes=to_json(attributes or {}),
        resource_attributes=to_json({"service.name": service}),
        events=to_json(
            [
                {
                    "name": "exception",
                    "time": start.isoformat(),
                    "attributes": {"exception.type": "ToolError", "exception.message": error},
                }
            ]
            if error
            else []
        ),
        links="[]",
        chat_id=chat_id,
        turn_id=turn_id,
        operation=operation,
        tool_name=tool_name,
        model=model,
        input_tokens=tokens[0] if tokens else None,
        output_tokens=tokens[1] if tokens else None,
        received_at=start,
    )


def add_turn(
    rows: Rows,
    rng: random.Random,
    *,
    chat_id: str,
    turn_id: int,
    run_id: str,
    scenario_id: str,
    start: datetime,
    inject_xss: bool,
) -> tuple[datetime, list[dict]]:
    """One turn: its spans, turn row and tool calls. Returns its end and tool calls."""
    trace = hex_id(rng, 32)
    turn_span, agent_span = hex_id(rng, 16), hex_id(rng, 16)
    t = start + timedelta(milliseconds=rng.uniform(1, 5))
    calls: list[dict] = []
    tools = scenario_tools(scenario_id)
    n_tools = rng.choice([0, 1, 1, 2, 2, 3])
    for i in range(n_tools + 1):  # llm -> tool -> llm -> tool ... -> llm
        llm_ms = rng.uniform(200, 1200)
        add_span(
            rows,
            trace=trace,
            span=hex_id(rng, 16),
            parent=agent_span,
            name="chat gpt-4o-mini",
            start=t,
            ms=llm_ms,
            chat_id=chat_id,
            turn_id=turn_id,
            operation="chat",
            model="gpt-4o-mini",
            tokens=(rng.randint(300, 2000), rng.randint(20, 300)),
        )
        t += timedelta(milliseconds=llm_ms + 1)
        if i == n_tools:
            break
        name = tools[i % len(tools)]
        tool_span = hex_id(rng, 16)
        tool_ms = rng.uniform(5, 400)
        error = "TimeoutError: upstream took too long" if rng.random() < 0.05 else None
        args = {"order_id": f"A{rng.randint(1000, 9999)}"}
        if name == "search_catalog":
            args = {"query": rng.choice(["blue kettle", "usb-c cable", "desk lamp"]), "limit": 5}
        result = None if error else to_json({"ok": True, "tool": name, "detail": "x" * 40})
        add_span(
            rows,
            trace=trace,
            span=tool_span,
            parent=agent_span,
            name=f"execute_tool {name}",
            start=t,
            ms=tool_ms,
            chat_id=chat_id,
            turn_id=turn_id,
            error=error,
            operation="execute_tool",
            tool_name=name,
            attributes={"gen_ai.tool.name": name, "gen_ai.tool.call.arguments": to_json(args)},
        )
        if rng.random() < 0.5:  # a nested HTTP call under some tools
            add_span(
                rows,
                trace=trace,
                span=hex_id(rng, 16),
                parent=tool_span,
                name="GET /api",
                start=t + timedelta(milliseconds=1),
                ms=tool_ms * 0.8,
                chat_id=chat_id,
                turn_id=turn_id,
                service="orders-api",
            )
        kind = rng.choice(["explicit", "traced", "both", "both"])
        calls.append(
            {
                "seq": i,
                "id": f"call_{hex_id(rng, 8)}" if kind != "traced" else "",
                "name": name,
                "arguments": args,
                "result": result,
                "error": error,
                "source": "tracing_processor" if kind == "traced" else "agent_response",
                "traced": kind != "explicit",
                "span_id": tool_span if kind != "explicit" else None,
                "start_time": t,
                "duration_ms": tool_ms,
            }
        )
        t += timedelta(milliseconds=tool_ms + 1)
    end = t + timedelta(milliseconds=2)
    agent_ms = (end - start).total_seconds() * 1000 - 2
    add_span(
        rows,
        trace=trace,
        span=agent_span,
        parent=turn_span,
        name="invoke_agent support",
        start=start + timedelta(milliseconds=1),
        ms=agent_ms,
        chat_id=chat_id,
        turn_id=turn_id,
        operation="invoke_agent",
    )
    status = "error" if rng.random() < 0.03 else "ok"
    turn_error = "AgentError: connector raised HTTP 502" if status == "error" else None
    total_ms = (end - start).total_seconds() * 1000
    add_span(
        rows,
        trace=trace,
        span=turn_span,
        parent=None,
        name="tracesim.turn",
        start=start,
        ms=total_ms,
        chat_id=chat_id,
        turn_id=turn_id,
        error=turn_error,
        service="tracesim",
        attributes={"tracesim.chat_id": chat_id, "tracesim.turn_id": turn_id},
    )
    agent_message = f"Sure, I looked into {scenario_id.replace('_', ' ')} for you (turn {turn_id})."
    if inject_xss:
        agent_message += " " + XSS_TEXT
    explicit = [
        {k: c[k] for k in ("id", "name", "arguments", "result", "error")} | {"source": c["source"]}
        for c in calls
        if c["source"] != "tracing_processor"
    ]
    rows.add(
        "turns",
        chat_id=chat_id,
        turn_id=turn_id,
        run_id=run_id,
        scenario_id=scenario_id,
        trace_id=trace,
        span_id=turn_span,
        user_message=f"Hi, about my {scenario_id.replace('_', ' ')} <b>please</b> (turn {turn_id})",
        agent_message=None if status == "error" else agent_message,
        explicit_tool_calls=to_json(explicit),
        start_time=start,
        end_time=end,
        duration_ms=total_ms,
        status=status,
        error=turn_error,
    )
    for c in calls:
        rows.add(
            "tool_calls",
            chat_id=chat_id,
            turn_id=turn_id,
            run_id=run_id,
            **{**c, "arguments": to_json(c["arguments"])},
        )
    return end, calls
