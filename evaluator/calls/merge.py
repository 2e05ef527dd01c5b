"""Merging explicit and traced tool calls of one turn (SPEC §6).

An agent may report its tool calls itself (agent_response, a2a_protocol,
chat_completions) and also be traced. Explicit calls win; each absorbs at
most one traced call:

1. the first unabsorbed traced call with the same non-empty id, else
2. the first unabsorbed traced call with the same name and canonically
   equal arguments (see `evaluator.calls.canonical`), skipping traced calls
   whose id is the id of another explicit call (they belong to that one).

The absorbed traced call fills what the explicit call lacks (id when empty,
result, error, span_id, start_time, duration_ms, group) and is not emitted
again: an explicit call's own `group` wins, else it takes its twin's, so a
parallel batch seen only in the trace still groups the reported calls.
Output: the explicit calls in their own order, then the traced calls left
over in start-time order (unknown times last, stable otherwise). Genuine
repeats stay: two identical explicit calls absorb two traced calls, one
each, and a third identical traced call is emitted on its own.

"Also traced" is visible on the result: an explicit call with `span_id`
set was matched to a span (the pipeline derives `tool_calls.traced` from
it). Inputs are never mutated.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from tracesim.evaluator.calls.canonical import args_equal
from tracesim.schemas import ToolCall

__all__ = ["merge_tool_calls"]

_FILLED = ("result", "error", "span_id", "start_time", "duration_ms", "group")
_PROVENANCE_FIELDS = ("id", "arguments", "result", "error")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _absorb(explicit: ToolCall, traced: ToolCall) -> ToolCall:
    update = {
        field: getattr(traced, field)
        for field in _FILLED
        if getattr(explicit, field) is None and getattr(traced, field) is not None
    }
    if not explicit.id and traced.id:
        update["id"] = traced.id
    # provenance: the agent's own fields, then what the traced twin filled; a field both
    # report differently is a conflict (the explicit value is kept, the conflict recorded)
    if (
        not update
        and args_equal(explicit.arguments, traced.arguments)
        and (explicit.result == traced.result or not (explicit.result and traced.result))
    ):
        return explicit  # nothing filled, nothing disagrees: the agent's call as it is
    taken = traced.provenance or {}
    provenance = {f: "explicit" for f in _PROVENANCE_FIELDS if getattr(explicit, f)}
    for field in _PROVENANCE_FIELDS:
        if field in update:
            provenance[field] = taken.get(field, "tool_span")
    conflicts = [
        field
        for field, same in (
            ("arguments", args_equal(explicit.arguments, traced.arguments)),
            ("result", explicit.result == traced.result),
        )
        if not same and getattr(explicit, field) and getattr(traced, field)
    ]
    if conflicts:
        provenance["conflicts"] = ",".join(conflicts)
    update["provenance"] = provenance
    return explicit.model_copy(update=update)


def _time_key(call: ToolCall) -> tuple[bool, float]:
    start = call.start_time
    if start is None:
        return (True, 0.0)
    if start.tzinfo is None:
        start = start.replace(tzinfo=timezone.utc)
    return (False, (start - _EPOCH).total_seconds())


def merge_tool_calls(explicit: Sequence[ToolCall], traced: Sequence[ToolCall]) -> list[ToolCall]:
    """Explicit calls (each absorbing at most one traced twin), then leftover traced calls."""
    if not traced:
        return list(explicit)
    if not explicit:
        return sorted(traced, key=_time_key)
    free = [True] * len(traced)
    by_id: dict[str, list[int]] = {}
    by_name: dict[str, list[int]] = {}
    for index, call in enumerate(traced):
        if call.id:
            by_id.setdefault(call.id, []).append(index)
        by_name.setdefault(call.name, []).append(index)

    # A traced call whose id names another explicit call is that call's twin:
    # it is not up for grabs by signature.
    explicit_ids = {call.id for call in explicit if call.id}

    def take(
        candidates: list[int] | None, *, own_id: str = "", arguments: dict | None = None
    ) -> int | None:
        """The first free candidate not claimed by another explicit call's id (and, given
        `arguments`, with canonically equal arguments: `args_equal` is that comparison
        without building the canonical forms)."""
        for index in candidates or ():
            twin = traced[index]
            traced_id = twin.id
            if not free[index] or (traced_id in explicit_ids and traced_id != own_id):
                continue
            if arguments is not None and not args_equal(arguments, twin.arguments):
                continue
            free[index] = False
            return index
        return None

    merged: list[ToolCall] = []
    for call in explicit:
        index = take(by_id.get(call.id), own_id=call.id) if call.id else None
        if index is None:
            index = take(by_name.get(call.name), own_id=call.id, arguments=call.arguments or {})
        merged.append(call if index is None else _absorb(call, traced[index]))
    leftovers = [call for index, call in enumerate(traced) if free[index]]
    merged.extend(sorted(leftovers, key=_time_key))
    return merged
