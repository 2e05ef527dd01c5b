"""Tool answers carried back in model inputs, as evidence pieces (SPEC §5).

Every reader of a tool message yields one kind of piece, an `Answer` (the call id it
names, the tool name it names, its text, whether it reports a failure), wherever the
message was:
- OTel GenAI messages (`gen_ai.input.messages` on a span, or in an
  `gen_ai.client.inference.operation.details` log record): parts
  `{"type": "tool_call_response", "id", "response"}`; OpenAI-style
  `{"role": "tool", "tool_call_id", "content"}` messages too;
- OTel GenAI legacy events / log records `gen_ai.tool.message`: `{"content", "id"}`;
- OpenInference: `llm.input_messages.{i}.message.role = tool` with
  `.message.tool_call_id` and `.message.content` (without an id: `.name`, Gemini);
- OpenLLMetry legacy: `gen_ai.prompt.{i}.role = tool`, `.tool_call_id`, `.content`;
- provider request bodies: Anthropic `tool_result` blocks, Bedrock `toolResult`.

A lone `{"error": message}` function response (the Gemini API's, under OpenInference and
OTel) is a failure. `AnswerHistory` gathers a conversation's answers once (each model
input repeats the history: an answer is known by its id, or by its message index when it
names none); `answer_pairing.pair_answers` pairs them with calls.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from tracesim.evaluator.extract.readers.envelopes import unwrap_value
from tracesim.evaluator.extract.readers.fields import is_tool_span
from tracesim.evaluator.extract.span import SpanView, has_marker, json_or_none, row_may_hold
from tracesim.schemas import GENAI, OPENINFERENCE
from tracesim.schemas.ascii_index import ascii_index
from tracesim.schemas.conventions import PROVIDER

__all__ = [
    "FAILURE_MARKERS",
    "Answer",
    "AnswerHistory",
    "lone_error",
    "row_may_hold_responses",
    "tool_responses",
    "view_answers",
]

logger = logging.getLogger(__name__)

_TOOL_MESSAGE_EVENT = GENAI.EVENT_TOOL_MESSAGE
_PROVIDER_MARKERS = (PROVIDER.ANTHROPIC_TOOL_RESULT, PROVIDER.BEDROCK_TOOL_RESULT)
FAILURE_MARKERS = (PROVIDER.ANTHROPIC_IS_ERROR, PROVIDER.BEDROCK_TOOL_RESULT)
"""Text a stored row holds when a model input may flag a tool result as failed."""
_MARKERS = (
    *_PROVIDER_MARKERS,  # inside a provider request body (`input.value`)
    f'"{GENAI.INPUT_MESSAGES}"',
    f'"{OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX}',
    f'"{GENAI.PROMPT_PREFIX}',
)


def row_may_hold_responses(span: Any) -> bool:
    """False only for a `spans` row (dict with JSON text) that certainly carries no tool
    message (no input-message attribute, no events)."""
    return row_may_hold(span, _MARKERS)


def _from_messages(value: Any) -> Iterable[tuple[Any, Any]]:
    messages = json_or_none(value)
    for message in messages if isinstance(messages, list) else ():
        if not (type(message) is dict or isinstance(message, Mapping)):
            continue
        for part in message.get("parts") or ():
            if (type(part) is dict or isinstance(part, Mapping)) and part.get(
                "type"
            ) == GENAI.PART_TOOL_CALL_RESPONSE:
                yield part.get("id"), part.get("response")
        if message.get("role") == "tool" and message.get("tool_call_id"):
            yield message.get("tool_call_id"), message.get("content")


def _from_indexed(attributes: Mapping[str, Any], prefix: str, middle: str) -> list[tuple]:
    """`{prefix}{i}.{middle}role = tool` messages -> (tool_call_id, content)."""
    found = []
    for key, role in attributes.items():
        if role != "tool" or not key.startswith(prefix) or not key.endswith(middle + "role"):
            continue
        head = key[: -len("role")]
        found.append((attributes.get(head + "tool_call_id"), attributes.get(head + "content")))
    return found


def _provider_results(value: Any, failed: set[str]) -> Iterable[tuple[Any, Any]]:
    """Tool results in a provider request body (OpenInference's `input.value`): Anthropic
    Messages `tool_result` blocks {tool_use_id, content, is_error} (Python and JS SDKs) and
    Bedrock Converse `toolResult` {toolUseId, content, status}. Failed ids go to `failed`."""
    body = json_or_none(value)
    messages = body.get("messages") if (type(body) is dict or isinstance(body, Mapping)) else body
    for message in messages if isinstance(messages, list) else ():
        content = (
            message.get("content")
            if (type(message) is dict or isinstance(message, Mapping))
            else None
        )
        for block in content if isinstance(content, list) else ():
            if not (type(block) is dict or isinstance(block, Mapping)):
                continue
            if block.get("type") == PROVIDER.ANTHROPIC_TOOL_RESULT:
                call_id, error = block.get("tool_use_id"), block.get("is_error") is True
            elif isinstance(block.get(PROVIDER.BEDROCK_TOOL_RESULT), Mapping):
                block = block[PROVIDER.BEDROCK_TOOL_RESULT]
                call_id, error = block.get("toolUseId"), block.get("status") == "error"
            else:
                continue
            if call_id and error:
                failed.add(str(call_id))
            yield call_id, block.get("content")


def _from_attributes(
    attributes: Mapping[str, Any], failed: set[str] | None = None
) -> list[tuple[Any, Any]]:
    pairs: list[tuple[Any, Any]] = []
    messages = attributes.get(GENAI.INPUT_MESSAGES)
    if messages:
        pairs.extend(_from_messages(messages))
    pairs.extend(_from_indexed(attributes, OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, "message."))
    pairs.extend(_from_indexed(attributes, GENAI.PROMPT_PREFIX, ""))
    body = attributes.get(OPENINFERENCE.INPUT_VALUE)
    if isinstance(body, str) and has_marker(body, _PROVIDER_MARKERS):
        pairs.extend(_provider_results(body, failed if failed is not None else set()))
    return pairs


def _span_responses(span: SpanView, failed: set[str] | None = None) -> list[tuple[Any, Any]]:
    pairs: list[tuple[Any, Any]] = []
    if span.may_hold_text(*_MARKERS):
        pairs.extend(_from_attributes(span.attributes, failed))
    for event in span.events:
        attributes = event.get("attributes")
        if not (type(attributes) is dict or isinstance(attributes, Mapping)):
            continue
        if event.get("name") == _TOOL_MESSAGE_EVENT:
            pairs.append((attributes.get("id"), attributes.get("content")))
        else:
            pairs.extend(_from_attributes(attributes))
    return pairs


def tool_responses(
    spans: Iterable[SpanView], *, failed: set[str] | None = None
) -> dict[str, str | None]:
    """Tool-call id -> the result its tool message carried (first seen), over `spans`;
    `failed` receives the ids a message flags as failed (`is_error`, `status: error`)."""
    found: dict[str, str | None] = {}
    for span in spans:
        try:
            if span.may_be_tool_span() and is_tool_span(span):
                continue  # a tool span's own events are its input and output (Strands)
            pairs = _span_responses(span, failed)
        except Exception as exc:  # one bad model span must not stop extraction
            logger.warning("skipping span %s for tool results: %s", span.span_id, exc)
            continue
        for call_id, content in pairs:
            if call_id and str(call_id) not in found:
                found[str(call_id)] = _answer_text(content)
    return found


def _answer_text(content: Any) -> str | None:
    """A tool message's content as the call's result text (envelopes unwrapped)."""
    value = unwrap_value(content).value
    if value is not None and not isinstance(value, str):
        value = orjson.dumps(value).decode()
    return value


def lone_error(content: Any) -> str | None:
    """The message of a function response that is a lone `{"error": message}` (how the
    Gemini API's function responses report a failure, SPEC §5), else None."""
    decoded = json_or_none(content) if isinstance(content, str) else content
    if (
        (type(decoded) is dict or isinstance(decoded, Mapping))
        and len(decoded) == 1
        and "error" in decoded
    ):
        error = decoded["error"]
        return error if isinstance(error, str) else orjson.dumps(error).decode()
    return None


@dataclass(frozen=True, slots=True)
class Answer:
    """One tool message a model input carried: an evidence piece of kind answer."""

    call_id: str
    """The call id it names ("" when it names none)."""
    name: str
    """The tool it names ("" when it names none)."""
    text: str | None
    """Its content, envelopes unwrapped (for a failure: the error message)."""
    failed: bool = False
    """Whether it reports a failure (a lone `{"error": message}`)."""


def _answer(call_id: str, name: str, content: Any) -> Answer:
    error = lone_error(content)
    if error is not None:
        return Answer(call_id, name, error, True)
    text = _answer_text(content)
    error = lone_error(text) if text else None  # JSON text of `{"error": ...}` in an envelope
    return (
        Answer(call_id, name, text, False) if error is None else Answer(call_id, name, error, True)
    )


def view_answers(view: SpanView) -> list[Answer]:
    """The answers naming a call id that a view's model input carried, in message order,
    repeats kept (a tool span's own events are its input and output: none)."""
    try:
        if view.may_be_tool_span() and is_tool_span(view):
            return []
        pairs = _span_responses(view)
    except Exception as exc:  # one bad model span must not stop extraction
        logger.warning("skipping span %s for tool results: %s", view.span_id, exc)
        return []
    return [_answer(str(call_id), "", content) for call_id, content in pairs if call_id]


_UNNAMED_SOURCES = (
    (OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, "message."),  # Gemini under OpenInference
    (GENAI.PROMPT_PREFIX, ""),  # the legacy indexed prompt (Cohere under OpenLLMetry)
)


def _parts_text(parts: list[Any]) -> Any:
    """GenAI text parts' `content` joined (a tool message's answer); the parts as they are
    when any is not text."""
    texts = [
        p.get("content")
        for p in parts
        if (type(p) is dict or isinstance(p, Mapping))
        and p.get("type") == "text"
        and isinstance(p.get("content"), str)
    ]
    return "".join(texts) if len(texts) == len(parts) else parts


def _has_response_part(message: Mapping[str, Any]) -> bool:
    parts = message.get("parts")
    return isinstance(parts, list) and any(
        isinstance(p, Mapping) and p.get("type") == GENAI.PART_TOOL_CALL_RESPONSE for p in parts
    )


def _unnamed_messages(value: Any) -> dict[tuple[int, ...], Answer]:
    """Tool messages naming no call in GenAI / OpenAI-style input messages (OpenLIT over
    Ollama: `{"role": "tool", "parts": [{"type": "text", ...}]}`), by message index. A
    message is a tool message by its role or by its `tool_call_response` parts, whatever
    its role (the Gemini API's function responses are user turns: OpenLLMetry writes
    them as `{"role": "user", "parts": [{"type": "tool_call_response", "id": ""}]}`)."""
    found: dict[tuple[int, ...], Answer] = {}
    messages = json_or_none(value)
    for index, message in enumerate(messages if isinstance(messages, list) else ()):
        if not (type(message) is dict or isinstance(message, Mapping)):
            continue
        if message.get("role") != "tool" and not _has_response_part(message):
            continue
        if message.get("tool_call_id"):
            continue
        parts = message.get("parts")
        if isinstance(parts, list) and parts:
            responses = [
                p
                for p in parts
                if (type(p) is dict or isinstance(p, Mapping))
                and p.get("type") == GENAI.PART_TOOL_CALL_RESPONSE
            ]
            if any(p.get("id") for p in responses):
                continue  # named: read by id
            content = responses[0].get("response") if responses else _parts_text(parts)
        else:
            content = message.get("content")
        found[(2, index)] = _answer("", str(message.get("name") or ""), content)
    return found


def _unnamed(view: SpanView) -> dict[tuple[int, ...], Answer]:
    """Answers naming no call id: indexed `role = tool` messages without `tool_call_id`
    (`llm.input_messages.N.message.*` with `.name`, Gemini; `gen_ai.prompt.N.*`, Cohere)
    and GenAI input messages of role tool without one (span attribute, events, logs), by
    (source, message index N)."""
    found: dict[tuple[int, ...], Answer] = {}
    for source, (prefix, middle) in enumerate(_UNNAMED_SOURCES):
        if not view.may_hold_text(f'"{prefix}'):
            continue
        attributes = view.attributes
        suffix = middle + "role"
        for key, role in attributes.items():
            if role != "tool" or not key.startswith(prefix) or not key.endswith(suffix):
                continue
            head = key[: -len("role")]
            index = ascii_index(key[len(prefix) :].partition(".")[0])
            if index is None or attributes.get(head + "tool_call_id"):
                continue
            name = str(attributes.get(head + "name") or "")
            content = attributes.get(head + "content")
            found.setdefault((source, index), _answer("", name, content))
    if view.may_hold_text(f'"{GENAI.INPUT_MESSAGES}"'):
        messages = view.attributes.get(GENAI.INPUT_MESSAGES)
        if messages:
            for key, answer in _unnamed_messages(messages).items():
                found.setdefault(key, answer)
    for event in view.events:
        attributes = event.get("attributes")
        if (type(attributes) is dict or isinstance(attributes, Mapping)) and attributes.get(
            GENAI.INPUT_MESSAGES
        ):
            for key, answer in _unnamed_messages(attributes[GENAI.INPUT_MESSAGES]).items():
                found.setdefault(key, answer)
    return found


class AnswerHistory:
    """A conversation's answers, read once: each model input repeats the history, so an
    answer is known by its id (first seen; all of them, in order, for an id made up per
    request) or, naming none, by its message index."""

    def __init__(self, views: list[SpanView]) -> None:
        self._views = views
        self.by_view: list[tuple[SpanView, list[Answer]]] = [(v, view_answers(v)) for v in views]
        """Each view with the id'd answers its input carried (`reused.Occurrences`)."""
        self.first: dict[str, Answer] = {}
        self._longest: dict[str, list[Answer]] = {}
        for _, answers in self.by_view:
            per_id: dict[str, list[Answer]] = {}
            for answer in answers:
                self.first.setdefault(answer.call_id, answer)
                per_id.setdefault(answer.call_id, []).append(answer)
            for call_id, found in per_id.items():
                if len(found) > len(self._longest.get(call_id, ())):
                    self._longest[call_id] = found
        self._unnamed: list[tuple[tuple, Answer]] | None = None

    def responses(self) -> dict[str, str | None]:
        """Call id -> its answer's text, first seen (`tool_responses` of the views)."""
        return {call_id: answer.text for call_id, answer in self.first.items()}

    def nth(self, call_id: str, ordinal: int) -> Answer | None:
        """The `ordinal`-th answer of `call_id` in the longest history that carried it."""
        found = self._longest.get(call_id) or []
        return found[ordinal] if ordinal < len(found) else None

    def unnamed(self, after: tuple | None = None) -> list[Answer]:
        """Answers naming no call, in conversation order (read on first use); `after`: only
        those first carried by a model input starting at or after that sort key (earlier
        ones answer earlier turns' calls)."""
        if self._unnamed is None:
            by_index: dict[tuple[int, ...], tuple[tuple, Answer]] = {}
            for view in self._views:
                for index, answer in _unnamed(view).items():
                    by_index.setdefault(index, (view.sort_key(), answer))
            self._unnamed = [by_index[i] for i in sorted(by_index)]
        return [a for key, a in self._unnamed if after is None or key >= after]
