"""Each distinct (assertion, calls) checked once: the turns that made the same calls share it.

A check on tool calls is a pure function of the fields of the calls it reads:
name, arguments, result, error, duration, the parallel-group pattern, and a
call id only where the value can matter (an expected call or a count naming
it; elsewhere only whether there is one). Scenarios are played many times
(trials) and an agent repeats itself, so the turns of an evaluation often made
the same calls: `CheckSet.check` keys each assertion's result by those fields,
checks each distinct key once (`check_one`, the same code as
`check_assertions`) and hands every turn with that key the same read-only
`SharedResult` (its stored forms encoded once). Rules (`policy`,
`tool_validity`) read the conversation's facts too and are checked every time;
so are turns whose arguments do not encode exactly (non-JSON values).

When inputs rarely repeat (production traffic with unique arguments), keys cost more
than they save: a `CheckSet` that found under a quarter of its inputs already checked
stops keying for a while (`_PAUSE` conversations), then samples again.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import orjson
from tracesim.evaluator.checks.assertions import (
    RULE_TYPES,
    Assertion,
    RuleFacts,
    check_assertions,
    check_one,
    not_run,
)
from tracesim.evaluator.output.shared import freeze
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["CheckSet", "calls_key"]

_LIMIT = 20_000
"""Results kept in all (every `CheckSet` of the process); past it they start afresh, so
memory stays bounded however many scenarios an evaluation plays."""
_SAMPLE = 2_000
"""Lookups after which a `CheckSet` decides whether keying pays (a quarter found)."""
_PAUSE = 500
"""Conversations checked without keys once keying did not pay, before sampling again."""

Key = tuple[Any, ...]


def _id_sensitive(assertions: Sequence[Assertion]) -> frozenset[str]:
    """Strings a call id is compared with: expected calls' ids, tools a count names."""
    names: set[str] = set()
    for assertion in assertions:
        expected = assertion.expected
        if assertion.type == "tool_call_count" and isinstance(expected, dict):
            names.update(str(tool) for tool in expected)
        elif isinstance(expected, list):
            names.update(getattr(want, "id", None) or "" for want in expected)
    names.discard("")
    return frozenset(names)


def _call_fields(call: ToolCall, ids: frozenset[str]) -> tuple[Any, ...] | None:
    """What a check can read of `call` (group raw: `calls_key` relabels it), or None when
    its arguments do not encode exactly (a value JSON cannot tell apart)."""
    arguments = call.arguments
    if arguments:
        try:
            args = orjson.dumps(arguments)
        except TypeError:  # a non-JSON value or key: never shared
            return None
        if b"null" in args:  # NaN and infinities encode as null too
            args = (args, repr(arguments))
    else:
        args = b""
    ident = call.id
    return (
        call.name,
        args,
        call.result,
        call.error,
        call.duration_ms,
        ident if ident in ids else bool(ident),
        call.group,
    )


def calls_key(fields: Sequence[tuple[Any, ...]]) -> Key:
    """The key of a sequence of calls' fields: parallel groups relabelled by first appearance
    (checks compare groups only with each other, by equality and truthiness)."""
    seen: dict[Any, int] = {}
    out = []
    for item in fields:
        group = item[-1]
        if group:
            label = seen.get(group)
            if label is None:
                label = seen[group] = len(seen) + 1
            item = (*item[:-1], label)
        out.append(item)
    return tuple(out)


_LIVE: weakref.WeakSet[CheckSet] = weakref.WeakSet()
"""Every CheckSet of the process (their results share `_LIMIT`)."""
_HELD = [0]
"""Results the live CheckSets hold in all (a CheckSet dropped with its results is not
subtracted: the count only errs high, clearing early)."""


class CheckSet:
    """A scenario's parsed assertions and the results of the inputs checked so far."""

    __slots__ = ("assertions", "_ids", "_results", "_found", "_looked", "_paused", "__weakref__")

    def __init__(self, assertions: list[Assertion]) -> None:
        self.assertions = assertions
        self._ids = _id_sensitive(assertions)
        self._results: dict[Key, MetricResult] = {}
        _LIVE.add(self)
        self._found = self._looked = 0
        self._paused = 0
        """Conversations still to check without keys."""

    def _keyed(self) -> bool:
        """Whether to key this conversation's checks (see the module docstring)."""
        if not self._paused and self._looked >= _SAMPLE:
            if self._found * 4 < self._looked:
                self._paused = _PAUSE
                _HELD[0] -= len(self._results)
                self._results.clear()
            self._found = self._looked = 0
        if self._paused:
            self._paused -= 1
            return False
        return True

    def check(
        self,
        turns: Sequence[Sequence[ToolCall] | None],
        *,
        facts: RuleFacts | None = None,
        kind: str | None = None,
    ) -> list[tuple[int | None, MetricResult]]:
        """`check_assertions(self.assertions, turns, ...)`, each distinct input checked once;
        results of call checks are shared (`SharedResult`: `thaw` before changing one)."""
        if not self._keyed():
            return check_assertions(self.assertions, turns, facts=facts, kind=kind)
        ids = self._ids
        per_turn: list[list[tuple[Any, ...]] | None] = []
        exact = True
        for calls in turns:
            if calls is None:
                per_turn.append(None)
                continue
            fields = [_call_fields(call, ids) for call in calls]
            if None in fields:
                exact = False
                break
            per_turn.append(fields)  # type: ignore[arg-type]
        keys: dict[int | None, Key] = {}
        results = self._results
        if _HELD[0] > _LIMIT:
            for live in _LIVE:
                live._results.clear()
            _HELD[0] = 0
        everything: list[ToolCall] | None = None
        out: list[tuple[int | None, MetricResult]] = []
        for assertion in self.assertions:
            turn = assertion.turn
            if turn is None:
                if everything is None:
                    everything = [c for calls in turns if calls is not None for c in calls]
                calls = everything
            elif turn < len(turns) and turns[turn] is not None:
                calls = list(turns[turn])  # type: ignore[arg-type]
            else:
                out.append((turn, not_run(assertion, turns)))
                continue
            if not exact or assertion.type in RULE_TYPES:
                out.append((turn, check_one(assertion, calls, turns, facts, kind)))
                continue
            key = keys.get(turn)
            if key is None:
                if turn is None:
                    key = calls_key(
                        [f for fields in per_turn if fields is not None for f in fields]
                    )
                else:
                    key = calls_key(per_turn[turn])  # type: ignore[arg-type]
                keys[turn] = key
            memo_key = (assertion.index, kind, key)
            result = results.get(memo_key)
            self._looked += 1
            if result is not None:
                self._found += 1
            else:
                _HELD[0] += 1
                result = results[memo_key] = freeze(check_one(assertion, calls, turns, facts, kind))
            out.append((turn, result))
        return out
