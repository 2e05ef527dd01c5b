"""One call per tool execution (SPEC §5): tool spans nested in a tool span of the same
call (a second instrumentation, the MCP client and server spans of one `tools/call`, a
lifecycle event recorded as a child span) merge into it, their fields completing its own,
provenance kept."""

from __future__ import annotations

from typing import Any

from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.provenance import MCP_SPAN, TOOL_SPAN
from tracesim.schemas import ToolCall

__all__ = ["LIFECYCLE_NAMES", "merge_nested"]

LIFECYCLE_NAMES = frozenset(("start", "success", "error", "retry", "finish", "end"))
"""Span names of a tool call's lifecycle events: a tool span so named under a tool span is
that call's event, not a call (BeeAI emits its `error` event as a child TOOL span)."""


def merge_nested(pieces: list[CallPiece], others: list[Any]) -> list[CallPiece]:
    """One call per tool execution, over a turn's span pieces in start order: a tool span
    below a tool span of the same call (through any non-tool spans: an HTTP hop, a
    framework wrapper) is that call seen by a second instrumentation (OpenInference around
    autogen-core's `execute_tool`; a framework's tool span, the MCP client span and the MCP
    server span of one `tools/call`) or one of its lifecycle events (BeeAI's `error`); an
    MCP span merges into the tool span above it whatever its name (MCP adapters prefix
    names). The child's fields complete the parent's, a failure on either is the call's.
    Parent cycles and self-parents end the walk."""
    by_span = {piece.view.span_id: index for index, piece in enumerate(pieces)}
    merged_into: dict[int, int] = {}
    parents: dict[str, str] | None = None
    seen_names: set[str] = set()
    repeated: set[str] = set()  # only a repeated name or an MCP span can merge: walk for those
    for piece in pieces:
        (repeated if piece.name in seen_names else seen_names).add(piece.name)
    for index, piece in enumerate(pieces):
        parent_id = piece.view.parent_span_id
        if not parent_id:
            continue
        call = piece.call
        parent_index = by_span.get(parent_id)
        mcp = (call.provenance or {}).get("name") == MCP_SPAN
        if parent_index is None and (mcp or call.name in repeated or call.name in LIFECYCLE_NAMES):
            if parents is None:
                parents = _parent_map(others)
            parent_index = _tool_ancestor(parent_id, by_span, parents)
        while parent_index is not None and parent_index in merged_into:
            parent_index = merged_into[parent_index]
        if parent_index is None or parent_index == index:
            continue
        outer = pieces[parent_index]
        parent = outer.call
        if not _same_call(parent, call, mcp=mcp):
            continue
        _complete(parent, call)
        if outer.needs and parent.id and outer.bare is None and parent.arguments:
            outer.needs = False
        elif outer.needs:
            outer.id = parent.id
        merged_into[index] = parent_index
    return [piece for index, piece in enumerate(pieces) if index not in merged_into]


def _same_call(parent: ToolCall, child: ToolCall, *, mcp: bool) -> bool:
    """Whether a tool span below `parent`'s is the same call: an MCP span of it, or one
    under the same id or none, named after the same tool or after a lifecycle event."""
    if mcp:
        return True
    if child.id and parent.id and child.id != parent.id:
        return False  # an id of its own: a call the tool made
    return child.name == parent.name or child.name in LIFECYCLE_NAMES


def _parent_map(spans: list[Any]) -> dict[str, str]:
    """span id -> parent span id of the turn's other spans (rows or views)."""
    parents: dict[str, str] = {}
    for span in spans:
        if type(span) is dict:
            span_id, parent_id = span.get("span_id"), span.get("parent_span_id")
        else:
            span_id = getattr(span, "span_id", None)
            parent_id = getattr(span, "parent_span_id", None)
        if type(span_id) is str and type(parent_id) is str and parent_id:
            parents[span_id.lower()] = parent_id.lower()
    return parents


def _tool_ancestor(
    span_id: str, by_span: dict[str, int], parents: dict[str, str], *, depth: int = 16
) -> int | None:
    """The nearest tool call among `span_id` and its ancestors (cycles tolerated)."""
    seen: set[str] = set()
    while span_id and span_id not in seen and depth > 0:
        found = by_span.get(span_id)
        if found is not None:
            return found
        seen.add(span_id)
        span_id = parents.get(span_id, "")
        depth -= 1
    return None


def _complete(parent: ToolCall, child: ToolCall) -> None:
    """Fill `parent`'s missing fields from `child` (the same call seen by a second
    instrumentation: a nested tool span, an MCP client or server span), provenance too."""
    provenance = parent.provenance if parent.provenance is not None else {}
    taken = child.provenance or {}
    if not parent.id and child.id:
        parent.id = child.id
        provenance["id"] = taken.get("id", TOOL_SPAN)
    if not parent.arguments and child.arguments:
        parent.arguments = child.arguments
        provenance["arguments"] = taken.get("arguments", TOOL_SPAN)
    if not parent.error and child.error:
        parent.error = child.error
        provenance["error"] = taken.get("error", TOOL_SPAN)
        provenance.pop("result", None)
    if parent.error:
        parent.result = None
    elif not parent.result and child.result:
        parent.result = child.result
        provenance["result"] = taken.get("result", TOOL_SPAN)
    parent.provenance = provenance
