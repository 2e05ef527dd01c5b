"""Genkit's own telemetry read as OTel GenAI spans (specific to Genkit; `conventions.GENKIT`).

Genkit (JS, Go) traces every action with `genkit:*` attributes and no GenAI name: a tool
action's arguments and JSON-encoded result, a model action's request and response JSON
with `toolRequest` / `toolResponse` parts. Read as GenAI (`execute_tool` and `chat` spans,
`gen_ai.input/output.messages` parts), every GenAI reader applies unchanged: calls from the
tool spans, their ids from the model's requests, answers from the next model input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from tracesim.evaluator.extract.json_text import json_or_none
from tracesim.schemas import GENAI
from tracesim.schemas.conventions import GENKIT

__all__ = ["MARKER", "genkit_as_genai", "genkit_usage"]

MARKER = f'"{GENKIT.SUBTYPE}"'
"""Text a stored row holds when it is a Genkit action span."""


def genkit_as_genai(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Genkit tool or model action span's attributes with their GenAI equivalents added
    (never replacing one the span has); any other span as it is."""
    subtype = attributes.get(GENKIT.SUBTYPE)
    if subtype == GENKIT.SUBTYPE_TOOL:
        merged = dict(attributes)
        merged.setdefault(GENAI.OPERATION_NAME, GENAI.OP_EXECUTE_TOOL)
        if attributes.get(GENKIT.NAME):
            merged.setdefault(GENAI.TOOL_NAME, attributes[GENKIT.NAME])
        if attributes.get(GENKIT.INPUT) is not None:
            merged.setdefault(GENAI.TOOL_CALL_ARGUMENTS, attributes[GENKIT.INPUT])
        output = attributes.get(GENKIT.OUTPUT)
        if output is not None:
            decoded = json_or_none(output)  # the result, JSON-encoded: a string result is quoted
            merged.setdefault(
                GENAI.TOOL_CALL_RESULT, decoded if isinstance(decoded, str) else output
            )
        return merged
    if subtype != GENKIT.SUBTYPE_MODEL:
        return attributes
    merged = dict(attributes)
    merged.setdefault(GENAI.OPERATION_NAME, GENAI.OP_CHAT)
    if attributes.get(GENKIT.NAME):
        merged.setdefault(GENAI.REQUEST_MODEL, attributes[GENKIT.NAME])
    request = json_or_none(attributes.get(GENKIT.INPUT))
    if isinstance(request, Mapping) and isinstance(request.get(GENKIT.MESSAGES), list):
        messages = [_message(m) for m in request[GENKIT.MESSAGES] if isinstance(m, Mapping)]
        merged.setdefault(GENAI.INPUT_MESSAGES, orjson.dumps(messages).decode())
    response = json_or_none(attributes.get(GENKIT.OUTPUT))
    if isinstance(response, Mapping):
        message = response.get(GENKIT.MESSAGE)
        if isinstance(message, Mapping):
            out = _message(message)
            if response.get(GENKIT.FINISH_REASON):
                out["finish_reason"] = response[GENKIT.FINISH_REASON]
            merged.setdefault(GENAI.OUTPUT_MESSAGES, orjson.dumps([out]).decode())
        tokens_in, tokens_out = genkit_usage(response)
        if tokens_in is not None:
            merged.setdefault(GENAI.USAGE_INPUT_TOKENS, tokens_in)
        if tokens_out is not None:
            merged.setdefault(GENAI.USAGE_OUTPUT_TOKENS, tokens_out)
    return merged


def genkit_usage(response: Any) -> tuple[int | None, int | None]:
    """(input, output) tokens of a model action's response (parsed `genkit:output`)."""
    usage = response.get(GENKIT.USAGE) if isinstance(response, Mapping) else None
    if not isinstance(usage, Mapping):
        return None, None
    return _int(usage.get(GENKIT.INPUT_TOKENS)), _int(usage.get(GENKIT.OUTPUT_TOKENS))


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, float) and value.is_integer() else None


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A Genkit message as a GenAI one: role, and parts text / tool_call /
    tool_call_response."""
    role = message.get("role")
    role = GENKIT.ROLES.get(role, role) if isinstance(role, str) else "user"
    parts: list[dict[str, Any]] = []
    content = message.get(GENKIT.CONTENT)
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, Mapping):
            continue
        request, answer = part.get(GENKIT.TOOL_REQUEST), part.get(GENKIT.TOOL_RESPONSE)
        if isinstance(request, Mapping):
            parts.append(
                {
                    "type": GENAI.PART_TOOL_CALL,
                    "id": request.get(GENKIT.REF),
                    "name": request.get("name"),
                    "arguments": request.get("input"),
                }
            )
        elif isinstance(answer, Mapping):
            parts.append(
                {
                    "type": GENAI.PART_TOOL_CALL_RESPONSE,
                    "id": answer.get(GENKIT.REF),
                    "name": answer.get("name"),
                    "response": answer.get("output"),
                }
            )
        elif isinstance(part.get(GENKIT.TEXT), str):
            parts.append({"type": "text", "content": part[GENKIT.TEXT]})
    return {"role": role, "parts": parts}
