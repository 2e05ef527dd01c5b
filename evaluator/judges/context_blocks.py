"""Extra prompt blocks some judges see: the tools on offer and a reference trajectory.

Tool definitions come from the scenario (`tools` or `tool_definitions`:
OpenAI function objects or ``{"name", "description", "parameters"}``), else
from the graded spans (`gen_ai.tool.definitions`, OpenInference
`llm.tools.<i>.tool.json_schema`). The reference trajectory comes from the
scenario's `reference_trajectory`, else the `expected` calls of its
`tool_calls` assertions. A scenario's `judge_rubrics` (judge name -> text)
adds a rubric for that scenario only. Rendering is deterministic (the cache
key).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.extract.span import json_or_none
from tracesim.schemas.conventions import GENAI, OPENINFERENCE

__all__ = [
    "reference_block",
    "reference_trajectory",
    "scenario_rubric",
    "tool_definitions",
    "tools_block",
]

_MAX_BLOCK = 6_000


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str).decode()


def _definition(raw: Any) -> dict[str, Any] | None:
    raw = json_or_none(raw)
    if not isinstance(raw, Mapping):
        return None
    inner = raw.get("function") if isinstance(raw.get("function"), Mapping) else raw
    name = inner.get("name")
    if not isinstance(name, str) or not name:
        return None
    out: dict[str, Any] = {"name": name}
    if inner.get("description"):
        out["description"] = str(inner["description"])
    params = inner.get("parameters", inner.get("input_schema"))
    if params:
        out["parameters"] = params
    return out


def tool_definitions(ctx: MetricContext) -> list[dict[str, Any]]:
    """The tools offered to the agent, by name, first definition wins."""
    found: dict[str, dict[str, Any]] = {}

    def add(raw: Any) -> None:
        item = _definition(raw)
        if item is not None:
            found.setdefault(item["name"], item)

    for key in ("tools", "tool_definitions"):
        items = ctx.scenario.get(key)
        if isinstance(items, Sequence) and not isinstance(items, str):
            for raw in items:
                add(raw)
    if found:
        return [found[name] for name in sorted(found)]
    for span in ctx.spans:
        attributes = json_or_none(span.get("attributes")) or {}
        if not isinstance(attributes, Mapping):
            continue
        listed = json_or_none(attributes.get(GENAI.TOOL_DEFINITIONS))
        if isinstance(listed, list):
            for raw in listed:
                add(raw)
        for key, value in attributes.items():
            if key.startswith(OPENINFERENCE.LLM_TOOLS_PREFIX) and key.endswith("json_schema"):
                add(value)
    return [found[name] for name in sorted(found)]


def reference_trajectory(ctx: MetricContext) -> list[Any] | None:
    """The scenario's reference trajectory, or its tool_calls assertions' expected calls."""
    ref = ctx.scenario.get("reference_trajectory")
    if isinstance(ref, list):
        return ref
    for item in ctx.scenario.get("assertions") or ():
        if isinstance(item, Mapping) and item.get("type") == "tool_calls":
            expected = item.get("expected")
            if isinstance(expected, list):
                return expected
    return None


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_BLOCK else text[:_MAX_BLOCK] + " ... [cut]"


def tools_block(ctx: MetricContext) -> str:
    """`## Available tools` with one JSON line per tool, or a note that none are known."""
    tools = tool_definitions(ctx)
    if not tools:
        return "## Available tools\n(not known: judge by the calls and the request)"
    return "## Available tools\n" + _clip("\n".join(f"- {_json(t)}" for t in tools))


def reference_block(ctx: MetricContext) -> str:
    """`## Reference trajectory` (one call per line), or a note that there is none."""
    ref = reference_trajectory(ctx)
    if ref is None:
        return "## Reference trajectory\n(none given: judge against the user's goal)"
    if not ref:
        return "## Reference trajectory\n(no tool call expected)"
    return "## Reference trajectory\n" + _clip("\n".join(f"- {_json(c)}" for c in ref))


def scenario_rubric(ctx: MetricContext, judge: str) -> str:
    """The scenario's own rubric for `judge` (`judge_rubrics: {name: text}`), or ""."""
    rubrics = ctx.scenario.get("judge_rubrics")
    if not isinstance(rubrics, Mapping):
        return ""
    text = rubrics.get(judge)
    return text.strip() if isinstance(text, str) else ""
