"""Replays answered by tool stubs: a call no stub matched is a failed check of its turn.

The runner records on each `tracesim.turn` span of a scenario with `tool_stubs`
how many calls the stubs answered (`tracesim.tool_stubs.answered`) and which
they could not (`tracesim.tool_stubs.unstubbed`, JSON). Such a replay touched
no back end for those calls and went its own way from there, so the turn gets
an `unstubbed_tool_calls` check naming them (value: the share answered), never
a silent pass. A turn that made more tool calls than went through the stubs (answered or
not) called tools that never asked them: the agent's tools are not wrapped (`@tool`,
`stub_function_tools`), the real tool ran, and the check fails naming those calls. Turns
with MCP `tools/call` spans are exempt from that count (an MCP server, e.g. `tracesim
mcp-mock`, answers them out of the run's sight).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson
from tracesim.schemas import TRACESIM, MetricResult, ToolCall

__all__ = ["stub_check"]


def _attributes(span: Mapping[str, Any]) -> Mapping[str, Any]:
    value = span.get("attributes")
    if isinstance(value, (str, bytes)):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
    return value if isinstance(value, Mapping) else {}


_MCP_CALL = "tools/call"


def _has_mcp_calls(spans: Sequence[Mapping[str, Any]]) -> bool:
    """Whether any span of the turn is an MCP `tools/call` (client or server)."""
    for span in spans:
        raw = span.get("attributes")
        if isinstance(raw, str) and _MCP_CALL not in raw:
            continue
        if _attributes(span).get("mcp.method.name") == _MCP_CALL:
            return True
    return False


def _named(calls: Iterable[Any]) -> str:
    """`name({args})` of the first five calls (ToolCalls or `{name, arguments}` dicts)."""
    parts = []
    for call in list(calls)[:5]:
        item = (
            call if isinstance(call, Mapping) else {"name": call.name, "arguments": call.arguments}
        )
        parts.append(f"{item.get('name')}({orjson.dumps(item.get('arguments') or {}).decode()})")
    return ", ".join(parts)


def stub_check(
    spans: Iterable[Mapping[str, Any]], calls: Sequence[ToolCall] = ()
) -> MetricResult | None:
    """The turn's `unstubbed_tool_calls` check, or None when the turn ran without stubs.

    `calls` are the turn's merged calls of the tools the scenario stubs: more of them than
    went through the stubs means those tools were never wrapped (the real tool ran). Calls of
    tools no stub names are left out: a handoff or a hosted tool is no stub's business."""
    spans = list(spans)
    for span in spans:
        if span.get("name") != TRACESIM.TURN_SPAN:
            continue
        raw = span.get("attributes")
        if isinstance(raw, str) and TRACESIM.STUBBED_CALLS not in raw:
            return None  # most turns: no stubs, nothing to parse
        attributes = _attributes(span)
        if TRACESIM.STUBBED_CALLS not in attributes:
            return None
        answered = int(attributes.get(TRACESIM.STUBBED_CALLS) or 0)
        try:
            missing = orjson.loads(attributes.get(TRACESIM.UNSTUBBED_CALLS) or "[]")
        except orjson.JSONDecodeError:
            missing = []
        missing = (
            [m for m in missing if isinstance(m, Mapping)] if isinstance(missing, list) else []
        )
        total = answered + len(missing)
        bypassed = len(calls) - total
        if bypassed > 0 and not _has_mcp_calls(spans):
            return MetricResult(
                name="unstubbed_tool_calls",
                value=answered / len(calls),
                passed=False,
                label="unstubbed",
                reason=(
                    f"{bypassed} of {len(calls)} tool calls never went through the scenario's "
                    f"stubs, so the real tool ran ({_named(calls)}): wrap the agent's tools "
                    "with tracesim's @tool or stub_function_tools (MCP tools: tracesim mcp-mock)"
                ),
                details={
                    "kind": "check",
                    "answered": answered,
                    "unstubbed": missing,
                    "bypassed": bypassed,
                },
            )
        if not missing:
            return MetricResult(
                name="unstubbed_tool_calls",
                value=1.0,
                passed=True,
                reason=f"{answered} tool calls answered by the scenario's stubs",
                details={"kind": "check", "answered": answered, "unstubbed": []},
            )
        named = _named(missing)
        return MetricResult(
            name="unstubbed_tool_calls",
            value=answered / total if total else 0.0,
            passed=False,
            label="unstubbed",
            reason=f"{len(missing)} tool calls matched no stub: {named}; add them to tool_stubs",
            details={"kind": "check", "answered": answered, "unstubbed": missing},
        )
    return None
