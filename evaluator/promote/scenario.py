"""One collected conversation as a scenario: scripted user turns, goal and knowledge,
the recorded trajectory as an assertion and the recorded results as tool stubs (SPEC §14).

Pure: a conversation's turns (with their user messages), its merged tool calls
per turn and the tool definitions its spans offered, in; a scenario mapping
(our `scenarios.json` format) out, or a reason it cannot be one:
- `turns`: each turn's user message, in order (a turn without one cannot be
  replayed, so the conversation is skipped and the reason said);
- `goal` / `knowledge`: the `Summary` given (an LLM's), else the first user message;
- `assertions`: one `tool_calls` assertion holding every recorded call in
  order (`order: in_order`, `arg_mode: subset`): the replay must make at least
  these calls, in this order, with at least these arguments. Not for a
  conversation whose latest evaluation failed a check OF ITS CALLS (trajectory,
  tool_call_*, policy, tool_validity: `select.queries.CALL_CHECKS`): its recorded
  calls are the behaviour that failed, and asserting them would pass the replay
  on the same failure (and fail a fixed agent). It carries the assertions of the
  scenario it played instead (they say what should happen), or none (the
  evaluation's policies and judges grade the replay; its expectation is for the
  user to write), the recorded calls kept in `origin.recorded_trajectory`. A
  conversation that failed elsewhere (a judge, a tool's own error) keeps its
  recorded trajectory: the calls were not what failed;
- `tool_stubs`: each recorded call's result (or error) for its exact arguments,
  `repeat: 1`, in call order, so a repeated call gets its recorded answers in
  turn; calls whose result was never recorded get no stub (counted);
- `tools`: the tool definitions the spans offered the model (MCP shape);
- `origin`: where it came from (chat id, store).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracesim.schemas import ToolCall
from tracesim.schemas.tool_definitions import ToolDefinition

__all__ = ["Promotion", "Summary", "conversation_scenario", "scenario_id_for"]


@dataclass(frozen=True)
class Summary:
    """The simulated user's oracle for the replay."""

    goal: str
    knowledge: list[str] = field(default_factory=list)
    source: str = "first user message"
    """`llm` or `first user message` (kept in `origin`)."""


@dataclass(frozen=True)
class Promotion:
    """The scenario, or why the conversation could not become one."""

    chat_id: str
    scenario: dict[str, Any] | None = None
    skipped: str | None = None
    calls_without_result: int = 0
    failed: str | None = None
    """For a conversation whose latest evaluation failed a check of its calls: `scenario
    assertions` (the played scenario's own were carried) or `no assertion` (none to carry)."""


def scenario_id_for(chat_id: str) -> str:
    """A readable, file-safe scenario id for a conversation."""
    return "prod-" + (re.sub(r"[^A-Za-z0-9._-]+", "-", chat_id).strip("-") or "chat")[:80]


def _stub(call: ToolCall) -> dict[str, Any] | None:
    if call.error is not None:
        return {"name": call.name, "args": dict(call.arguments), "error": call.error, "repeat": 1}
    if call.result is None:
        return None
    return {"name": call.name, "args": dict(call.arguments), "result": call.result, "repeat": 1}


def fallback_summary(user_messages: Sequence[str]) -> Summary:
    """Goal and knowledge when no LLM summarises: the first user message."""
    first = user_messages[0]
    return Summary(goal=first, knowledge=[first])


def conversation_scenario(
    chat_id: str,
    turns: Sequence[Mapping[str, Any]],
    calls: Sequence[Sequence[ToolCall]],
    *,
    definitions: Sequence[ToolDefinition] = (),
    summary: Summary | None = None,
    store: str | None = None,
    failed: bool = False,
    played: Mapping[str, Any] | None = None,
) -> Promotion:
    """The scenario replaying `chat_id` (see the module doc); `failed`: its latest
    evaluation failed a check of its calls; `played`: the scenario a tracesim run played
    in it, if any."""
    messages = [t.get("user_message") for t in turns]
    if not messages:
        return Promotion(chat_id, skipped="no turns")
    missing = [str(t.get("turn_id")) for t, m in zip(turns, messages, strict=True) if not m]
    if missing:
        return Promotion(
            chat_id,
            skipped=f"no user message in the spans of turn(s) {', '.join(missing)} "
            "(the spans carry no input messages: enable message content capture)",
        )
    summary = summary or fallback_summary(messages)  # type: ignore[arg-type]
    recorded = [call for turn in calls for call in turn]
    stubs = [s for s in (_stub(c) for c in recorded) if s is not None]
    trajectory = [{"name": c.name, "args": dict(c.arguments)} for c in recorded]
    assertions: list[Any] = [
        {
            "type": "tool_calls",
            "description": f"recorded trajectory of {chat_id}",
            "expected": trajectory,
            "order": "in_order",
            "arg_mode": "subset",
        }
    ]
    origin: dict[str, Any] = {"chat_id": chat_id, "store": store, "summary": summary.source}
    outcome = None
    if failed:  # the recorded behaviour failed: never assert it
        assertions = list((played or {}).get("assertions") or [])
        outcome = "scenario assertions" if assertions else "no assertion"
        origin["failed"] = True
        origin["recorded_trajectory"] = trajectory
    scenario: dict[str, Any] = {
        "scenario_id": scenario_id_for(chat_id),
        "name": f"Replay of production conversation {chat_id}",
        "goal": summary.goal,
        "knowledge": list(summary.knowledge),
        "turns": list(messages),
        "assertions": assertions,
        "tool_stubs": stubs,
        "origin": origin,
    }
    if definitions:
        scenario["tools"] = [
            {"name": d.name, "description": d.description, "inputSchema": d.input_schema}
            for d in definitions
        ]
    return Promotion(
        chat_id, scenario, calls_without_result=len(recorded) - len(stubs), failed=outcome
    )
