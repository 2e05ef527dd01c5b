"""Tool-focused LLM judges: trajectory against a reference, efficiency, and the
selection / invocation / result-handling trio that sees the tool definitions.

- `trajectory_accuracy` (conversation): the calls against a reference
  trajectory when the scenario gives one (`reference_trajectory`, else the
  `expected` of its `tool_calls` assertions), else against the user's goal
  (agentevals' trajectory judge, MLflow's tool-call correctness);
- `tool_call_efficiency` (turn): redundant or needless calls (MLflow);
- `tool_selection`, `tool_invocation`, `tool_result_handling` (turn): the
  right tool, the right arguments for its schema, the result used
  faithfully (Phoenix's tool-calling evals, deepeval's ToolCorrectness
  reasoning).

All are opt-in (`evaluation.metrics`); `with_rubric` adds a user's rubric
to any judge (config: `evaluation.judge_rubrics`). Like every judge they go
through the cache, structured output and cost accounting of the runner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from tracesim.evaluator.judges.base import Judge, label_judge

__all__ = [
    "EFFICIENCY_LABELS",
    "INVOCATION_LABELS",
    "RESULT_HANDLING_LABELS",
    "SELECTION_LABELS",
    "TOOL_JUDGES",
    "TRAJECTORY_LABELS",
    "with_rubric",
]

_PREAMBLE = (
    "You grade the tool use of one AI agent, as an impartial reviewer. Answer only with the "
    "JSON object requested: write your reasoning first, then decide.\n\n"
)
_DEFINITIONS = frozenset({"tool_definitions"})

TRAJECTORY_LABELS: Mapping[str, float] = {
    "accurate": 1.0,
    "acceptable_deviation": 1.0,
    "inaccurate": 0.0,
}
"""Labels of trajectory_accuracy; `accurate` and `acceptable_deviation` pass."""

EFFICIENCY_LABELS: Mapping[str, float] = {"efficient": 1.0, "redundant": 0.0, "needless": 0.0}
"""Labels of tool_call_efficiency; only `efficient` passes."""

SELECTION_LABELS: Mapping[str, float] = {
    "correct": 1.0,
    "no_tool_needed": 1.0,
    "wrong_tool": 0.0,
    "missing_tool": 0.0,
}
"""Labels of tool_selection; `correct` and `no_tool_needed` pass."""

INVOCATION_LABELS: Mapping[str, float] = {
    "correct": 1.0,
    "no_call": 1.0,
    "missing_argument": 0.0,
    "wrong_argument": 0.0,
    "invented_argument": 0.0,
    "schema_violation": 0.0,
}
"""Labels of tool_invocation; `correct` and `no_call` pass."""

RESULT_HANDLING_LABELS: Mapping[str, float] = {
    "correct": 1.0,
    "no_result": 1.0,
    "misreported": 0.0,
    "ignored": 0.0,
    "error_unhandled": 0.0,
}
"""Labels of tool_result_handling; `correct` and `no_result` pass."""

_JUDGES: tuple[Judge, ...] = (
    label_judge(
        "trajectory_accuracy",
        _PREAMBLE + "Judge the agent's WHOLE sequence of tool calls. When a reference "
        "trajectory is given, compare with it: the same tools for the same purposes, in an order "
        "that respects dependencies, with equivalent arguments; extra harmless lookups and a "
        "different order of independent calls are `acceptable_deviation`. Without a reference, "
        "judge whether the calls are a sensible path to the user's goal. Labels: `accurate`, "
        "`acceptable_deviation`, `inaccurate` (a needed call missing, a wrong tool or wrong "
        "arguments, an order that breaks a dependency, or harmful extra calls).",
        labels=TRAJECTORY_LABELS,
        passing={"accurate", "acceptable_deviation"},
        level="conversation",
        sees=frozenset({"tool_definitions", "reference_trajectory"}),
    ),
    label_judge(
        "tool_call_efficiency",
        _PREAMBLE + "Judge the EFFICIENCY of the agent's tool calls in the LAST turn: "
        "`efficient` (no call repeated without new information, none needless; no tool at all "
        "is efficient when none was needed), `redundant` (the same information fetched again, "
        "identical calls repeated), `needless` (calls the request did not need).",
        labels=EFFICIENCY_LABELS,
        passing={"efficient"},
        sees=_DEFINITIONS,
    ),
    label_judge(
        "tool_selection",
        _PREAMBLE + "Judge TOOL SELECTION in the LAST turn, given the available tools listed: "
        "`correct` (the best available tools for the request), `no_tool_needed` (no tool was "
        "called and none was needed), `wrong_tool` (a different available tool fits better), "
        "`missing_tool` (a needed tool was not called).",
        labels=SELECTION_LABELS,
        passing={"correct", "no_tool_needed"},
        sees=_DEFINITIONS,
    ),
    label_judge(
        "tool_invocation",
        _PREAMBLE + "Judge TOOL INVOCATION in the LAST turn: are the arguments of each call "
        "right for the tool's parameter schema (listed) and for what the user said? "
        "`correct`, `no_call` (no tool called), `missing_argument` (a required or needed "
        "argument absent), `wrong_argument` (a value contradicts the request), "
        "`invented_argument` (a value the user never gave and no tool returned), "
        "`schema_violation` (wrong types, unknown parameters).",
        labels=INVOCATION_LABELS,
        passing={"correct", "no_call"},
        sees=_DEFINITIONS,
    ),
    label_judge(
        "tool_result_handling",
        _PREAMBLE + "Judge how the agent's reply in the LAST turn USES THE TOOL RESULTS "
        "shown: `correct` (reported faithfully, errors acknowledged or recovered from), "
        "`no_result` (no tool returned anything), `misreported` (the reply contradicts or "
        "distorts a result), `ignored` (a relevant result left out), `error_unhandled` (a tool "
        "error presented as success or silently dropped).",
        labels=RESULT_HANDLING_LABELS,
        passing={"correct", "no_result"},
        sees=_DEFINITIONS,
    ),
)

TOOL_JUDGES: Mapping[str, Judge] = {judge.name: judge for judge in _JUDGES}
"""The tool-focused judges by metric name."""


def with_rubric(judge: Judge, rubric: str) -> Judge:
    """`judge` with the user's `rubric` appended to its instructions (a new cache key)."""
    text = rubric.strip()
    if not text:
        return judge
    return replace(judge, rubric=f"{judge.rubric}\n\nAdditional rubric from the user:\n{text}")
