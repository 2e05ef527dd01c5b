"""Tool progress an A2A agent streams in its working-state status updates (SPEC §8, seed
`004_4cbcb6d3e23e5a59.txt`): tool evidence of the turn, source `a2a_status`.

Agents built on that base class announce each call and its outcome in a
`TaskStatusUpdateEvent`'s message: structured, as a `tool_call` {name, args, id} or
`tool_result` {name, status: success | error} object (in the message metadata or a data
part), or as text only: "🔧 Calling tool: **name**", "✅ Tool **name** completed",
"❌ Tool **name** failed". A result pairs with its call by id, else with the earliest
open call of its name; a result with no call is a call known from its result alone.
Pure functions over the JSON form of A2A objects (camelCase, as `MessageToDict` gives).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tracesim.schemas import ToolCall, ToolCallSource

__all__ = ["StatusToolProgress"]

_CALLING = re.compile(r"Calling tool:\s*\*\*(?P<name>[^*]+)\*\*")
_OUTCOME = re.compile(r"Tool\s+\*\*(?P<name>[^*]+)\*\*\s+(?P<outcome>completed|failed)")
_FAILED = frozenset(("error", "failed", "failure"))


def _objects(message: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """`key` objects in the message's metadata and in its data parts."""
    found = []
    metadata = message.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get(key), Mapping):
        found.append(metadata[key])
    for part in message.get("parts") or ():
        data = part.get("data") if isinstance(part, Mapping) else None
        if isinstance(data, Mapping) and "data" in data and isinstance(data["data"], Mapping):
            data = data["data"]  # proto JSON nests a DataPart's struct under `data`
        if isinstance(data, Mapping) and isinstance(data.get(key), Mapping):
            found.append(data[key])
    return found


def _text(message: Mapping[str, Any]) -> str:
    return "\n".join(
        part["text"]
        for part in message.get("parts") or ()
        if isinstance(part, Mapping) and isinstance(part.get("text"), str)
    )


@dataclass
class StatusToolProgress:
    """One turn's tool calls as status updates announced them, in announcement order."""

    calls: list[ToolCall] = field(default_factory=list)
    _open: list[ToolCall] = field(default_factory=list)

    def on_status_message(self, message: Any) -> None:
        """Read one status update's message (a dict; anything else is ignored)."""
        if not isinstance(message, Mapping):
            return
        structured_call = _objects(message, "tool_call")
        structured_result = _objects(message, "tool_result")
        for entry in structured_call:
            self._call(
                entry.get("name"), entry.get("args", entry.get("arguments")), entry.get("id")
            )
        for entry in structured_result:
            status = str(entry.get("status") or "").lower()
            self._result(entry.get("name"), entry.get("id"), failed=status in _FAILED)
        if structured_call or structured_result:
            return
        text = _text(message)
        for match in _CALLING.finditer(text):
            self._call(match["name"].strip(), None, None)
        for match in _OUTCOME.finditer(text):
            self._result(match["name"].strip(), None, failed=match["outcome"] == "failed")

    def _call(self, name: Any, arguments: Any, call_id: Any) -> None:
        if not isinstance(name, str) or not name:
            return
        call = ToolCall(
            id=str(call_id) if call_id else "",
            name=name,
            arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
            source=ToolCallSource.A2A_STATUS,
        )
        self.calls.append(call)
        self._open.append(call)

    def _result(self, name: Any, call_id: Any, *, failed: bool) -> None:
        if not isinstance(name, str) or not name:
            return
        call = next((c for c in self._open if call_id and c.id == str(call_id)), None)
        if call is None:
            call = next((c for c in self._open if c.name == name), None)
        if call is None:  # known from its result alone: still a call
            self._call(name, None, call_id)
            call = self._open[-1]
        self._open.remove(call)
        if failed:
            call.error = f"tool {name} failed (A2A status update)"
