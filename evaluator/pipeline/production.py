"""Production (traced-only) conversations in the judging stage (SPEC §14).

A collected conversation is judged when its spans carry the turns' messages;
it has no scenario, so the judges infer the user's goal from the conversation,
and each such result says so in its reason (never silently graded against a
goal nobody gave).
"""

from __future__ import annotations

from typing import Any

from tracesim.schemas import MetricResult

__all__ = ["INFERRED_GOAL", "has_messages", "note_inferred_goal"]

INFERRED_GOAL = "goal inferred from the conversation (no scenario gives one)"


def has_messages(data: Any) -> bool:
    """True when some turn of the conversation has a user message and an agent reply."""
    return any(t.get("user_message") and t.get("agent_message") for t in data.turns)


def note_inferred_goal(result: MetricResult) -> MetricResult:
    """Mark a judge result graded without a scenario goal (in place)."""
    if result.graded and not result.details.get("goal_inferred"):
        result.details["goal_inferred"] = True
        result.reason = f"{INFERRED_GOAL}: {result.reason}" if result.reason else INFERRED_GOAL
    return result
