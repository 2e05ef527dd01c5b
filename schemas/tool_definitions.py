"""Tool definitions in every shape tracesim reads, normalised to a name and a JSON schema.

The tools an agent may call are described in several shapes; each becomes a
`ToolDefinition` (name, description, JSON schema of its arguments):
- OpenAI function schemas: `{"type": "function", "function": {"name", "description",
  "parameters"}}` (chat completions) or the flat `{"type": "function", "name",
  "parameters"}` (Responses API, `gen_ai.tool.definitions`);
- MCP tools: `{"name", "description", "inputSchema"}` (`input_schema` too);
- A2E `ToolDefinition`: `{"name", "description", "input_parameters": [ToolParameter]}`
  where a ToolParameter is `{"name", "type", "description", "required", "enum",
  "properties": [ToolParameter]}` (nested objects).

Pure data conversion: the scenario loader, the validity check and `tracesim
mcp-mock` read tool definitions through `tool_definitions()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolDefinition", "ToolDefinitionError", "tool_definition", "tool_definitions"]

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class ToolDefinitionError(ValueError):
    """A tool definition has no recognisable shape; the message says which field."""


@dataclass(frozen=True)
class ToolDefinition:
    """One tool: its name and the JSON schema its arguments must satisfy."""

    name: str
    """The tool's name, as the agent calls it."""
    description: str = ""
    """What the tool does (served by `tracesim mcp-mock`)."""
    input_schema: dict[str, Any] = field(default_factory=lambda: dict(_EMPTY_SCHEMA))
    """JSON schema of the arguments object."""
    shape: str = "mcp"
    """Where it came from: `openai`, `mcp` or `a2e`."""


def _a2e_parameters(parameters: Any, where: str) -> dict[str, Any]:
    """A2E ToolParameter list -> a JSON object schema (nested `properties` recursively)."""
    if not isinstance(parameters, list):
        raise ToolDefinitionError(f"{where}: must be a list of parameters")
    properties: dict[str, Any] = {}
    required: list[str] = []
    for i, param in enumerate(parameters):
        if not isinstance(param, Mapping) or not isinstance(param.get("name"), str):
            raise ToolDefinitionError(f"{where}[{i}]: a parameter needs a string 'name'")
        schema: dict[str, Any] = {}
        if param.get("type"):
            schema["type"] = param["type"]
        if param.get("description"):
            schema["description"] = param["description"]
        if param.get("enum") is not None:
            schema["enum"] = list(param["enum"])
        if param.get("properties"):
            nested = _a2e_parameters(param["properties"], f"{where}[{i}].properties")
            schema.update({k: v for k, v in nested.items() if k != "type"})
            schema.setdefault("type", "object")
        properties[param["name"]] = schema
        if param.get("required"):
            required.append(param["name"])
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def _schema(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return dict(_EMPTY_SCHEMA)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ToolDefinitionError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(value, Mapping):
        raise ToolDefinitionError(f"{where}: must be a JSON schema object")
    return dict(value)


def tool_definition(raw: Any, *, where: str = "tool") -> ToolDefinition:
    """One definition in any supported shape (see the module doc), or ToolDefinitionError."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise ToolDefinitionError(f"{where}: not a JSON object") from None
    if not isinstance(raw, Mapping):
        raise ToolDefinitionError(f"{where}: must be an object, got {type(raw).__name__}")
    if isinstance(raw.get("function"), Mapping):  # OpenAI chat-completions tool
        function = raw["function"]
        name = function.get("name")
        schema, shape = (
            _schema(function.get("parameters"), f"{where}.function.parameters"),
            "openai",
        )
        description = function.get("description") or ""
    else:
        name = raw.get("name")
        description = raw.get("description") or ""
        if "input_parameters" in raw:
            schema = _a2e_parameters(raw["input_parameters"], f"{where}.input_parameters")
            shape = "a2e"
        elif "inputSchema" in raw or "input_schema" in raw:
            key = "inputSchema" if "inputSchema" in raw else "input_schema"
            schema, shape = _schema(raw[key], f"{where}.{key}"), "mcp"
        else:
            schema = _schema(raw.get("parameters"), f"{where}.parameters")
            shape = "openai" if raw.get("type") == "function" or "parameters" in raw else "mcp"
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(f"{where}: a tool definition needs a non-empty 'name'")
    return ToolDefinition(name=name, description=str(description), input_schema=schema, shape=shape)


def tool_definitions(raw: Sequence[Any] | None, *, where: str = "tools") -> list[ToolDefinition]:
    """A list of definitions (a JSON string of one too); later duplicates of a name are ignored."""
    if raw is None:
        return []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise ToolDefinitionError(f"{where}: not a JSON list") from None
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, Sequence):
        raise ToolDefinitionError(f"{where}: must be a list of tool definitions")
    seen: dict[str, ToolDefinition] = {}
    for i, item in enumerate(raw):
        definition = tool_definition(item, where=f"{where}[{i}]")
        seen.setdefault(definition.name, definition)
    return list(seen.values())
