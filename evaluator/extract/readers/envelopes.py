"""Unwrapping the envelopes frameworks put around a tool's own values (SPEC §5).

What real instrumentations emit, as the conformance corpus shows:
- Google ADK wraps a non-dict result as `{"result": x}`; UiPath-style spans and MCP
  results use `{"content": x}`: an object whose only key is `result` or `content`
  is that value;
- a Gemini FunctionResponse serialised whole (`{"id"?, "name", "response": {...}}`: the
  OpenInference ADK tool span's output, OpenInference google-genai's input parts) is its
  `response`, and its `id` is the call's id;
- LangChain ToolMessage (OpenInference, OpenLLMetry) serialised as a constructor
  (`{"lc": 1, "type": "constructor", "kwargs": {"content": ...}}`), by
  `message_to_dict` (`{"type": "tool", "data": {"content": ...}}`) or dumped
  (`{"type": "tool", "content": ..., "tool_call_id": ...}`): its `content`, and its
  `tool_call_id` is the call's id;
- OpenLLMetry callback payloads: `{"output": x, "kwargs": ...}` is `x`;
- a LlamaIndex ToolOutput (`{"blocks", "tool_name", "raw_input", "raw_output"}`,
  OpenInference) is its `raw_output`; call arguments `{"args": [], "kwargs": {...}}`
  (LlamaIndex, OpenLLMetry) are the kwargs; BeeAI's `{"input": {...}, "options": ...}`
  (specific to BeeAI) is its input;
- a LangChain ToolMessage printed with str() (`content='...' name='...' tool_call_id='...'`,
  pydantic's repr without the class name: OpenLIT's LangChain tool spans) is its content,
  and its `tool_call_id` the call's id;
- text-block lists `[{"type": "text", "text": ...}]` are their joined text;
- placeholders (`<not specified>`, empty text, `{}`, `[]`) are no value at all, and so is
  a Python object's default repr (`<generator object f at 0x7f..>`, `<X object at 0x..>`:
  an object's identity, not its value; Agno's delegate tool under OpenLIT).
Pure functions over decoded values.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

import orjson
from tracesim.schemas import LANGCHAIN_MESSAGE as LC
from tracesim.schemas import PLACEHOLDERS
from tracesim.schemas.conventions import LLAMA_INDEX

__all__ = ["Unwrapped", "is_placeholder", "mcp_call_arguments", "unwrap_arguments", "unwrap_value"]

_SINGLE_KEYS = ("result", "content")
_JSON_HEADS = frozenset(("{", "[", '"'))
_DEPTH = 6
_CALLBACK_KEYS = frozenset(("output", "kwargs"))  # an OpenLLMetry callback payload's keys
_FUNCTION_RESPONSE_KEYS = frozenset(("id", "name", "response", "will_continue", "scheduling"))
"""The fields of a Gemini FunctionResponse (a `name` and a `response` object at least)."""
_CALL_RESULT_KEYS = frozenset(LLAMA_INDEX.CALL_RESULT_KEYS)
_TOOL_OUTPUT_KEYS = frozenset(LLAMA_INDEX.TOOL_OUTPUT_KEYS)
_ARGUMENT_ENVELOPE_KEYS = frozenset(("type", "inputs", "kwargs", "options"))
"""Keys without which an argument object is no envelope (`unwrap_arguments`)."""


_REPR_FIELD = re.compile(r"""(\w+)=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s'"]+)(?:\s+|$)""")
"""One `name=value` of pydantic's repr, the value a Python literal or a bare word."""


def _printed_message(text: str) -> tuple[Any, str] | None:
    """(content, tool_call_id) of a ToolMessage printed with str(), else None."""
    if not text.startswith("content=") or "tool_call_id=" not in text:
        return None
    fields: dict[str, str] = {}
    position = 0
    while position < len(text):
        match = _REPR_FIELD.match(text, position)
        if match is None:
            return None
        fields[match.group(1)] = match.group(2)
        position = match.end()
    try:
        content = ast.literal_eval(fields["content"])
        call_id = ast.literal_eval(fields["tool_call_id"])
    except (KeyError, ValueError, SyntaxError):
        return None
    return content, str(call_id)


_OBJECT_REPR = re.compile(r"<[^\n]{1,500} at 0x[0-9a-fA-F]+>")


def is_placeholder(value: Any) -> bool:
    """True for None and the values frameworks write where they have none (a placeholder,
    or an object's default repr, which names the object and holds none of its value)."""
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    text = value.strip()
    return text in PLACEHOLDERS or is_object_repr(text)


def is_object_repr(text: str) -> bool:
    """Whether `text` (stripped) is a Python object's default repr (`<... at 0x...>`)."""
    return text[-1:] == ">" and text[:1] == "<" and _OBJECT_REPR.fullmatch(text) is not None


class Unwrapped:
    """A tool's own value and the call id an envelope carried ("" when none)."""

    __slots__ = ("value", "call_id", "failed")

    def __init__(self, value: Any, call_id: str = "", failed: bool = False) -> None:
        self.value = value
        self.call_id = call_id
        self.failed = failed
        """The envelope says the call failed (LlamaIndex `is_error`): the value is the error."""


def _maybe_json(value: Any) -> Any:
    """JSON text of an object, a list or a string decoded (MLflow, the AI SDK and others
    JSON-encode a returned string: `"\"Sunny\""`); anything else as it is."""
    if isinstance(value, str):
        if value.lstrip()[:1] in _JSON_HEADS:
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                return value
    return value


def _text_blocks(value: list[Any]) -> str | None:
    """`[{"type": "text", "text": ...}, ...]` -> joined text; None for any other list."""
    if not value:
        return None
    texts = []
    for block in value:
        if not (type(block) is dict or isinstance(block, Mapping)) or not isinstance(
            block.get("text"), str
        ):
            return None
        if block.get("type", "text") != "text":
            return None
        texts.append(block["text"])
    return "".join(texts)


def _message_content(value: Mapping[str, Any]) -> tuple[bool, Any, str]:
    """(is a LangChain message, its content, its tool_call_id)."""
    if value.get(LC.LC_MARKER) is not None and value.get("type") == LC.CONSTRUCTOR:
        kwargs = value.get(LC.KWARGS)
        if (type(kwargs) is dict or isinstance(kwargs, Mapping)) and LC.CONTENT in kwargs:
            return True, kwargs[LC.CONTENT], str(kwargs.get(LC.TOOL_CALL_ID) or "")
    if value.get("type") == LC.TOOL_TYPE:
        data = value.get("data")
        if (
            type(data) is dict or isinstance(data, Mapping)
        ) and LC.CONTENT in data:  # message_to_dict: {type, data}
            return True, data[LC.CONTENT], str(data.get(LC.TOOL_CALL_ID) or "")
        if LC.CONTENT in value and LC.TOOL_CALL_ID in value:
            return True, value[LC.CONTENT], str(value.get(LC.TOOL_CALL_ID) or "")
    return False, None, ""


def unwrap_value(value: Any) -> Unwrapped:
    """The tool's own value inside any envelope above (None for a placeholder); a value
    without an envelope comes back as it was (JSON text stays that text)."""
    if type(value) is str and value.lstrip()[:1] not in _JSON_HEADS:
        if is_placeholder(value):  # plain text (most results): no envelope to peel
            return Unwrapped(None)
        if not value.startswith("content="):
            return Unwrapped(value)
    original, call_id, peeled, failed = value, "", False, False
    for _ in range(_DEPTH):
        if is_placeholder(value):
            return Unwrapped(None, call_id, failed)
        decoded = _maybe_json(value)
        printed = _printed_message(decoded) if isinstance(decoded, str) else None
        if printed is not None:  # a ToolMessage printed with str()
            value, call_id, peeled = printed[0], call_id or printed[1], True
            continue
        if isinstance(decoded, str) and decoded is not value:
            value, peeled = decoded, True  # a JSON-encoded string
            continue
        value = decoded
        if (type(value) is dict or type(value) is list) and not value:
            return Unwrapped(None, call_id, failed)  # `{}` / `[]`: empty counts as missing
        if type(value) is list or isinstance(value, list):
            text = _text_blocks(value)
            if text is None:
                break
            value, peeled = text, True
            continue
        if not (type(value) is dict or isinstance(value, Mapping)):
            break
        is_message, content, message_id = _message_content(value)
        if is_message:
            value, call_id, peeled = content, call_id or message_id, True
            continue
        keys = value.keys()
        if len(value) == 1 and next(iter(keys)) in _SINGLE_KEYS:
            value, peeled = next(iter(value.values())), True
            continue
        if (
            isinstance(value.get("response"), Mapping)
            and isinstance(value.get("name"), str)
            and keys <= _FUNCTION_RESPONSE_KEYS
        ):  # a Gemini FunctionResponse
            call_id = call_id or str(value.get("id") or "")
            value, peeled = value["response"], True
            continue
        if "output" in value and keys <= _CALLBACK_KEYS:  # OpenLLMetry callback
            value, peeled = value["output"], True
            continue
        if keys >= _CALL_RESULT_KEYS:  # LlamaIndex ToolCallResult
            call_id = call_id or str(value.get(LLAMA_INDEX.CALL_ID) or "")
            value, peeled = value[LLAMA_INDEX.CALL_OUTPUT], True
            continue
        if keys >= _TOOL_OUTPUT_KEYS:  # LlamaIndex ToolOutput
            failed = failed or value.get(LLAMA_INDEX.IS_ERROR) is True
            value, peeled = value[LLAMA_INDEX.RAW_OUTPUT], True
            continue
        break
    return Unwrapped(value if peeled else original, call_id, failed)


_MCP_CALL_KEYS = frozenset(("name", "tool_name", "arguments", "_meta"))
"""An MCP `tools/call` request's params ({name, arguments}; OpenLLMetry's MCP spans say
`tool_name`): the arguments are its `arguments`."""


def mcp_call_arguments(value: Any) -> Mapping[str, Any] | None:
    """The arguments inside an MCP call envelope, else None."""
    if (
        (type(value) is dict or isinstance(value, Mapping))
        and isinstance(value.get("arguments"), Mapping)
        and ("name" in value or "tool_name" in value)
        and value.keys() <= _MCP_CALL_KEYS
    ):
        return value["arguments"]
    return None


def unwrap_arguments(value: Any) -> Unwrapped:
    """Arguments inside a LangChain ToolCall (`{"name", "args", "id", "type": "tool_call"}`),
    a callback payload (`{"inputs": {...}}`), `{"args": [...], "kwargs": {...}}` or BeeAI's
    `{"input": {...}, "options": ...}` (specific to BeeAI); other values as they are."""
    if type(value) is dict and value.keys().isdisjoint(_ARGUMENT_ENVELOPE_KEYS):
        inner = mcp_call_arguments(value) if "arguments" in value else None
        return Unwrapped(inner if inner is not None else value)  # plain arguments, or MCP's
    if type(value) is dict or isinstance(value, Mapping):
        if value.get("type") == LC.TOOL_CALL_TYPE and isinstance(value.get("args"), Mapping):
            return Unwrapped(value["args"], str(value.get("id") or ""))
        inputs = value.get("inputs")
        kwargs = value.get("kwargs")
        if (type(inputs) is dict or isinstance(inputs, Mapping)) and (
            "input_str" in value or set(value) <= {"inputs", "kwargs"}
        ):  # a LangChain callback payload (OpenLLMetry): {input_str, inputs, kwargs, ...}
            call_id = (
                kwargs.get(LC.TOOL_CALL_ID)
                if (type(kwargs) is dict or isinstance(kwargs, Mapping))
                else None
            )
            return Unwrapped(inputs, str(call_id or ""))
        if value.keys() == {"input", "options"} and isinstance(value["input"], Mapping):
            # BeeAI's tool run input (OpenInference beeai): {"input": {...}, "options": ...}
            return Unwrapped(value["input"])
        if (type(kwargs) is dict or isinstance(kwargs, Mapping)) and (
            set(value) <= {"args", "kwargs"} or "args" in value
        ):
            # LlamaIndex / OpenLLMetry `{args, kwargs}`; smolagents adds sanitize_inputs_outputs
            positional = value.get("args")
            if positional:
                return Unwrapped({**kwargs, "args": positional})
            return Unwrapped(kwargs)
    return Unwrapped(value)
