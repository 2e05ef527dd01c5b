"""Replays answered by tool stubs: a call no stub matched is a failed check of its turn.

The runner records on each `tracesim.turn` span of a scenario with `tool_stubs`
how many calls the stubs answered (`tracesim.tool_stubs.answered`) and which
they could not (`tracesim.tool_stubs.unstubbed`, JSON). Such a replay touched
no back end for those calls and went its own way from there, so the turn gets
an `unstubbed_tool_calls` check naming them (value: the share answered), never
a silent pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from tracesim.schemas import TRACESIM, MetricResult

__all__ = ["stub_check"]


def _attributes(span: Mapping[str, Any]) -> Mapping[str, Any]:
    value = span.get("attributes")
    if isinstance(value, (str, bytes)):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
    return value if isinstance(value, Mapping) else {}


def stub_check(spans: Iterable[Mapping[str, Any]]) -> MetricResult | None:
    """The turn's `unstubbed_tool_calls` check, or None when the turn ran without stubs."""
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
        if not missing:
            return MetricResult(
                name="unstubbed_tool_calls",
                value=1.0,
                passed=True,
                reason=f"{answered} tool calls answered by the scenario's stubs",
                details={"kind": "check", "answered": answered, "unstubbed": []},
            )
        named = ", ".join(
            f"{m.get('name')}({orjson.dumps(m.get('arguments') or {}).decode()})"
            for m in missing[:5]
        )
        return MetricResult(
            name="unstubbed_tool_calls",
            value=answered / total if total else 0.0,
            passed=False,
            label="unstubbed",
            reason=f"{len(missing)} tool calls matched no stub: {named}; add them to tool_stubs",
            details={"kind": "check", "answered": answered, "unstubbed": missing},
        )
    return None
