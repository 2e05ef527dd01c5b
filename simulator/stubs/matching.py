"""Which stub answers a tool call: first match in file order, `repeat` counted per book.

A `StubBook` holds one conversation's stubs (a scenario's `tool_stubs`) and how
often each answered, so `repeat` holds across the turns of a conversation.
Arguments match when the stub's `args` are a deep subset of the call's
(numbers compare by value, `1 == 1.0`; `"1" != 1`). Every call is recorded:
what was answered and what no stub matched (reported on the turn span).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tracesim.schemas.tool_stub import ToolStub

__all__ = ["StubAnswer", "StubBook", "args_match", "stub_matches", "unstubbed_message"]


def args_match(expected: Any, actual: Any) -> bool:
    """True when `expected` is a deep subset of `actual` (see the module doc)."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and args_match(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(args_match(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(expected) == float(actual)
    return type(expected) is type(actual) and expected == actual


def stub_matches(stub: ToolStub, name: str, arguments: Mapping[str, Any]) -> bool:
    """True when `stub` answers a call of `name` with `arguments` (uses left aside)."""
    return stub.name == name and (not stub.args or args_match(stub.args, arguments))


@dataclass(frozen=True)
class StubAnswer:
    """The answer to one call: a result, an error, or `stubbed=False` (no stub matched)."""

    name: str
    arguments: Mapping[str, Any]
    result: Any = None
    error: str | None = None
    stubbed: bool = True
    index: int | None = None
    """Position of the stub in `tool_stubs` (None when unstubbed)."""

    def result_text(self) -> str:
        """The result as a tool returns text: strings as they are, other values as JSON."""
        if isinstance(self.result, str):
            return self.result
        return json.dumps(self.result, ensure_ascii=False)


def unstubbed_message(name: str, arguments: Mapping[str, Any]) -> str:
    """The error an unstubbed call gets: what was called and how to fix it."""
    args = json.dumps(dict(arguments), ensure_ascii=False, sort_keys=True, default=str)
    return (
        f"tracesim: no tool stub matches {name}({args}); add one to the scenario's "
        f'tool_stubs ({{"name": "{name}", "args": {{...}}, "result": ...}})'
    )


@dataclass
class StubBook:
    """One conversation's stubs and the calls they answered (thread-safe)."""

    stubs: list[ToolStub]
    used: list[int] = field(default_factory=list)
    calls: list[StubAnswer] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def of(cls, stubs: Iterable[ToolStub | Mapping[str, Any]]) -> StubBook:
        """A book over stubs given as models or plain mappings."""
        items = [s if isinstance(s, ToolStub) else ToolStub.model_validate(s) for s in stubs]
        return cls(stubs=items, used=[0] * len(items))

    def answer(self, name: str, arguments: Mapping[str, Any] | None) -> StubAnswer:
        """The first stub of `name` matching `arguments` with uses left, or an unstubbed answer."""
        args = dict(arguments or {})
        with self._lock:
            for index, stub in enumerate(self.stubs):
                if stub.repeat is not None and self.used[index] >= stub.repeat:
                    continue
                if not stub_matches(stub, name, args):
                    continue
                self.used[index] += 1
                answer = StubAnswer(name, args, stub.result, stub.error, True, index)
                break
            else:
                answer = StubAnswer(name, args, error=unstubbed_message(name, args), stubbed=False)
            self.calls.append(answer)
        return answer

    def unstubbed(self) -> list[StubAnswer]:
        """The calls no stub answered, in call order."""
        with self._lock:
            return [c for c in self.calls if not c.stubbed]
