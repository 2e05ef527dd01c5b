"""`@tool`: a python agent's tool function answered by the scenario's stubs during a run.

    from tracesim import tool

    @tool
    def lookup_order(order_id: str) -> dict: ...

Outside a run (or when the scenario has no `tool_stubs`) the function runs as
written. Inside a run of a scenario with stubs, the call is answered from the
stubs (first match wins) and the function is never called: a stub's `result`
is returned, its `error` raised as `ToolStubError`, and a call no stub matches
raises `UnstubbedToolCall` (the agent's framework reports it as the tool's
error, and the turn span lists it). Sync and async functions alike.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

from tracesim.simulator.stubs.context import current_book
from tracesim.simulator.stubs.matching import StubAnswer

__all__ = ["ToolStubError", "UnstubbedToolCall", "call_arguments", "settle", "tool"]

F = TypeVar("F", bound=Callable[..., Any])


class ToolStubError(RuntimeError):
    """A stub's `error`: the stubbed tool failed with this message."""


class UnstubbedToolCall(RuntimeError):
    """No stub of the scenario matches the call; the message says how to add one."""


def settle(answer: StubAnswer) -> Any:
    """The stub's result, or its error (or the unstubbed call) raised."""
    if not answer.stubbed:
        raise UnstubbedToolCall(answer.error)
    if answer.error is not None:
        raise ToolStubError(answer.error)
    return answer.result


def call_arguments(signature: inspect.Signature, args: tuple, kwargs: Mapping[str, Any]) -> dict:
    """The call's arguments by parameter name (defaults not applied: what the agent passed)."""
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return dict(kwargs)
    out: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif kind is not inspect.Parameter.VAR_POSITIONAL and name not in ("self", "cls"):
            out[name] = value
    return out


@overload
def tool(function: F) -> F: ...
@overload
def tool(*, name: str | None = None) -> Callable[[F], F]: ...


def tool(function: Any = None, *, name: str | None = None) -> Any:
    """Wrap a tool function so a run's `tool_stubs` answer it (see the module doc)."""

    def wrap(fn: F) -> F:
        tool_name = name or fn.__name__
        signature = inspect.signature(fn)

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                book = current_book()
                if book is None:
                    return await fn(*args, **kwargs)
                return settle(book.answer(tool_name, call_arguments(signature, args, kwargs)))

            wrapped: Any = run_async
        else:

            @functools.wraps(fn)
            def run_sync(*args: Any, **kwargs: Any) -> Any:
                book = current_book()
                if book is None:
                    return fn(*args, **kwargs)
                return settle(book.answer(tool_name, call_arguments(signature, args, kwargs)))

            wrapped = run_sync
        wrapped.__tracesim_tool__ = tool_name
        return wrapped  # type: ignore[return-value]

    return wrap(function) if function is not None else wrap
