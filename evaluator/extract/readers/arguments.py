"""Reading a tool call's arguments (SPEC §5): which attribute holds them, in what order
of precedence, and how their text is parsed (JSON, then a Python literal), unwrapping the
envelopes frameworks put around them. `fields` reads the call's other fields.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from tracesim.evaluator.extract.readers.envelopes import (
    is_placeholder,
    mcp_call_arguments,
    unwrap_arguments,
)
from tracesim.schemas import ADK, GENAI, LOGFIRE, MLFLOW, OPENINFERENCE, TRACELOOP
from tracesim.schemas.conventions import (
    AI_SDK,
    ANY_AGENT,
    HAYSTACK,
    LANGFUSE,
    LANGSMITH,
    LLAMA_INDEX,
)

__all__ = [
    "ARGUMENT_KEYS",
    "coerce_arguments",
    "parse_arguments",
    "parse_text",
    "read_arguments",
    "tool_arguments",
]

ARGUMENT_KEYS = (
    GENAI.TOOL_CALL_ARGUMENTS,
    OPENINFERENCE.INPUT_VALUE,
    TRACELOOP.ENTITY_INPUT,  # unwrapped below: its `kwargs`
    ADK.TOOL_CALL_ARGS,
    LOGFIRE.TOOL_ARGUMENTS,
    MLFLOW.SPAN_INPUTS,
    AI_SDK.TOOL_CALL_ARGS,
    HAYSTACK.TOOL_INPUT,
    LANGSMITH.TOOL_INPUT,
    LLAMA_INDEX.TOOL_ARGUMENTS,
    LANGFUSE.INPUT,
    OPENINFERENCE.TOOL_CALL_FUNCTION_ARGUMENTS,  # arksim's documented tool-span convention
    ANY_AGENT.TOOL_ARGS,  # any-agent (specific: its 7 framework adapters share it)
)


def coerce_arguments(value: Any) -> dict[str, Any]:
    """Arguments as a dict: a dict as-is, None as {}, anything else as {"input": value}.

    Tools that take one positional value (a string, a list) still get a
    mapping, so metrics can compare them like any other arguments.
    """
    if type(value) is dict or isinstance(value, Mapping):
        for key in value:
            if type(key) is not str:
                return {k if type(k) is str else str(k): v for k, v in value.items()}
        return dict(value)
    if value is None:
        return {}
    if isinstance(value, tuple):
        value = list(value)
    return {"input": value}


_WRITABLE_DEPTH = 254
"""Deepest nesting orjson writes back (it refuses 255 levels and more); deeper text is kept."""


def parse_text(text: str | bytes) -> tuple[bool, Any]:
    """JSON first, then a Python literal (`"{'a': 1}"`); (False, None) if neither, or if it
    nests deeper than results can be written (the caller then keeps the raw text)."""
    if _may_nest_too_deep(text):
        return False, None
    try:
        return True, orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        return True, _json_like(ast.literal_eval(text.strip()))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _may_nest_too_deep(text: str | bytes) -> bool:
    """True when `text` nests brackets past `_WRITABLE_DEPTH` (a C-speed count first: only
    text with that many brackets is scanned)."""
    opening = ("{", "[") if isinstance(text, str) else (b"{", b"[")
    if text.count(opening[0]) + text.count(opening[1]) <= _WRITABLE_DEPTH:
        return False
    depth = 0
    quoted = escaped = False
    for char in text.decode("utf-8", "replace") if isinstance(text, bytes) else text:
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            quoted = True
        elif char == "{" or char == "[":
            depth += 1
            if depth > _WRITABLE_DEPTH:
                return True
        elif char == "}" or char == "]":
            depth -= 1
    return False


def _json_like(value: Any) -> Any:
    """Python literal -> JSON-like data: tuples and sets become lists, keys strings."""
    if isinstance(value, dict):
        return {str(k): _json_like(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_like(v) for v in value]
    return value


def parse_arguments(value: Any) -> dict[str, Any]:
    """Parse an arguments attribute: dict as-is, JSON text, then Python literal text.

    Text that is neither JSON nor a Python literal is kept as {"input": text}.
    """
    if isinstance(value, (str, bytes)):
        if not value.strip():
            return {}
        ok, parsed = parse_text(value)
        return coerce_arguments(parsed if ok else value)
    return coerce_arguments(value)


def _unwrap_traceloop_input(value: Any) -> dict[str, Any]:
    """OpenLLMetry's entity input: `{"args": [...], "kwargs": {...}}` -> kwargs.

    Positional args, when there are any, are kept under "args". LangChain
    tool spans instrumented by OpenLLMetry carry `{"inputs": {...},
    "input_str": ...}` instead: `inputs` wins, then `input_str`.
    """
    if isinstance(value, (str, bytes)):
        ok, parsed = parse_text(value) if value.strip() else (True, {})
        if not ok:
            return {"input": value}
        value = parsed
    if not (type(value) is dict or isinstance(value, Mapping)):
        return coerce_arguments(value)
    mcp = mcp_call_arguments(value)
    if mcp is not None:
        return coerce_arguments(mcp)  # an MCP tools/call envelope (OpenLLMetry's MCP spans)
    inputs = value.get("inputs")
    if type(inputs) is dict or isinstance(inputs, Mapping):
        return coerce_arguments(inputs)
    if "kwargs" in value or "args" in value:
        kwargs = value.get("kwargs")
        arguments = (
            coerce_arguments(kwargs)
            if (type(kwargs) is dict or isinstance(kwargs, Mapping))
            else {}
        )
        positional = value.get("args")
        if not arguments and isinstance(positional, list) and len(positional) == 1:
            ok, only = (
                parse_text(positional[0])
                if isinstance(positional[0], str)
                else (True, positional[0])
            )
            if ok and (type(only) is dict or isinstance(only, Mapping)):
                return coerce_arguments(only)  # LangChain.js: the tool's input, as JSON text
        if isinstance(positional, Sequence) and not isinstance(positional, str) and positional:
            arguments.setdefault("args", list(positional))
        return arguments
    if "input_str" in value:
        return parse_arguments(value["input_str"])
    return coerce_arguments(value)


def read_arguments(attributes: Mapping[str, Any]) -> tuple[dict[str, Any], bool, str]:
    """(arguments, whether the span's input was an object of arguments, envelope call id).

    gen_ai.tool.call.arguments > input.value > traceloop.entity.input (kwargs) > ADK >
    Logfire > MLflow span inputs; LangChain ToolCall and callback envelopes unwrapped.
    A bare value (a string) is kept as {"input": value} and flagged (as are arguments
    not recorded at all), so the caller may take them from the model's request instead. `tool.parameters` (a schema)
    is never read.
    """
    for key in ARGUMENT_KEYS:
        value = attributes.get(key)
        if value is None or is_placeholder(value):
            continue
        if key == TRACELOOP.ENTITY_INPUT:
            arguments = _unwrap_traceloop_input(value)
            return arguments, "input" not in arguments or len(arguments) != 1, ""
        if isinstance(value, (str, bytes)):
            ok, parsed = parse_text(value) if value.strip() else (True, {})
            value = parsed if ok else value
        unwrapped = unwrap_arguments(value)
        value = unwrapped.value
        is_object = type(value) is dict or isinstance(value, Mapping)
        return coerce_arguments(value), is_object, unwrapped.call_id
    return {}, False, ""  # none recorded: the requesting model span may hold them


def tool_arguments(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments `read_arguments` finds."""
    return read_arguments(attributes)[0]
