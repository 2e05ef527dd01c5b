"""Render a `MetricContext` as the judge's chat messages.

Deterministic (the cache key depends on it): same rows, same text. Long
transcripts are cut from the oldest turn so the text stays under
`max_chars`; the graded turn is always kept whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.judges.base import Judge
from tracesim.evaluator.judges.context_blocks import reference_block, scenario_rubric, tools_block
from tracesim.schemas import ToolCall

__all__ = ["judge_messages"]

_MAX_FIELD = 2_000


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _clip(text: str, limit: int = _MAX_FIELD) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} chars cut]"


def _scenario_block(scenario: Mapping[str, Any]) -> str:
    lines = ["## The simulated user (oracle, unseen by the agent)"]
    for key, title in (
        ("goal", "Goal"),
        ("user_profile", "User profile"),
        ("agent_context", "Agent context"),
    ):
        if scenario.get(key):
            lines.append(f"{title}: {_clip(_text(scenario[key]))}")
        elif key == "goal":  # a collected conversation: no scenario states it (SPEC §14)
            lines.append("Goal: not given; infer what the user wanted from their messages")
    knowledge = scenario.get("knowledge") or []
    if isinstance(knowledge, str):
        knowledge = [knowledge]
    if knowledge:
        lines.append("Knowledge (ground truth):")
        lines.extend(f"- {_clip(_text(item))}" for item in knowledge)
    return "\n".join(lines)


def _tool_lines(calls: Sequence[ToolCall]) -> list[str]:
    if not calls:
        return ["(no tool calls)"]
    out = []
    for call in calls:
        line = f"- {call.name}({_clip(_text(call.arguments), 500)})"
        if call.error:
            line += f" -> ERROR: {_clip(call.error, 500)}"
        elif call.result is not None:
            line += f" -> {_clip(call.result, 800)}"
        out.append(line)
    return out


def _turn_block(row: Mapping[str, Any], calls: Sequence[ToolCall], *, tools: bool) -> str:
    tid = row.get("turn_id")
    lines = [f"[turn {tid}] User: {_clip(row.get('user_message') or '')}"]
    if row.get("status") not in (None, "ok"):
        lines.append(f"[turn {tid}] Agent {row.get('status')}: {_clip(row.get('error') or '')}")
    else:
        lines.append(f"[turn {tid}] Agent: {_clip(row.get('agent_message') or '')}")
    if tools:
        lines.append(f"[turn {tid}] Tool calls:")
        lines.extend(_tool_lines(calls))
    return "\n".join(lines)


def judge_messages(judge: Judge, ctx: MetricContext, *, max_chars: int) -> list[dict[str, str]]:
    """System rubric + one user message holding the scenario and the transcript."""
    head = _scenario_block(ctx.scenario)
    if "tool_definitions" in judge.sees:
        head += "\n\n" + tools_block(ctx)
    if "reference_trajectory" in judge.sees:
        head += "\n\n" + reference_block(ctx)
    rubric = scenario_rubric(ctx, judge.name)
    if rubric:
        head += "\n\n## Additional rubric for this scenario\n" + _clip(rubric)
    blocks: list[str] = []
    graded_id = ctx.turn_id
    for row, calls in zip(ctx.turns, ctx.turn_tool_calls, strict=False):
        tid = int(row["turn_id"])
        if graded_id is not None and tid > graded_id:
            break
        blocks.append(_turn_block(row, calls, tools=True))
    if graded_id is not None and blocks:
        last = blocks.pop()
        tail = "## Turn to grade (the LAST turn)\n" + last
    else:
        tail = "## End of conversation"
    budget = max_chars - len(head) - len(tail)
    kept: list[str] = []
    for block in reversed(blocks):
        if budget - len(block) < 0:
            kept.append(f"[{len(blocks) - len(kept)} earlier turn(s) cut]")
            break
        kept.append(block)
        budget -= len(block)
    history = "\n\n".join(reversed(kept)) or "(no earlier turns)"
    title = "## Conversation" if graded_id is None else "## Conversation so far"
    user = f"{head}\n\n{title}\n{history}\n\n{tail}"
    return [{"role": "system", "content": judge.rubric}, {"role": "user", "content": user}]
