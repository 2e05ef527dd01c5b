"""The customer-service tools and their small in-memory dataset.

Real `@function_tool`s of the OpenAI Agents SDK: the SDK parses the model's
arguments, runs them and traces each call as a function span.
"""

from __future__ import annotations

import json

from agents import function_tool

__all__ = ["ORDERS", "POLICIES", "TOOLS"]

ORDERS: dict[str, dict[str, object]] = {
    "A1001": {
        "status": "shipped",
        "item": "noise-cancelling headphones",
        "email": "dana@example.com",
        "total": 199.0,
        "days_since_delivery": None,
    },
    "A1002": {
        "status": "processing",
        "item": "espresso machine",
        "email": "li@example.com",
        "total": 349.0,
        "days_since_delivery": None,
    },
    "A1003": {
        "status": "delivered",
        "item": "running shoes",
        "email": "sam@example.com",
        "total": 120.0,
        "days_since_delivery": 12,
    },
    "A1004": {
        "status": "delivered",
        "item": "desk lamp",
        "email": "kim@example.com",
        "total": 45.0,
        "days_since_delivery": 64,
    },
}

POLICIES = {
    "returns": "Items can be returned for a full refund within 30 days of delivery.",
    "cancellation": "Orders can be cancelled until they ship; identity must be verified first.",
    "shipping": "Standard shipping takes 3-5 business days.",
}


@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order's status and item by its id (e.g. A1001)."""
    order = ORDERS.get(order_id.upper())
    if order is None:
        return json.dumps({"found": False, "order_id": order_id})
    return json.dumps(
        {
            "found": True,
            "order_id": order_id.upper(),
            "status": order["status"],
            "item": order["item"],
        }
    )


@function_tool
def verify_identity(order_id: str, email: str) -> str:
    """Check that the email matches the order's account before changing the order."""
    order = ORDERS.get(order_id.upper())
    ok = order is not None and str(order["email"]).lower() == email.lower()
    return json.dumps({"verified": ok, "order_id": order_id.upper()})


@function_tool
def cancel_order(order_id: str) -> str:
    """Cancel an order that has not shipped yet."""
    order = ORDERS.get(order_id.upper())
    if order is None:
        raise ValueError(f"order {order_id} not found")
    if order["status"] != "processing":
        return json.dumps({"cancelled": False, "reason": f"order is already {order['status']}"})
    return json.dumps({"cancelled": True, "order_id": order_id.upper()})


@function_tool
def request_refund(order_id: str, reason: str) -> str:
    """Open a refund for a delivered order (within the 30-day return window)."""
    order = ORDERS.get(order_id.upper())
    if order is None:
        raise ValueError(f"order {order_id} not found")
    days = order["days_since_delivery"]
    if days is None or days > 30:
        return json.dumps(
            {"refunded": False, "reason": "outside the 30-day return window or not delivered"}
        )
    return json.dumps({"refunded": True, "amount": order["total"], "order_id": order_id.upper()})


@function_tool
def get_policy(topic: str) -> str:
    """Read the store policy on a topic: returns, cancellation or shipping."""
    return POLICIES.get(topic.lower(), f"No policy found for {topic!r}.")


TOOLS = [lookup_order, verify_identity, cancel_order, request_refund, get_policy]
