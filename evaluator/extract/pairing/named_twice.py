"""A model span naming its requested call twice (SPEC §5: one call per real invocation):
the output messages' `tool_call` part under one id and the span's own
`gen_ai.tool.call.id` / `gen_ai.tool.name` under another (OpenLIT on the OpenAI Responses
API: the part carries the item id, the attribute the `call_id` that answers name). One
call: the attribute's id is its id, the part's its alias (`recover` reads both)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracesim.schemas import GENAI

__all__ = ["ALIAS", "name_twice"]

ALIAS = "alias"
"""The key of a raw request's other id."""


def name_twice(attributes: Mapping[str, Any], raw: list[dict[str, Any]]) -> None:
    """Where the span's own tool-call attributes name the one requested call of that tool
    under another id, that id is the request's and the part's its alias, in place."""
    flat = attributes.get(GENAI.TOOL_CALL_ID)
    if not flat or not isinstance(flat, str) or not raw:
        return
    name = attributes.get(GENAI.TOOL_NAME)
    same = [item for item in raw if item.get("name") == name]
    if len(same) != 1:
        return  # no request of that tool, or several: which one the attribute names is unknown
    item = same[0]
    own = item.get("id")
    if own and own != flat:
        item[ALIAS], item["id"] = str(own), flat
