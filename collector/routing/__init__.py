"""What a span says by the conventions: routing keys (SPEC §3) and hot fields (§4/§5)."""

from tracesim.collector.routing.hot_fields import HOT_ATTRIBUTES, HotFields, as_int
from tracesim.collector.routing.routing import Router
from tracesim.collector.routing.routing_keys import (
    ROUTING_ATTRIBUTES,
    RULE_NONE,
    RULE_RESOURCE,
    RULE_SESSION,
    RULE_SPAN,
    RULE_TRACE,
    ResourceRoute,
    RouteKey,
    explicit_key,
    own_key,
    resource_key,
    session_key,
    turn_number,
)

# `hot_fields` (the function) is not re-exported: here it would shadow its submodule.
__all__ = [
    "HOT_ATTRIBUTES",
    "HotFields",
    "ROUTING_ATTRIBUTES",
    "RULE_NONE",
    "RULE_RESOURCE",
    "RULE_SESSION",
    "RULE_SPAN",
    "RULE_TRACE",
    "ResourceRoute",
    "RouteKey",
    "Router",
    "as_int",
    "explicit_key",
    "own_key",
    "resource_key",
    "session_key",
    "turn_number",
]
