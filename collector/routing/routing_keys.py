"""Routing keys a span or log carries itself (SPEC §3 rules 1, 2 and 4). Pure functions.

The conversation key and the turn key are each taken at their own first match:
span attributes before resource attributes, tracesim's keys before arksim's. A
conversation id of the GenAI / framework conventions (rule 4,
`schemas.conversation_keys`) keys the chat only. Rule 3 (the trace of a known
`tracesim.turn` span) and rule 4 across a trace need state: see `routing.py`.
"""

from __future__ import annotations

from typing import Any

from tracesim.schemas.conventions import MCP
from tracesim.schemas.conversation_keys import CONVERSATION_ID_KEYS, EXPLICIT_KEYS

__all__ = [
    "ROUTING_ATTRIBUTES",
    "ResourceRoute",
    "RouteKey",
    "RULE_NONE",
    "RULE_SPAN",
    "RULE_RESOURCE",
    "RULE_TRACE",
    "RULE_SESSION",
    "explicit_key",
    "own_key",
    "resource_key",
    "session_key",
    "turn_number",
]

RouteKey = tuple[str | None, int | None, int]
"""(chat_id, turn_id, rule) where rule says which SPEC §3 rule matched."""
ResourceRoute = tuple[RouteKey, int | None]
"""A resource's own RouteKey and its turn id even without a chat id (a span may name the chat)."""

RULE_NONE = 0
RULE_SPAN = 1
RULE_RESOURCE = 2
RULE_TRACE = 3
RULE_SESSION = 4

_INT32_MAX = 2**31 - 1
_CHAT_KEYS = tuple(chat for chat, _ in EXPLICIT_KEYS)
_TURN_KEYS = tuple(turn for _, turn in EXPLICIT_KEYS)

ROUTING_ATTRIBUTES: frozenset[str] = frozenset((*_CHAT_KEYS, *_TURN_KEYS, *CONVERSATION_ID_KEYS))
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
    """(chat, turn) of one attribute map, each its own first match (tracesim, then arksim)."""
    chat = turn = None
    for key in _CHAT_KEYS:
        chat = _chat(attrs.get(key))
        if chat is not None:
            break
    for key in _TURN_KEYS:
        turn = turn_number(attrs.get(key))
        if turn is not None:
            break
    return chat, turn


def session_key(attrs: dict[str, Any]) -> str | None:
    """Rule 4: the first conversation id of the GenAI / framework conventions (chat id only).
    An MCP request's span names its transport session, never a conversation (SPEC §3)."""
    if MCP.METHOD_NAME in attrs or MCP.SESSION_ID in attrs:
        return None
    for key in CONVERSATION_ID_KEYS:
        value = attrs.get(key)
        if value is not None:
            chat = _chat(value)
            if chat is not None:
                return chat
    return None


def own_key(attrs: dict[str, Any], resource: ResourceRoute) -> RouteKey:
    """Rules 1, 2 and 4 for one item, given its resource's key (`resource_key`).

    chat: span explicit > resource explicit > span conversation id > resource's;
    turn: span explicit > resource explicit. No chat, no turn.
    """
    if not attrs or ROUTING_ATTRIBUTES.isdisjoint(attrs):
        return resource[0]
    chat, turn = explicit_key(attrs)
    (res_chat, _, res_rule), res_turn = resource
    if turn is None:
        turn = res_turn
    if chat is not None:
        return chat, turn, RULE_SPAN
    if res_rule == RULE_RESOURCE:
        return res_chat, turn, RULE_RESOURCE
    session = session_key(attrs)
    if session is not None:
        return session, turn, RULE_SESSION
    if res_chat is None:
        return None, None, RULE_NONE
    return res_chat, turn, res_rule


def resource_key(resource_attrs: dict[str, Any]) -> ResourceRoute:
    """Rule 2 key of a resource (its rule-4 conversation id as fallback), and its turn."""
    chat, turn = explicit_key(resource_attrs)
    if chat is not None:
        return (chat, turn, RULE_RESOURCE), turn
    session = session_key(resource_attrs)
    if session is not None:
        return (session, turn, RULE_SESSION), turn
    return (None, None, RULE_NONE), turn
