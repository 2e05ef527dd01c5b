"""The tool calls a model asked for, in every message format read (SPEC §5).

One attribute map (a span's, an event's or a log record's) in, raw requests out
(`{id, name, arguments}`, arguments as recorded):
- `gen_ai.output.messages`: JSON list of `{role, parts: [{type: "tool_call",
  id, name, arguments}]}` (OTel GenAI); OpenAI-style `tool_calls` on a
  message are read too;
- OpenInference: `llm.output_messages.{i}.message.tool_calls.{j}.tool_call.id`,
  `....tool_call.function.name`, `....tool_call.function.arguments`;
- legacy indexed: `gen_ai.completion.{i}.tool_calls.{j}.id|name|arguments`, and the older
  `gen_ai.completion.{i}.function_call.name|arguments` (no id);
- Google ADK: `gcp.vertex.agent.llm_response` (`content.parts[].function_call`);
- Haystack: `haystack.agent.step.llm.output` (`replies[].content[].tool_call`);
- MLflow: a model span's `mlflow.spanOutputs` holding a chat completion
  (`choices[].message.tool_calls`);
- a Responses API `function_call` item's own id (`fc_...`) is not a call id (only its
  `call_id` is);
- OpenLLMetry chain spans: `traceloop.entity.output` holding LangChain AI messages
  (`kwargs.tool_calls` {name, args, id}); OpenInference's LangChain LLMResult;
- Logfire's OpenAI Agents Responses spans: `response` (`output[]` function_call items);
- a `gen_ai.choice` event's OpenAI-style `message` / `tool_calls`.

`pairing.recover` applies them to a span and its events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from tracesim.evaluator.extract.span import json_or_none
from tracesim.schemas import ADK, GENAI, MLFLOW, OPENINFERENCE
from tracesim.schemas.ascii_index import ascii_index
from tracesim.schemas.conventions import (
    HAYSTACK,
    LANGCHAIN_MESSAGE,
    LANGFUSE,
    LOGFIRE,
    TRACELOOP,
)

__all__ = [
    "LEGACY_FIELDS",
    "LEGACY_TOOL_CALLS",
    "OI_FIELDS",
    "OI_TOOL_CALLS",
    "REQUEST_MARKERS",
    "from_indexed",
    "from_messages",
    "requests_in",
]

REQUEST_MARKERS = (
    f'"{GENAI.OUTPUT_MESSAGES}"',
    f'"{OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX}',
    f'"{GENAI.COMPLETION_PREFIX}',
    f'"{ADK.LLM_RESPONSE}"',
    f'"{HAYSTACK.LLM_OUTPUT}"',
    f'"{MLFLOW.SPAN_OUTPUTS}"',
    f'"{LANGFUSE.OUTPUT}"',
    f'"{TRACELOOP.ENTITY_OUTPUT}"',
    f'"{LOGFIRE.AGENTS_RESPONSE}"',
)
"""Attribute keys (as they occur in stored JSON text) that may hold a request."""

OI_TOOL_CALLS = ".message.tool_calls."
OI_FIELDS = {
    "tool_call.id": "id",
    "tool_call.function.name": "name",
    "tool_call.function.arguments": "arguments",
}
LEGACY_TOOL_CALLS = ".tool_calls."
LEGACY_FIELDS = {"id": "id", "name": "name", "arguments": "arguments"}
"""Indexed-attribute tool calls (OpenInference's flattened messages, legacy GenAI prompts and
completions): the key between index and field, and field -> ToolCall field; `history` reads
the same shapes in model inputs."""
_FUNCTION_CALL = ".function_call."
_INDEXED_PREFIXES = (OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX, GENAI.COMPLETION_PREFIX)


def from_messages(value: Any) -> Iterable[dict[str, Any]]:
    messages = orjson.loads(value) if isinstance(value, (str, bytes)) else value
    if not isinstance(messages, list):
        return
    for message in messages:
        if not (type(message) is dict or isinstance(message, Mapping)):
            continue
        for part in message.get("parts") or ():
            if (type(part) is dict or isinstance(part, Mapping)) and part.get(
                "type"
            ) == GENAI.PART_TOOL_CALL:
                call = {k: part.get(k) for k in ("id", "name", "arguments")}
                call["id"] = part.get(GENAI.RESPONSES_CALL_ID) or call["id"]
                yield call
        for call in message.get("tool_calls") or ():  # OpenAI-style message
            if type(call) is dict or isinstance(call, Mapping):
                function = call.get("function") or {}
                yield {
                    "id": call.get("id"),
                    "name": function.get("name", call.get("name")),
                    "arguments": function.get("arguments", call.get("arguments")),
                }


def _from_adk_response(value: Any) -> Iterable[dict[str, Any]]:
    """ADK's LlmResponse JSON: `content.parts[].function_call` {id, name, args}."""
    response = orjson.loads(value) if isinstance(value, (str, bytes)) else value
    content = (
        response.get("content")
        if (type(response) is dict or isinstance(response, Mapping))
        else None
    )
    for part in (
        content.get("parts") if (type(content) is dict or isinstance(content, Mapping)) else None
    ) or ():
        call = (
            part.get("function_call") if (type(part) is dict or isinstance(part, Mapping)) else None
        )
        if type(call) is dict or isinstance(call, Mapping):
            yield {"id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}


def _from_langchain_messages(value: Any) -> Iterable[dict[str, Any]]:
    """LangChain AI messages (serialised constructors, alone, listed or under `messages`, as
    OpenLLMetry's chain spans output them): their `tool_calls` {name, args, id}."""
    if (type(value) is dict or isinstance(value, Mapping)) and isinstance(
        value.get("messages"), list
    ):
        value = value["messages"]
    for message in value if isinstance(value, list) else [value]:
        if not (type(message) is dict or isinstance(message, Mapping)):
            continue
        if message.get(LANGCHAIN_MESSAGE.LC_MARKER) is not None:
            message = message.get(LANGCHAIN_MESSAGE.KWARGS)
            if not (type(message) is dict or isinstance(message, Mapping)):
                continue
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            for call in calls:
                if (type(call) is dict or isinstance(call, Mapping)) and "args" in call:
                    yield {
                        "id": call.get("id"),
                        "name": call.get("name"),
                        "arguments": call["args"],
                    }
                elif type(call) is dict or isinstance(call, Mapping):
                    yield from from_messages([{"tool_calls": [call]}])
            continue
        extra = message.get("additional_kwargs")
        if (type(extra) is dict or isinstance(extra, Mapping)) and isinstance(
            extra.get("tool_calls"), list
        ):
            yield from from_messages([{"tool_calls": extra["tool_calls"]}])


def _from_generations(value: Any) -> Iterable[dict[str, Any]]:
    """A LangChain LLMResult (`{"generations": [[{"text", "message": AIMessage}]]}`), as
    OpenInference's LangChain instrumentations (Python and JS) put it in an LLM span's
    `output.value`: its messages' tool calls, with the ids `llm.output_messages` may lack."""
    if not (type(value) is dict or isinstance(value, Mapping)) or not isinstance(
        value.get("generations"), list
    ):
        return
    messages = []
    for group in value["generations"]:
        for generation in group if isinstance(group, list) else [group]:
            if (type(generation) is dict or isinstance(generation, Mapping)) and isinstance(
                generation.get("message"), Mapping
            ):
                messages.append(generation["message"])
    yield from _from_langchain_messages(messages)


def _from_responses_object(value: Any) -> Iterable[dict[str, Any]]:
    """A Responses API object (Logfire's OpenAI Agents spans): its `output[]` function_call
    items {call_id, name, arguments} (the item `id` is not a call id)."""
    if (
        not (type(value) is dict or isinstance(value, Mapping))
        or value.get("object") != LOGFIRE.RESPONSE_OBJECT
    ):
        return
    for item in value.get("output") or ():
        if (type(item) is dict or isinstance(item, Mapping)) and item.get(
            "type"
        ) == "function_call":
            yield {
                "id": item.get(GENAI.RESPONSES_CALL_ID),
                "name": item.get("name"),
                "arguments": item.get("arguments"),
            }


def requests_in(attributes: Mapping[str, Any], *, choice: bool = False) -> list[dict[str, Any]]:
    """Requested calls in one attribute map (span or event; `choice`: a `gen_ai.choice`
    event or log record, whose `message` / `tool_calls` are the model's answer)."""
    raw: list[dict[str, Any]] = []
    output_messages = attributes.get(GENAI.OUTPUT_MESSAGES)
    if output_messages:
        raw.extend(from_messages(output_messages))
    indexed = {key: attributes[key] for key in attributes if key.startswith(_INDEXED_PREFIXES)}
    if indexed:  # most spans have no indexed attributes at all: skip both scans
        raw.extend(
            from_indexed(
                indexed, OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX, OI_TOOL_CALLS, OI_FIELDS
            )
        )
        raw.extend(
            from_indexed(indexed, GENAI.COMPLETION_PREFIX, LEGACY_TOOL_CALLS, LEGACY_FIELDS)
        )
        raw.extend(_from_function_calls(indexed))
    adk = attributes.get(ADK.LLM_RESPONSE)
    if adk and adk != "{}":
        raw.extend(_from_adk_response(adk))
    haystack = attributes.get(HAYSTACK.LLM_OUTPUT)
    haystack = json_or_none(haystack) if haystack is not None else None
    if type(haystack) is dict or isinstance(haystack, Mapping):
        for reply in haystack.get("replies") or ():
            for part in (
                reply.get("content")
                if (type(reply) is dict or isinstance(reply, Mapping))
                else None
            ) or ():
                call = (
                    part.get("tool_call")
                    if (type(part) is dict or isinstance(part, Mapping))
                    else None
                )
                if type(call) is dict or isinstance(call, Mapping):
                    raw.append(
                        {
                            "id": call.get("id"),
                            "name": call.get("tool_name"),
                            "arguments": call.get("arguments"),
                        }
                    )
    generation = attributes.get(LANGFUSE.OUTPUT)
    generation = json_or_none(generation) if generation is not None else None
    if (type(generation) is dict or isinstance(generation, Mapping)) and generation.get(
        "tool_calls"
    ):  # Langfuse generation
        raw.extend(from_messages([generation]))
    entity_output = attributes.get(TRACELOOP.ENTITY_OUTPUT)
    if isinstance(entity_output, str) and '"tool_calls"' in entity_output:
        raw.extend(_from_langchain_messages(json_or_none(entity_output)))
    output = attributes.get(OPENINFERENCE.OUTPUT_VALUE)
    if isinstance(output, str) and '"generations"' in output and '"tool_calls"' in output:
        raw.extend(_from_generations(json_or_none(output)))
    response = attributes.get(LOGFIRE.AGENTS_RESPONSE)
    if isinstance(response, str) and '"function_call"' in response:
        raw.extend(_from_responses_object(json_or_none(response)))
    completion = attributes.get(MLFLOW.SPAN_OUTPUTS)
    completion = json_or_none(completion) if completion is not None else None
    if (type(completion) is dict or isinstance(completion, Mapping)) and isinstance(
        completion.get("choices"), list
    ):
        messages = [
            c.get("message")
            for c in completion["choices"]
            if (type(c) is dict or isinstance(c, Mapping))
        ]
        raw.extend(
            from_messages([m for m in messages if (type(m) is dict or isinstance(m, Mapping))])
        )
    if not choice:
        return raw
    message = json_or_none(attributes.get("message"))
    if type(message) is dict or isinstance(
        message, Mapping
    ):  # {"index", "finish_reason", "message": {"tool_calls"}}
        raw.extend(from_messages([message]))
    tool_calls = json_or_none(attributes.get("tool_calls"))
    if isinstance(tool_calls, list):
        raw.extend(from_messages([{"tool_calls": tool_calls}]))
    return raw


def from_indexed(
    attributes: Mapping[str, Any], prefix: str, infix: str, fields: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Collect `{prefix}{i}{infix}{j}.{field}` attributes into ordered calls."""
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in attributes.items():
        if not key.startswith(prefix) or infix not in key:
            continue
        head, _, tail = key[len(prefix) :].partition(infix)
        index_j, _, field = tail.partition(".")
        target = fields.get(field)
        i, j = ascii_index(head), ascii_index(index_j)
        if target is None or i is None or j is None:
            continue
        calls.setdefault((i, j), {})[target] = value
    return [calls[k] for k in sorted(calls)]


def _from_function_calls(attributes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The legacy indexed convention's pre-`tool_calls` form,
    `gen_ai.completion.{i}.function_call.{name,arguments}` (LiteLLM's OTel callback): one
    id-less call per completion, paired with its answer by position and name."""
    calls: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if not key.startswith(GENAI.COMPLETION_PREFIX) or _FUNCTION_CALL not in key:
            continue
        head, _, field = key[len(GENAI.COMPLETION_PREFIX) :].partition(_FUNCTION_CALL)
        index = ascii_index(head)
        if index is not None and field in ("name", "arguments"):
            calls.setdefault(index, {"id": None})[field] = value
    return [calls[i] for i in sorted(calls)]
