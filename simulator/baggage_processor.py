"""Copy the routing baggage (`tracesim.chat_id`, `tracesim.turn_id`) onto every span.

The simulator puts the keys in the turn's baggage; an agent's spans carry
them as attributes from the moment they start, so the collector keys each
span to its conversation and turn even when its trace is not the turn's.
"""

from __future__ import annotations

from opentelemetry import baggage
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from tracesim.schemas.conventions import TRACESIM

__all__ = ["BaggageSpanProcessor"]

_KEYS = (TRACESIM.CHAT_ID, TRACESIM.TURN_ID, TRACESIM.RUN_ID)


class BaggageSpanProcessor(SpanProcessor):
    """On start, sets the tracesim baggage entries as span attributes (turn_id as int).

    Thread-safe (reads the parent context only); never overrides an attribute
    the span already has.
    """

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        entries = baggage.get_all(parent_context)
        if not entries:
            return
        attributes = span.attributes or {}
        for key in _KEYS:
            value = entries.get(key)
            if value is None or key in attributes:
                continue
            if key == TRACESIM.TURN_ID:
                try:
                    value = int(str(value))
                except ValueError:
                    continue
            span.set_attribute(key, value if isinstance(value, int) else str(value))

    def on_end(self, span: ReadableSpan) -> None:
        return None

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
