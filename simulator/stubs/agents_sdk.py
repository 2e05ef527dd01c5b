"""OpenAI Agents SDK function tools answered by the scenario's stubs during a run.

    from tracesim import stub_function_tools
    agent = Agent(..., tools=stub_function_tools([lookup_order, refund]))

Each `FunctionTool` keeps its name, description and schema (the model sees the
same tools) and gets an `on_invoke_tool` that, inside a run of a scenario with
`tool_stubs`, answers from the stubs instead of running the function. A stub's
`error` and an unstubbed call are returned to the model as the tool's error
text and marked as the SDK function span's error (so the traced call has the
error); outside a run the original tool runs untouched.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterable
from typing import Any

from tracesim.simulator.stubs.context import current_book
from tracesim.simulator.stubs.matching import StubAnswer

__all__ = ["stub_function_tool", "stub_function_tools"]

logger = logging.getLogger(__name__)


def _mark_error(answer: StubAnswer, message: str) -> None:
    """Set the SDK's current (function) span's error, as the SDK does for a failing tool."""
    try:
        from agents.tracing import SpanError, get_current_span
    except ImportError:  # an SDK without these names: the text still reaches the model
        return
    span = get_current_span()
    if span is not None:
        span.set_error(
            SpanError(message=message, data={"tool_name": answer.name, "error": message})
        )


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def stub_function_tool(tool: Any) -> Any:
    """A copy of the SDK `FunctionTool` `tool` answered by stubs in a run; other tools as is."""
    original = getattr(tool, "on_invoke_tool", None)
    if original is None or getattr(original, "__tracesim_stubbed__", False):
        return tool

    async def invoke(context: Any, arguments: str) -> Any:
        book = current_book()
        if book is None:
            return await original(context, arguments)
        answer = book.answer(tool.name, _arguments(arguments))
        if not answer.stubbed or answer.error is not None:
            message = answer.error or ""
            logger.warning("tool %s: %s", tool.name, message)
            _mark_error(answer, message)
            return f"Error: {message}"
        return answer.result_text()

    invoke.__tracesim_stubbed__ = True  # type: ignore[attr-defined]
    stubbed = copy.copy(tool)
    object.__setattr__(stubbed, "on_invoke_tool", invoke)
    return stubbed


def stub_function_tools(tools: Iterable[Any]) -> list[Any]:
    """`stub_function_tool` over a list of SDK tools."""
    return [stub_function_tool(tool) for tool in tools]
