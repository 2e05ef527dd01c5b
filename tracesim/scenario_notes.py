"""Warnings about scenario files that run, but not as their author likely meant.

arksim's `tool_calls` assertion compares tool names only unless `arg_match_mode`
says otherwise (its default is `ignore`), so `expected: [{"name": ..., "args": {...}}]`
without a mode passes whatever arguments the agent sent. tracesim keeps arksim's
verdicts, and says so once per file, naming the first such assertion and the fix.

A scenario keeps keys it does not know (arksim's extra fields must not be lost), so a
misspelt one (`knowlege`, `knowledge_items`, `turn`) would silently drop the field the
author meant: `misspelt_keys_note` names each key that reads like a known one.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ignored_args_note", "misspelt_keys_note"]

ARKSIM_SCENARIO_KEYS = frozenset(
    {"user_id", "origin", "expected_behavior", "expected_outcomes", "schema_version", "id"}
)
"""Keys arksim's scenarios carry that tracesim keeps without using: never a misspelling."""

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


def misspelt_keys_note(scenarios: Sequence[Any], path: Any) -> str | None:
    """One line naming the scenario keys that are unknown but read like a known one."""
    from tracesim.schemas.scenario import Scenario

    known = sorted(Scenario.model_fields)
    found: list[str] = []
    for scenario in scenarios:
        for key in sorted(getattr(scenario, "model_extra", None) or {}):
            if key in ARKSIM_SCENARIO_KEYS:
                continue
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
            if close:
                found.append(f"{key!r} in {scenario.scenario_id!r} (did you mean {close[0]!r}?)")
    if not found:
        return None
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return (
        f"{path}: unknown scenario key(s) kept unused: {'; '.join(found[:3])}{more}; "
        "rename them, or the field they meant is empty"
    )
