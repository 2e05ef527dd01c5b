"""Warnings about scenario files that run, but not as their author likely meant.

arksim's `tool_calls` assertion compares tool names only unless `arg_match_mode`
says otherwise (its default is `ignore`), so `expected: [{"name": ..., "args": {...}}]`
without a mode passes whatever arguments the agent sent. tracesim keeps arksim's
verdicts, and says so once per file, naming the first such assertion and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ignored_args_note"]

_MODE_KEYS = ("arg_match_mode", "arg_mode")


def _ignores_given_args(assertion: Any) -> bool:
    if not isinstance(assertion, Mapping) or assertion.get("type") != "tool_calls":
        return False
    if any(assertion.get(key) is not None for key in _MODE_KEYS):
        return False  # a mode chosen, `ignore` included: as the author meant
    expected = assertion.get("expected")
    return isinstance(expected, list) and any(
        isinstance(call, Mapping)
        and call.get("args")
        and not any(call.get(key) for key in _MODE_KEYS)
        for call in expected
    )


def ignored_args_note(scenarios: Sequence[Any], path: Any) -> str | None:
    """One line when `tool_calls` assertions give `args` that no arg mode compares."""
    found = [
        (scenario.scenario_id, index)
        for scenario in scenarios
        for index, assertion in enumerate(getattr(scenario, "assertions", None) or ())
        if _ignores_given_args(assertion)
    ]
    if not found:
        return None
    scenario_id, index = found[0]
    return (
        f"{path}: {len(found)} tool_calls assertion(s) give expected `args` but no "
        f"arg_match_mode (first: scenario {scenario_id!r}, assertion #{index}), so arksim's "
        'default `ignore` compares tool names only: add "arg_match_mode": "exact" (or '
        '"subset") to compare the arguments, or "ignore" to keep names only and silence this'
    )
