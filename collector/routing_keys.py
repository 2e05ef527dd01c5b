"""Routing keys a span or log carries itself (SPEC §3 rules 1, 2 and 4). Pure functions.

Rule 3 (the trace of a known `tracesim.turn` span) needs state: see `routing.py`.
"""

from __future__ import annotations

from typing import Any

from schemas.conventions import ARKSIM, GENAI, OTEL, TRACESIM

__all__ = [
    "ROUTING_ATTRIBUTES",
    "RouteKey",
    "RULE_NONE",
    "RULE_SPAN",
    "RULE_RESOURCE",
    "RULE_TRACE",
    "RULE_SESSION",
    "explicit_key",
    "session_key",
    "turn_number",
    "own_key",
]

RouteKey = tuple[str | None, int | None, int]
"""(chat_id, turn_id, rule) where rule says which SPEC §3 rule matched."""

RULE_NONE = 0
RULE_SPAN = 1
RULE_RESOURCE = 2
RULE_TRACE = 3
RULE_SESSION = 4

_INT32_MAX = 2**31 - 1

ROUTING_ATTRIBUTES: frozenset[str] = frozenset(
    (
        TRACESIM.CHAT_ID,
        TRACESIM.TURN_ID,
        ARKSIM.CONVERSATION_ID,
        ARKSIM.TURN_ID,
        GENAI.CONVERSATION_ID,
        OTEL.SESSION_ID,
    )
)
"""Every attribute the routing rules read (redaction leaves them alone: routing needs them)."""


def turn_number(value: Any) -> int | None:
    """A turn id as int (attributes may carry it as a string); None when not an int32."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            return None
    if isinstance(value, int) and -_INT32_MAX <= value <= _INT32_MAX:
        return value
    return None


def _chat(value: Any) -> str | None:
    """A chat id as a non-empty string."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = value if isinstance(value, str) else str(value)
    return text or None


def explicit_key(attrs: dict[str, Any]) -> tuple[str | None, int | None]:
    """tracesim (then arksim) chat/turn keys of an attribute map."""
    chat = _chat(attrs.get(TRACESIM.CHAT_ID))
    if chat is not None:
        return chat, turn_number(attrs.get(TRACESIM.TURN_ID))
    chat = _chat(attrs.get(ARKSIM.CONVERSATION_ID))
    if chat is not None:
        return chat, turn_number(attrs.get(ARKSIM.TURN_ID))
    return None, None


def session_key(attrs: dict[str, Any]) -> str | None:
    """Rule 4: gen_ai.conversation.id, then session.id (chat id only)."""
    return _chat(attrs.get(GENAI.CONVERSATION_ID)) or _chat(attrs.get(OTEL.SESSION_ID))


def own_key(attrs: dict[str, Any], resource_key: RouteKey) -> RouteKey:
    """Rules 1, 2 and 4 for one item, given its resource's precomputed key (rule 2/4 or none)."""
    if attrs:
        chat, turn = explicit_key(attrs)
        if chat is not None:
            return chat, turn, RULE_SPAN
    if resource_key[2] == RULE_RESOURCE:
        return resource_key
    if attrs:
        session = session_key(attrs)
        if session is not None:
            return session, None, RULE_SESSION
    return resource_key


def resource_key(resource_attrs: dict[str, Any]) -> RouteKey:
    """Rule 2 key of a resource; its rule-4 session key as fallback."""
    chat, turn = explicit_key(resource_attrs)
    if chat is not None:
        return chat, turn, RULE_RESOURCE
    session = session_key(resource_attrs)
    if session is not None:
        return session, None, RULE_SESSION
    return None, None, RULE_NONE


__all__.append("resource_key")
