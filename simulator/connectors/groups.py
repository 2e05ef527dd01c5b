"""Call groups of one turn: calls one model message requested together share a `group`.

Connectors know only an id local to the answer (a response id, an artifact
id); `scope_groups` prefixes it with the turn so a server reusing ids across
turns cannot merge two turns' batches into one group.
"""

from __future__ import annotations

from schemas import AgentResponse

__all__ = ["scope_groups"]


def scope_groups(response: AgentResponse, *, turn_id: int) -> AgentResponse:
    """The response with each call's group prefixed `turn-<turn_id>-` (ungrouped calls kept)."""
    if not any(call.group for call in response.tool_calls):
        return response
    calls = [
        call.model_copy(update={"group": f"turn-{turn_id}-{call.group}"}) if call.group else call
        for call in response.tool_calls
    ]
    return response.model_copy(update={"tool_calls": calls})
