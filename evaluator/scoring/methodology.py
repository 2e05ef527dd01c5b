"""How every score is computed, in words, in one place: the report's methodology section.

`METHODOLOGY[metric]` is a short text (what is measured, from what, the scale,
what passes) for each built-in metric, derived score and status; custom
metrics describe themselves. Keep a text here in step with the code it
describes (the tests check every built-in metric has one).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["METHODOLOGY", "SEVERITY_LEVELS", "methodology_for", "score_bands"]

SEVERITY_LEVELS: tuple[str, ...] = ("critical", "high", "medium", "low")
"""Severity of failure labels, most severe first (`details["severity"]`)."""

_SCALE = (
    "LLM judge, per turn: the judge model reads the scenario and the conversation up to the "
    "turn (with each turn's tool calls and results), writes its reasoning, then a score 1-5. "
    "Stored as (score - 1) / 4 in [0, 1]; the turn passes at `turn_success_threshold` "
    "(default 0.5 = 3/5). "
)
_LABEL = (
    "LLM judge, per turn: the judge writes its reasoning, then picks one label of a fixed "
    "set. `no failure` = 1.0 and passes; any failure label = 0.0 and fails the turn. Each "
    "failure label has a severity (details.severity): critical = unsafe action, unsafe state, "
    "false information; high = disobey user request; medium = lack of specific information, "
    "failure to ask for clarification; low = repetition. "
)

METHODOLOGY: Mapping[str, str] = {
    "goal_completion": (
        "LLM judge, per conversation: reads the user's goal (never shown to the agent) and the "
        "whole conversation, labels it complete / partial / not_complete and gives the share "
        "of the goal achieved, 0.0-1.0 (the value)."
    ),
    "helpfulness": _SCALE + "Measures how far the reply moves the user toward their request.",
    "coherence": _SCALE + "Measures logical consistency with itself and earlier turns.",
    "relevance": _SCALE + "Measures whether the reply addresses the latest user message.",
    "faithfulness": _SCALE
    + "Measures whether every claim is supported by the scenario knowledge, tool results "
    "or the conversation.",
    "verbosity": _SCALE + "Measures whether the length fits the request (5 = just right).",
    "agent_behavior_failure": _LABEL
    + "Classifies the reply: false information, disobey user request, repetition, lack of "
    "specific information, failure to ask for clarification, or no failure.",
    "tool_call_behavior_failure": _LABEL
    + "Classifies the turn's tool calls and their use (safety first, then root cause); adds "
    "unsafe action and unsafe state. A turn without tool calls is `no failure` without a "
    "request.",
    "tool_use": (
        "LLM judge, per turn: labels the turn's tool calls appropriate, no_tools_needed "
        "(both 1.0, pass), missing_call, unnecessary_call, wrong_tool, wrong_arguments or "
        "result_misused (0.0, fail)."
    ),
    "trajectory_accuracy": (
        "LLM judge, per conversation (opt-in): compares the whole sequence of tool calls with "
        "the scenario's reference trajectory (`reference_trajectory`, else its `tool_calls` "
        "assertions), or with the user's goal when there is none; sees the tool definitions. "
        "accurate and acceptable_deviation = 1.0 (pass), inaccurate = 0.0 (fail)."
    ),
    "tool_call_efficiency": (
        "LLM judge, per turn (opt-in): efficient = 1.0 (pass); redundant (the same information "
        "fetched again) or needless (calls the request did not need) = 0.0 (fail)."
    ),
    "tool_selection": (
        "LLM judge, per turn (opt-in), sees the available tools: correct or no_tool_needed = "
        "1.0 (pass); wrong_tool or missing_tool = 0.0 (fail)."
    ),
    "tool_invocation": (
        "LLM judge, per turn (opt-in), sees each tool's parameter schema: correct or no_call = "
        "1.0 (pass); missing_argument, wrong_argument, invented_argument or schema_violation = "
        "0.0 (fail)."
    ),
    "tool_result_handling": (
        "LLM judge, per turn (opt-in): whether the reply uses the tool results faithfully. "
        "correct or no_result = 1.0 (pass); misreported, ignored or error_unhandled = 0.0 "
        "(fail)."
    ),
    "tool_call_f1": (
        "Deterministic: expected and actual calls paired optimally (name and arguments under "
        "arg_mode); precision = pairs / actual, recall = pairs / expected, value = F1; passes "
        "at 1.0."
    ),
    "tool_call_stats": (
        "Informational, never pass or fail: the number of tool calls, with calls per tool, "
        "failed calls, distinct tools and repeated identical calls in the details."
    ),
    "trajectory": (
        "Deterministic, from a scenario `tool_calls` assertion: compares the agent's merged "
        "tool calls (explicit and traced, deduplicated) with the expected calls by name and "
        "arguments (`arg_match_mode`: ignore, exact, subset = arksim's partial). Orders: "
        "strict, unordered, contains, within, in_order; matching is optimal, never greedy. "
        "Value = matched share; any forbidden tool called = 0.0 and fails."
    ),
    "tool_call_args": (
        "Deterministic: pairs expected with actual calls of the same name so the most pairs "
        "match; value = matched / expected (strict: 1.0 only if all match). `subset`: expected "
        "arguments a deep subset of the actual ones."
    ),
    "tool_call_order": (
        "Deterministic: longest common subsequence of actual and expected tool names / "
        "number expected (strict: exact sequence)."
    ),
    "tool_call_count": "Deterministic: each tool's call count against its comparator (==, >=, ...).",
    "tool_call_output": "Deterministic: each expected call's result against the actual result.",
    "tool_error_rate": "Deterministic: calls with an error / all calls (lower is better).",
    "tool_latency": "Deterministic: duration of the tool spans in ms, against `max_ms`.",
    "turn_success": (
        "Per turn: 1.0 when every deciding result of the turn passed (judges by threshold or "
        "label, assertions, custom metrics with a pass/fail), 0.0 when one failed; not graded "
        "when nothing decided, and when the turn errored or timed out (no answer to grade: "
        "its conversation is an Error instead)."
    ),
    "turn_success_ratio": (
        "Per conversation: successful turns / graded turns. A conversation of zero turns has "
        "no graded turn: not graded (arksim counts it 1.0; tracesim never scores what did not "
        "happen), so its final score comes from goal completion or its checks, else none."
    ),
    "final_score": (
        "Per conversation (arksim's formula): 0.75 x turn success ratio + 0.25 x goal "
        "completion (weights from `goal_completion_weight`), clamped to [0, 1]; the other term "
        "alone when one is not graded. Conversation-level checks (assertions without a turn, "
        "custom metrics with a pass/fail) cap it at the share of them that passed, so a "
        "failed one fails the conversation. None for a conversation ended by an error or "
        "interrupted."
    ),
    "status": (
        "Per conversation, from the final score: Done at 1.0, Partial Failure at >= 0.6 "
        "(`partial_failure_threshold`), Failed below; Not graded (arksim: Evaluation Failed) "
        "when no final score could be computed; Error when a turn errored or timed out or the "
        "simulated user failed (the source is named), Interrupted when the run was stopped."
    ),
}
"""What each built-in metric, derived score and status means and how it is computed."""


def methodology_for(metric: str) -> str | None:
    """The methodology text of `metric`, None for a custom metric."""
    return METHODOLOGY.get(metric)


def score_bands(partial_failure_threshold: float = 0.6) -> list[tuple[str, str, str]]:
    """(band, range, meaning) of the final score and of the judges' 1-5 scale, for the
    report's methodology (arksim shows its bands there too)."""
    p = f"{partial_failure_threshold:g}"
    return [
        ("Done", "final score = 1.0", "every graded turn succeeded, goal complete"),
        ("Partial Failure", f"{p} <= final score < 1.0", "mostly right, some turn or goal missed"),
        ("Failed", f"0.0 <= final score < {p}", "most turns or the goal failed"),
        ("Not graded", "no final score", "nothing could be graded; never counted as 0"),
        ("judge 5", "value 1.0", "fully meets the criterion"),
        ("judge 4", "value 0.75", "passes"),
        ("judge 3", "value 0.5", "passes at the default turn_success_threshold 0.5"),
        ("judge 2", "value 0.25", "fails the turn"),
        ("judge 1", "value 0.0", "fails the turn"),
    ]
