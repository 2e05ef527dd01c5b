"""The stub book of the running turn, carried in the OTel context (SPEC §14).

The runner puts the conversation's `StubBook` into the turn's OTel context
next to the routing baggage; whatever the agent runs under that context (the
same task, `asyncio.to_thread`, OTel-propagated callbacks) finds it with
`current_book()`. Outside a run there is none and stubbed tools run for real.
"""

from __future__ import annotations

from opentelemetry import context as otel_context
from opentelemetry.context import Context
from tracesim.simulator.stubs.matching import StubBook

__all__ = ["STUB_BOOK_KEY", "current_book", "with_stub_book"]

STUB_BOOK_KEY = otel_context.create_key("tracesim.tool_stubs")


def with_stub_book(context: Context, book: StubBook | None) -> Context:
    """`context` carrying `book` (unchanged when `book` is None)."""
    if book is None:
        return context
    return otel_context.set_value(STUB_BOOK_KEY, book, context)


def current_book() -> StubBook | None:
    """The running turn's stub book, or None (not in a run, or the scenario has no stubs)."""
    value = otel_context.get_value(STUB_BOOK_KEY)
    return value if isinstance(value, StubBook) else None
