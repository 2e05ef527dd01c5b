"""Why a check failed, in words, from its score's `details`: the expected vs actual calls.

One text for every output: the terminal's and the step summary's failing
conversations, the JUnit messages and the HTML report's failure lists, so a
reader sees the call that was missing or unexpected, not only the match count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["describe_details", "explain", "why_line"]


def _calls(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "(none)"
    return str(value)


def describe_details(details: Mapping[str, Any]) -> list[str]:
    """A failed check's expected vs actual calls, one line each, from its `details`."""
    lines: list[str] = []
    for item in details.get("calls") or []:
        if isinstance(item, dict) and item.get("matched") is not True:
            expected = item.get("expected", item.get("name"))
            actual = item.get("actual")
            line = f"expected {expected}, actual {_calls(actual) if actual else '(none)'}"
            if item.get("explanation"):
                line += f": {item['explanation']}"
            lines.append(line)
    if not lines:
        for key, label in (("missing", "expected, not found"), ("extra", "actual, not expected")):
            if details.get(key):
                lines.append(f"{label}: {_calls(details[key])}")
    if details.get("forbidden"):
        lines.append(f"forbidden tools called: {_calls(details['forbidden'])}")
    if "expected_order" in details:
        lines.append(f"expected order: {_calls(details['expected_order'])}")
        lines.append(f"actual order: {_calls(details.get('actual_order'))}")
    tools = details.get("tools")
    if isinstance(tools, dict):
        for tool, item in tools.items():
            if isinstance(item, dict) and item.get("passed") is False:
                lines.append(
                    f"{tool}: expected {item.get('expected')} call(s), actual {item.get('actual')}"
                )
    if details.get("severity"):
        lines.append(f"severity: {details['severity']}")
    return lines


def why_line(details: Mapping[str, Any]) -> str | None:
    """The calls part of `describe_details` on one line (`; `-joined, severity left out),
    or None when the details name no call."""
    lines = [line for line in describe_details(details) if not line.startswith("severity: ")]
    return "; ".join(lines) or None


def explain(reason: str | None, details: Any) -> str | None:
    """`reason` led by the calls that made the check fail (`details` a dict or its JSON
    text): `expected, not found: refund({...}); actual, not expected: lookup({...}) —
    contains: 0 matched of 1 ...`; the reason alone when the details name no call."""
    if isinstance(details, (str, bytes)):
        try:
            details = orjson.loads(details)
        except orjson.JSONDecodeError:
            details = None
    why = why_line(details) if isinstance(details, Mapping) else None
    if why is None:
        return reason
    return f"{why} — {reason}" if reason and why not in reason else why
