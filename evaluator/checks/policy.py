"""Policy rules over a conversation's call sequence (deterministic, no LLM).

An assertion `{"type": "policy", ...}` (or an entry of `evaluation.policies`)
holds one or more rules:
- `never: [tool, ...]`: the tools are never called;
- `at_most: {tool: n}` / `exactly: {tool: n}`: call counts;
- `before: [a, b]`: every call of `b` is preceded by a call of `a`;
- `only_after: {tool: a, when: W}`: every call of `a` comes after W held. W is a
  regex over the user's messages so far (that turn's included) or the name of a
  tool called earlier: a bare string is satisfied by either; `{"text": regex}` or
  `{"tool": name}` says which.

The calls are the turn's (`turn` set) or every turn's in turn order. A failed
rule names the call (position, tool, turn) and the rule in the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracesim.schemas import MetricResult, ToolCall

__all__ = [
    "POLICY_KEYS",
    "Policy",
    "PolicyError",
    "check_policy",
    "describe_policy",
    "parse_policy",
]

POLICY_KEYS = ("never", "at_most", "exactly", "before", "only_after")


class PolicyError(ValueError):
    """A policy rule is malformed; `field` names the key, the message the fix."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        super().__init__(problem)


@dataclass(frozen=True)
class Policy:
    """One validated policy assertion (any subset of the rules)."""

    never: tuple[str, ...] = ()
    at_most: tuple[tuple[str, int], ...] = ()
    exactly: tuple[tuple[str, int], ...] = ()
    before: tuple[str, str] | None = None
    only_after: tuple[str, re.Pattern[str] | None, str | None] | None = None
    """(tool, text regex or None, prior tool or None)."""


def _counts(value: Any, key: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping) or not value:
        raise PolicyError(key, "must be an object of tool name -> count, e.g. {refund: 1}")
    out = []
    for tool, count in value.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise PolicyError(key, f"count of {tool!r} must be a whole number >= 0, got {count!r}")
        out.append((str(tool), count))
    return tuple(out)


def _when(value: Any) -> tuple[re.Pattern[str] | None, str | None]:
    if isinstance(value, Mapping):
        unknown = set(value) - {"text", "tool"}
        if unknown or not value:
            raise PolicyError("only_after.when", "must be a string, {text: regex} or {tool: name}")
        text, tool = value.get("text"), value.get("tool")
    elif isinstance(value, str) and value:
        text, tool = value, value
    else:
        raise PolicyError("only_after.when", "must be a turn-text regex or a prior tool's name")
    pattern = None
    if text is not None:
        try:
            pattern = re.compile(str(text), re.IGNORECASE)
        except re.error as exc:
            if tool is None or isinstance(value, Mapping):
                raise PolicyError("only_after.when", f"bad regex {text!r}: {exc}") from None
    return pattern, (str(tool) if tool is not None else None)


def parse_policy(raw: Mapping[str, Any]) -> Policy:
    """Validate the rule keys of a policy assertion; raises PolicyError naming the key."""
    if not any(key in raw for key in POLICY_KEYS):
        raise PolicyError("", f"a policy needs at least one of {', '.join(POLICY_KEYS)}")
    values: dict[str, Any] = {}
    if "never" in raw:
        never = raw["never"]
        never = [never] if isinstance(never, str) else never
        if not isinstance(never, list) or not all(isinstance(t, str) and t for t in never):
            raise PolicyError("never", "must be a list of tool names")
        values["never"] = tuple(never)
    for key in ("at_most", "exactly"):
        if key in raw:
            values[key] = _counts(raw[key], key)
    if "before" in raw:
        pair = raw["before"]
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(t, str) for t in pair)
        ):
            raise PolicyError("before", "must be [first_tool, then_tool]")
        values["before"] = (pair[0], pair[1])
    if "only_after" in raw:
        rule = raw["only_after"]
        if not isinstance(rule, Mapping) or not isinstance(rule.get("tool"), str):
            raise PolicyError("only_after", "must be {tool: name, when: regex or prior tool}")
        if "when" not in rule:
            raise PolicyError("only_after.when", "is required: a turn-text regex or a prior tool")
        values["only_after"] = (rule["tool"], *_when(rule["when"]))
    return Policy(**values)


def _where(call: ToolCall, position: int, turn: int | None) -> str:
    at = f" in turn {turn}" if turn is not None else ""
    return f"call #{position + 1} {call.name}{at}"


def _violations(
    policy: Policy,
    calls: Sequence[tuple[int | None, ToolCall]],
    texts: Sequence[str],
) -> list[str]:
    found: list[str] = []
    counts: dict[str, int] = {}
    for _turn, call in calls:
        counts[call.name] = counts.get(call.name, 0) + 1
    for position, (call_turn, call) in enumerate(calls):
        if call.name in policy.never:
            found.append(f"never: {_where(call, position, call_turn)} calls a forbidden tool")
    for tool, limit in policy.at_most:
        if counts.get(tool, 0) > limit:
            found.append(f"at_most: {tool} called {counts.get(tool, 0)} times, at most {limit}")
    for tool, wanted in policy.exactly:
        if counts.get(tool, 0) != wanted:
            found.append(f"exactly: {tool} called {counts.get(tool, 0)} times, expected {wanted}")
    if policy.before is not None:
        first, then = policy.before
        seen_first = False
        for position, (call_turn, call) in enumerate(calls):
            seen_first = seen_first or call.name == first
            if call.name == then and not seen_first:
                found.append(
                    f"before: {_where(call, position, call_turn)} with no {first} before it"
                )
    if policy.only_after is not None:
        found.extend(_only_after(policy.only_after, calls, texts))
    return found


def _only_after(
    rule: tuple, calls: Sequence[tuple[int | None, ToolCall]], texts: Sequence[str]
) -> list[str]:
    tool, pattern, prior = rule
    found = []
    called: set[str] = set()
    for position, (call_turn, call) in enumerate(calls):
        if call.name == tool:
            upto = len(texts) if call_turn is None else call_turn + 1
            said = pattern is not None and any(pattern.search(t or "") for t in texts[:upto])
            if not said and (prior is None or prior not in called):
                what = " or ".join(
                    part
                    for part in (
                        f"a user message matching /{pattern.pattern}/" if pattern else "",
                        f"a prior {prior} call" if prior else "",
                    )
                    if part
                )
                found.append(f"only_after: {_where(call, position, call_turn)} before {what}")
        called.add(call.name)
    return found


def describe_policy(policy: Policy) -> str:
    """The rules of `policy` in the config's own words (`never: delete_account; at_most:
    request_refund 1`), so each passing policy says which rules it checked."""
    parts = [f"never: {', '.join(policy.never)}"] if policy.never else []
    parts += [f"at_most: {tool} {n}" for tool, n in policy.at_most]
    parts += [f"exactly: {tool} {n}" for tool, n in policy.exactly]
    if policy.before:
        parts.append(f"before: {policy.before[0]} before {policy.before[1]}")
    if policy.only_after:
        tool, pattern, prior = policy.only_after
        when = " or ".join(w for w in (f"/{pattern.pattern}/" if pattern else "", prior or "") if w)
        parts.append(f"only_after: {tool} after {when}")
    return "; ".join(parts)


def check_policy(
    policy: Policy,
    turns: Sequence[Sequence[ToolCall] | None],
    *,
    texts: Sequence[str] = (),
    turn: int | None = None,
) -> MetricResult:
    """Check `policy` over `turns` (each turn's calls, None when not stored); `texts[i]` is
    turn i's user message (for `only_after`). `turn` limits the calls to one turn."""
    if turn is None:
        calls = [(i, c) for i, t in enumerate(turns) if t is not None for c in t]
    else:
        calls = [(turn, c) for c in (turns[turn] or ())]
    violations = _violations(policy, calls, texts)
    if violations:
        reason = "; ".join(violations[:5]) + (
            f"; and {len(violations) - 5} more" if len(violations) > 5 else ""
        )
        return MetricResult(
            name="policy",
            value=0.0,
            passed=False,
            label="violated",
            reason=reason,
            details={"violations": violations},
        )
    return MetricResult(
        name="policy",
        value=1.0,
        passed=True,
        reason=f"{len(calls)} call(s) keep {describe_policy(policy)}",
        details={"violations": []},
    )
