"""A2A tool-call capture (arksim's extension, SPEC §8): tool calls from artifacts.

Pure functions over the JSON form of A2A objects (what
`google.protobuf.json_format.MessageToDict` gives: camelCase keys; the
snake_case spelling is accepted too), so they are tested on hand-built dicts.

An artifact counts only when its `extensions` list the extension URI; its
`metadata["<URI>/tool_calls"]` is a list of entries. Per entry: non-objects,
a missing or non-string `name`, and non-object `arguments` (null included)
are skipped;
non-string `result`/`error` are JSON-encoded; `id` is kept ("" if absent);
the source is `a2a_protocol`.

`CaptureAccumulator` applies the streaming rules: artifact updates
accumulate (A2A append semantics: `append` extends the artifact with the same
id, otherwise the artifact is (re)placed), status updates change no tool
call, and a `Task` (snapshot) replaces everything accumulated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI, AgentResponse, ToolCall, ToolCallSource
from tracesim.simulator.connectors.a2a_status import StatusToolProgress

__all__ = [
    "TOOL_CALLS_METADATA_KEY",
    "CaptureAccumulator",
    "artifact_text",
    "normalize_struct_numbers",
    "parse_tool_call_entries",
    "tool_calls_from_artifact",
]

TOOL_CALLS_METADATA_KEY = f"{A2A_TOOL_CALL_EXTENSION_URI}/tool_calls"
"""The artifact metadata key holding the tool-call list."""


def _field(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    return obj[camel] if camel in obj else obj.get(snake)


def normalize_struct_numbers(value: Any) -> Any:
    """Turn integral floats back into ints, recursively.

    A2A metadata travels as a protobuf `Struct`, where every number is a
    double: `{"quantity": 2}` comes back as `2.0`. Integral values are far
    more often ints in tool arguments, so they are restored as ints.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: normalize_struct_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalize_struct_numbers(item) for item in value]
    return value


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=False, default=str)


def parse_tool_call_entries(entries: Any) -> list[ToolCall]:
    """Validate the list stored under TOOL_CALLS_METADATA_KEY; bad entries are skipped."""
    if not isinstance(entries, list):
        return []
    calls: list[ToolCall] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            continue
        arguments = entry.get("arguments", {})  # absent: no arguments; null: not an object
        if not isinstance(arguments, dict):
            continue
        call_id = entry.get("id")
        calls.append(
            ToolCall(
                id=call_id if isinstance(call_id, str) else "" if call_id is None else str(call_id),
                name=name,
                arguments=arguments,
                result=_as_text(entry.get("result")),
                error=_as_text(entry.get("error")),
                source=ToolCallSource.A2A_PROTOCOL,
            )
        )
    return calls


def tool_calls_from_artifact(artifact: Mapping[str, Any]) -> list[ToolCall]:
    """Tool calls of one artifact; none unless its `extensions` list the URI."""
    extensions = artifact.get("extensions") or []
    if not isinstance(extensions, list) or A2A_TOOL_CALL_EXTENSION_URI not in extensions:
        return []
    metadata = artifact.get("metadata") or {}
    if not isinstance(metadata, dict):
        return []
    return parse_tool_call_entries(metadata.get(TOOL_CALLS_METADATA_KEY))


def _parts_text(parts: Any) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [
        part["text"]
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]


def _chunk_text(artifact: Mapping[str, Any]) -> list[str]:
    """One event's text as a one-item list, or [] when it has none."""
    text = artifact_text(artifact)
    return [text] if text else []


def artifact_text(artifact: Mapping[str, Any]) -> str:
    """The artifact's text parts, concatenated.

    No separator: appended chunks become separate parts of one artifact
    (server side and in snapshots), and they are fragments of one text, so
    a streamed and a non-streamed answer read the same.
    """
    return "".join(_parts_text(artifact.get("parts")))


@dataclass
class _Artifact:
    parts: list[str] = field(default_factory=list)
    """Text of each chunk received (streamed chunks concatenate without separator)."""
    calls: list[ToolCall] = field(default_factory=list)


@dataclass
class CaptureAccumulator:
    """One turn's reply, built from the events of a `SendMessage` (streamed or not)."""

    artifacts: dict[str, _Artifact] = field(default_factory=dict)
    status_text: str = ""
    message_text: str = ""
    context_id: str = ""
    task_id: str = ""
    task_state: str = ""
    progress: StatusToolProgress = field(default_factory=StatusToolProgress)
    """Tool calls announced by status updates (used when no artifact reports calls)."""

    def on_task(self, task: Mapping[str, Any]) -> None:
        """A Task snapshot: authoritative, it replaces what was accumulated."""
        self.artifacts = {}
        self._ids(task)
        for index, artifact in enumerate(task.get("artifacts") or []):
            if isinstance(artifact, dict):
                key = _field(artifact, "artifactId", "artifact_id") or f"#{index}"
                self.artifacts[key] = _Artifact(
                    parts=_chunk_text(artifact), calls=tool_calls_from_artifact(artifact)
                )
        self._status(task.get("status"))

    def on_artifact_update(self, event: Mapping[str, Any]) -> None:
        """An artifact chunk: appended to its artifact when `append`, else (re)placing it."""
        self._ids(event)
        artifact = event.get("artifact")
        if not isinstance(artifact, dict):
            return
        key = _field(artifact, "artifactId", "artifact_id") or f"#{len(self.artifacts)}"
        chunk = _Artifact(parts=_chunk_text(artifact), calls=tool_calls_from_artifact(artifact))
        current = self.artifacts.get(key)
        if event.get("append") and current is not None:
            current.parts.extend(chunk.parts)
            current.calls.extend(chunk.calls)
        else:
            self.artifacts[key] = chunk

    def on_status_update(self, event: Mapping[str, Any]) -> None:
        """A status change: keeps its message text as a fallback reply; artifact tool calls
        unchanged; tool progress it announces is recorded (`a2a_status`)."""
        self._ids(event)
        self._status(event.get("status"))
        status = event.get("status")
        if isinstance(status, dict):
            self.progress.on_status_message(status.get("message"))

    def on_message(self, message: Mapping[str, Any]) -> None:
        """A direct Message reply (no task)."""
        self._ids(message)
        self.message_text = "\n".join(_parts_text(message.get("parts")))

    def _ids(self, obj: Mapping[str, Any]) -> None:
        context_id = _field(obj, "contextId", "context_id")
        task_id = (
            obj.get("id") if "status" in obj and "id" in obj else _field(obj, "taskId", "task_id")
        )
        if isinstance(context_id, str) and context_id:
            self.context_id = context_id
        if isinstance(task_id, str) and task_id:
            self.task_id = task_id

    def _status(self, status: Any) -> None:
        if not isinstance(status, dict):
            return
        if isinstance(status.get("state"), str):
            self.task_state = status["state"]
        message = status.get("message")
        if isinstance(message, dict):
            text = "\n".join(_parts_text(message.get("parts")))
            if text:
                self.status_text = text

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Captured calls, artifact by artifact in first-seen order; without any, the calls
        status updates announced (the artifact extension is the fuller report)."""
        calls = [call for artifact in self.artifacts.values() for call in artifact.calls]
        return calls or list(self.progress.calls)

    @property
    def text(self) -> str:
        """The reply: artifact text, else the last status message, else a direct message."""
        artifact_texts = ["".join(a.parts) for a in self.artifacts.values() if a.parts]
        return "\n".join(artifact_texts) or self.status_text or self.message_text

    def response(self) -> AgentResponse:
        """The turn's AgentResponse."""
        return AgentResponse(content=self.text, tool_calls=self.tool_calls)
