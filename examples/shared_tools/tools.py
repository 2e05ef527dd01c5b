"""The example tools, run against a `Shop`, each under an `execute_tool <name>` span.

Span attributes follow the OTel GenAI conventions (`gen_ai.operation.name`
= `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`), and a failing tool
sets the span status to ERROR with the error message: exactly what tracesim's
evaluator reads back as traced tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode, Tracer
from tracesim.schemas import GENAI

from examples.shared_tools.data import Shop
from examples.shared_tools.policy import PlannedCall, plan_turn

__all__ = ["TOOLS", "ToolError", "ToolOutcome", "execute_tool", "run_turn"]


class ToolError(Exception):
    """A tool refused or failed; the message is shown to the user and recorded on the span."""


def lookup_order(shop: Shop, order_id: str) -> dict[str, Any]:
    """Status, item and total of an order."""
    order = shop.orders.get(order_id)
    if order is None:
        raise ToolError(f"order {order_id} not found")
    return {
        "order_id": order_id,
        "status": order["status"],
        "item": order["item"],
        "total": order["total"],
    }


def verify_identity(shop: Shop, email: str, order_id: str | None = None) -> dict[str, Any]:
    """Whether `email` is a customer (and owns `order_id` when given)."""
    found = shop.customer_by_email(email)
    if found is None:
        raise ToolError(f"no customer with e-mail {email}")
    customer_id, _ = found
    owns = order_id is None or shop.orders.get(order_id, {}).get("customer_id") == customer_id
    return {"verified": owns, "customer_id": customer_id}


def cancel_order(shop: Shop, order_id: str) -> dict[str, Any]:
    """Cancel an order that has not shipped yet."""
    order = shop.orders.get(order_id)
    if order is None:
        raise ToolError(f"order {order_id} not found")
    if order["status"] in ("shipped", "delivered"):
        raise ToolError(f"order {order_id} has already {order['status']} and cannot be cancelled")
    order["status"] = "cancelled"
    return {"order_id": order_id, "status": "cancelled"}


def request_refund(shop: Shop, order_id: str, reason: str = "") -> dict[str, Any]:
    """Refund a delivered order."""
    order = shop.orders.get(order_id)
    if order is None:
        raise ToolError(f"order {order_id} not found")
    if order["status"] != "delivered":
        raise ToolError(
            f"order {order_id} is {order['status']}; only delivered orders can be refunded"
        )
    order["status"] = "refunded"
    return {"refund_id": f"RF-{order_id}", "amount": order["total"], "reason": reason}


TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    "lookup_order": lookup_order,
    "verify_identity": verify_identity,
    "cancel_order": cancel_order,
    "request_refund": request_refund,
}


@dataclass(frozen=True)
class ToolOutcome:
    """A call that was made, with its JSON result or its error."""

    call: PlannedCall
    result: str | None = None
    error: str | None = None
    value: dict[str, Any] | None = None


def execute_tool(call: PlannedCall, *, shop: Shop, tracer: Tracer) -> ToolOutcome:
    """Run one tool under its `execute_tool <name>` span (child of the current span)."""
    attributes = {
        GENAI.OPERATION_NAME: GENAI.OP_EXECUTE_TOOL,
        GENAI.TOOL_NAME: call.name,
        GENAI.TOOL_CALL_ID: call.id,
        GENAI.TOOL_CALL_ARGUMENTS: json.dumps(call.arguments, sort_keys=True),
        GENAI.TOOL_TYPE: "function",
    }
    with tracer.start_as_current_span(
        f"{GENAI.EXECUTE_TOOL_SPAN_PREFIX}{call.name}",
        kind=trace.SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            value = TOOLS[call.name](shop, **call.arguments)
        except ToolError as exc:
            span.set_status(Status(StatusCode.ERROR, str(exc)))
            span.set_attribute("error.type", "ToolError")
            return ToolOutcome(call=call, error=str(exc))
        result = json.dumps(value, sort_keys=True)
        span.set_attribute(GENAI.TOOL_CALL_RESULT, result)
        return ToolOutcome(call=call, result=result, value=value)


def _sentence(outcome: ToolOutcome) -> str:
    if outcome.error:
        return f"Sorry, {outcome.error}."
    value = outcome.value or {}
    name = outcome.call.name
    if name == "lookup_order":
        return f"Order {value['order_id']} ({value['item']}) is {value['status']}."
    if name == "verify_identity":
        return (
            "Thanks, you are verified."
            if value.get("verified")
            else "That e-mail does not match the order."
        )
    if name == "cancel_order":
        return f"Order {value['order_id']} is cancelled."
    return f"Refund {value['refund_id']} of {value['amount']} is on its way."


def run_turn(
    messages: Sequence[dict[str, Any]], *, shop: Shop, tracer: Tracer
) -> tuple[str, list[ToolOutcome]]:
    """Plan and run the tools for the last user message; return (reply, outcomes)."""
    turn = plan_turn(messages)
    outcomes = [execute_tool(call, shop=shop, tracer=tracer) for call in turn.calls]
    sentences = [_sentence(outcome) for outcome in outcomes]
    if turn.needs == "email":
        sentences.append(
            "Before I change an order, please tell me the e-mail address on your account."
        )
    elif turn.needs == "order":
        sentences.append("Which order is it about? Please give the order number (like ORD-1001).")
    if not sentences:
        sentences.append("I can look up, cancel or refund an order. What can I do for you?")
    return " ".join(sentences), outcomes
