"""The deterministic policy: which tools the example agent calls for a user message.

Rules over the conversation (no model): an e-mail address triggers
`verify_identity`; "cancel" / "refund" trigger `cancel_order` /
`request_refund` once the user gave an e-mail at some point; an order number
or a status question triggers `lookup_order`. The order is the one named in
the message, else the last one named earlier. Tool-call ids are
`call_<n>`, numbered across the conversation, so replaying the same
conversation gives the same ids (the chat-completions agent is stateless and
recomputes them from the history).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PlannedCall", "Turn", "plan_turn"]

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ORDER = re.compile(r"\bORD-\d+\b", re.IGNORECASE)
_STATUS_WORDS = ("status", "where is", "track", "order")


@dataclass(frozen=True)
class PlannedCall:
    """One tool call the agent decided to make."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Turn:
    """The plan for the latest user message: calls to make, or what to ask for instead."""

    calls: list[PlannedCall] = field(default_factory=list)
    needs: str | None = None
    """"email" or "order" when the agent must ask before acting."""


def _orders(text: str) -> list[str]:
    return [match.upper() for match in _ORDER.findall(text)]


def _plan_one(user_messages: Sequence[str]) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
    """Calls (name, arguments) for the last of `user_messages`, and a missing-information flag."""
    text = user_messages[-1]
    lowered = text.lower()
    emails = _EMAIL.findall(text)
    known_orders = [order for message in user_messages for order in _orders(message)]
    order = (_orders(text) or known_orders[-1:] or [None])[0]
    verified = any(_EMAIL.search(message) for message in user_messages)
    calls: list[tuple[str, dict[str, Any]]] = []
    if emails:
        arguments: dict[str, Any] = {"email": emails[0]}
        if order:
            arguments["order_id"] = order
        calls.append(("verify_identity", arguments))
    wants_cancel = "cancel" in lowered
    wants_refund = "refund" in lowered
    if wants_cancel or wants_refund:
        if not order:
            return calls, "order"
        if not verified:
            return calls, "email"
        if wants_cancel:
            calls.append(("cancel_order", {"order_id": order}))
        if wants_refund:
            calls.append(("request_refund", {"order_id": order, "reason": "customer request"}))
        return calls, None
    if _orders(text) or any(word in lowered for word in _STATUS_WORDS):
        if not order:
            return calls, "order"
        calls.append(("lookup_order", {"order_id": order}))
    return calls, None


def plan_turn(messages: Sequence[dict[str, Any]]) -> Turn:
    """Plan the reply to the last user message of `messages` (chat format, any roles)."""
    user_messages = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
    if not user_messages:
        return Turn()
    numbered_before = sum(
        len(_plan_one(user_messages[: i + 1])[0]) for i in range(len(user_messages) - 1)
    )
    planned, needs = _plan_one(user_messages)
    calls = [
        PlannedCall(id=f"call_{numbered_before + offset + 1}", name=name, arguments=arguments)
        for offset, (name, arguments) in enumerate(planned)
    ]
    return Turn(calls=calls, needs=needs)
