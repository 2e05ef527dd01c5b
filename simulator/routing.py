"""The routing context of a turn: baggage, and the W3C headers carrying it (SPEC §3).

In-process agents get it as the active OTel context; HTTP agents as
`traceparent` + `baggage` headers on every request.
"""

from __future__ import annotations

from opentelemetry import baggage
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.context import Context
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from tracesim.schemas.conventions import TRACESIM

__all__ = ["inject_headers", "with_routing_baggage"]

_PROPAGATOR = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])


def with_routing_baggage(
    context: Context | None,
    *,
    chat_id: str,
    turn_id: int,
    run_id: str | None = None,
    scenario_id: str | None = None,
) -> Context:
    """`context` plus baggage entries `tracesim.chat_id`, `tracesim.turn_id` (and run id;
    the scenario id tells `tracesim mcp-mock` which scenario's stubs answer)."""
    ctx = baggage.set_baggage(TRACESIM.CHAT_ID, chat_id, context)
    ctx = baggage.set_baggage(TRACESIM.TURN_ID, str(turn_id), ctx)
    if run_id:
        ctx = baggage.set_baggage(TRACESIM.RUN_ID, run_id, ctx)
    if scenario_id:
        ctx = baggage.set_baggage(TRACESIM.SCENARIO_ID, scenario_id, ctx)
    return ctx


def inject_headers(context: Context) -> dict[str, str]:
    """`traceparent` (+ `tracestate`) and `baggage` headers for `context`."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=context)
    return carrier
