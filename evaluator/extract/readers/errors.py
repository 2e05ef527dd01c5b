"""A failed tool call's error message, whatever reports it (SPEC §5): the exception event's
message, the status message with any Python or JavaScript stack trace removed, a vendor
attribute holding the tool's own error output (MCP `isError` content, ADK's
`gcp.vertex.agent.tool_response`), never a bare error type when a message exists."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tracesim.evaluator.extract.readers.arguments import parse_text
from tracesim.evaluator.extract.readers.envelopes import is_placeholder, unwrap_value
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ADK, GENAI, LOGFIRE, OPENINFERENCE, OTEL
from tracesim.schemas.conventions import AI_SDK, HAYSTACK, TOOL_ERROR_WRAPPER

__all__ = ["error_output", "failure_text", "tool_error"]

_EXCEPTION_LINE = re.compile(
    r"^(?:(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*)?(?:Error|Exception|Warning|Exit|Interrupt|Timeout)"
    r"|error)(?: ?\[[^\]]*\])?: (.+)$",
    re.DOTALL,
)
_JS_FRAME = re.compile(r"^\s+at\s", re.MULTILINE)
"""A JavaScript stack frame line (`    at fn (file.js:1:2)`): Node's `error.stack` puts the
`Type: message` line first, then the frames (OpenInference JS, OpenLLMetry Node, Vercel AI)."""
_ERROR_OUTPUT_KEYS = (
    ADK.TOOL_RESPONSE,  # ADK: the tool's {"error": message} response
    GENAI.TOOL_CALL_RESULT,  # MCP tools/call isError content, provider SDKs' tool results
    OPENINFERENCE.OUTPUT_VALUE,
    AI_SDK.TOOL_CALL_RESULT,
    LOGFIRE.TOOL_RESPONSE,
)
"""Attributes where a failed tool's own error output may be the only message (SPEC §5)."""
_TRACEBACK_HEAD = "Traceback (most recent call last)"
_CHAIN_LINE = re.compile(
    r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)(?:\([\w.]*\))?: (.+)$"
)
"""One link of a printed exception chain (`ToolError(module): message`, `ValueError: m`)."""


def _present(value: Any) -> bool:
    return not is_placeholder(value)


def _parse_text(text: str) -> tuple[bool, Any]:
    """JSON, then a Python literal (the arguments' reader)."""
    return parse_text(text)


_EMBEDDED_CAUSE = re.compile(r": (?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): (?=\S)")
"""Where a wrapper's message prints its cause as `Type: message` after its own text
(`Error executing tool 'x' with arguments {...}: ValueError: <cause>`)."""


def _embedded_cause(text: str) -> str:
    """The innermost cause a wrapper's message prints on its first line after `: Type: `,
    else `text` (smolagents' AgentToolExecutionError, under OpenInference and OpenLIT; the
    hint lines after it are the wrapper's, not the tool's)."""
    first = text.split("\n", 1)[0]
    matches = list(_EMBEDDED_CAUSE.finditer(first))
    if not matches:
        return text
    cause = first[matches[-1].end() :].strip()
    return cause if _present(cause) else text


def failure_text(text: str) -> str:
    """A failed call's error out of the text its result carried (a model input flagging it
    failed: Anthropic `is_error`, Bedrock `status: error`): the same reading as a status
    message, so `Error: <message>` is the message."""
    return _exception_message(text)


_EXCEPTION_REPR = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\((['\"])(.*?)\1\)")


def _repr_message(text: str) -> str:
    """`ValueError('msg')` (LangSmith puts the repr, then the traceback) -> `msg`."""
    match = _EXCEPTION_REPR.match(text)
    return match.group(2) if match else text


def _exception_message(text: str) -> str:
    """The exception's own message out of a traceback, `Type: message` status text, or the
    OpenAI Agents SDK's `Error running tool (non-fatal): {..., 'error': message}`."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return text
    if _TRACEBACK_HEAD in text:
        last = lines[-1].strip()
    elif len(lines) > 1 and any(_JS_FRAME.match(line) for line in lines[1:]):
        first = next(i for i, line in enumerate(lines) if _JS_FRAME.match(line))
        head = lines[first - 1].strip() if first else ""
        if _EXCEPTION_LINE.match(head):  # `Error: msg` right above the frames
            return _EXCEPTION_LINE.match(head).group(1)  # type: ignore[union-attr]
        last = "\n".join(line for line in lines if not _JS_FRAME.match(line)).strip()
    else:
        last = text.strip()
    match = _EXCEPTION_LINE.match(last)
    if match:
        return match.group(1)
    head, sep, tail = last.partition(": {")
    if sep and last.endswith("}"):
        ok, parsed = _parse_text("{" + tail)
        if (
            ok
            and (type(parsed) is dict or isinstance(parsed, Mapping))
            and isinstance(parsed.get("error"), str)
        ):
            return parsed["error"]
    return last


def _haystack_error(output: Any) -> str:
    """Haystack's failed-tool output `{"error": "Failed to invoke Tool `t` with parameters
    {...}. Error: <message>"}` -> the message."""
    text: Any = output
    if isinstance(text, str) and text.startswith("{"):
        ok, parsed = _parse_text(text)
        text = parsed if ok else text
    if type(text) is dict or isinstance(text, Mapping):
        text = text.get("error")
    text = str(text or "error")
    if text.startswith(HAYSTACK.ERROR_PREFIX) and HAYSTACK.ERROR_MARKER in text:
        return text.rsplit(HAYSTACK.ERROR_MARKER, 1)[1]
    return text


_ERROR_WRAPPER = re.compile(TOOL_ERROR_WRAPPER)


def tool_error(span: SpanView) -> str | None:
    """`_tool_error`, without the text a tool server wraps around the tool's own message
    (the MCP Python SDK's `Error executing tool <name>: `)."""
    error = _tool_error(span)
    if error is None:
        return None
    error = _embedded_cause(error)
    match = _ERROR_WRAPPER.match(error)
    return error[match.end() :] if match and match.end() < len(error) else error


def _tool_error(span: SpanView) -> str | None:
    """The exception's message (an `exception` event) > status ERROR's message (the
    message out of a traceback or `Type: message` text) > `error.type`.

    A status ERROR without a message still marks the call failed ("error" when nothing
    says more). The whole traceback stays in the span.
    """
    attributes = span.attributes
    for event in span.events:
        if event.get("name") == OTEL.EXCEPTION_EVENT:
            event_attributes = event.get("attributes") or {}
            message = event_attributes.get(OTEL.EXCEPTION_MESSAGE)
            if _present(message):
                text = _repr_message(str(message))
                if "\n" in text and (_TRACEBACK_HEAD in text or _JS_FRAME.search(text)):
                    return _exception_message(text)  # a stack inside the message (Node)
                return _wrapped_cause(text, attributes)
            if span.status_code != "ERROR" or not span.status_message:
                kind = event_attributes.get(OTEL.EXCEPTION_TYPE)
                return str(kind) if _present(kind) else OTEL.EXCEPTION_EVENT
    failed = span.status_code == "ERROR"
    error_type = attributes.get(OTEL.ERROR_TYPE)
    if failed and span.status_message:
        status = str(span.status_message)
        if status == error_type:
            # the status only repeats error.type (a wrapper's class of failure, the OpenAI
            # Agents SDK's `Error running tool (non-fatal)`): no more than a bare type, so
            # the tool's own error output, when the span holds one, is the message
            output = error_output(attributes)
            if output is not None:
                return output
        return _exception_message(status)
    if attributes.get(HAYSTACK.TOOL_ERROR) in (True, "true"):
        return _haystack_error(attributes.get(HAYSTACK.TOOL_OUTPUT))
    if not failed and not _present(error_type):
        return None
    # Only a bare type (`tool_error`, `TOOL_ERROR`) or none: the tool's own error output,
    # when a result attribute holds one, is the message (MCP isError, ADK, provider SDKs).
    output = error_output(attributes)
    if output is not None:
        return output
    return str(error_type) if _present(error_type) else "error"


def _wrapped_cause(error: str, attributes: Mapping[str, Any]) -> str:
    """The innermost cause when `error` is a wrapper's message and the tool's output prints
    the exception chain (`ToolError(m): Tool Error` then `  ValueError(m): <cause>`): a
    generic wrapper message must not hide the tool's own."""
    for key in _ERROR_OUTPUT_KEYS:
        value = attributes.get(key)
        if not isinstance(value, str) or "\n" not in value or error not in value:
            continue
        links = [m.group(1).strip() for m in map(_CHAIN_LINE.match, value.splitlines()) if m]
        if len(links) > 1 and links[0] == error.strip() and _present(links[-1]):
            return links[-1]
    return error


def error_output(attributes: Mapping[str, Any]) -> str | None:
    """The error message a failed call's result attributes hold (`{"error": msg}`, an
    `{"error": {"message": msg}}` object, or the plain text output), else None."""
    for key in _ERROR_OUTPUT_KEYS:
        value = attributes.get(key)
        if value is None or not _present(value):
            continue
        decoded: Any = value
        if isinstance(value, (str, bytes)):
            ok, parsed = _parse_text(value)
            decoded = parsed if ok else value
        if (
            (type(decoded) is dict or isinstance(decoded, Mapping))
            and len(decoded) == 1
            and "result" in decoded
        ):
            decoded = decoded["result"]  # ADK's {"result": x} envelope
        if type(decoded) is dict or isinstance(decoded, Mapping):
            message = decoded.get("error")
            if type(message) is dict or isinstance(message, Mapping):
                message = message.get("message")
            if isinstance(message, str) and _present(message):
                return _exception_message(message)
            continue
        text = unwrap_value(decoded).value
        if isinstance(text, str) and _present(text):
            return _exception_message(text)
    return None
