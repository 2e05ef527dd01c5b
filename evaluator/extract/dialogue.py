"""A collected turn's user message and agent reply, read from its spans (SPEC §14).

Pure: span rows in (JSON columns as text or parsed), `TurnDialogue` out. The
conventions and their shapes are the table `schemas.message_conventions`.
The user message is the last user message of the first model call's input
(a model call's input carries the history; its last user message is the one
that started this turn); the reply is the text of the last model call's
output that has text. Where no model call carries messages, the agent-level
values of the outermost span that has them (OpenInference `input.value`,
Vercel AI `ai.prompt`, ...) are used. Unreadable values are skipped, never
raised.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from tracesim.evaluator.extract.readers.genkit import genkit_as_genai
from tracesim.schemas.ascii_index import ascii_index
from tracesim.schemas.conventions import GENKIT
from tracesim.schemas.message_conventions import AGENT_LEVEL, MESSAGE_SOURCES, MessageSource

__all__ = ["TurnDialogue", "replies", "turn_dialogue"]

Message = tuple[str, str]
"""(role, text)."""


@dataclass(frozen=True)
class TurnDialogue:
    """What the spans say the user asked and the agent answered in one turn."""

    user_message: str | None = None
    agent_message: str | None = None
    convention: str | None = None
    """The convention the messages came from (the user message's when they differ)."""


def _json(value: Any) -> Any:
    if isinstance(value, (str, bytes)) and value[:1] in ("[", "{", b"[", b"{", '"', b'"'):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _text(content: Any) -> str:
    """Text of a message's content: a string, or the text parts of a part list."""
    content = _json(content)
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("content", "text", "parts"):
            if key in content:
                return _text(content[key])
        return ""
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and part.get("type", "text") in (
                "text",
                "output_text",
                "input_text",
            ):
                value = part.get("content", part.get("text"))
                if isinstance(value, str):
                    texts.append(value)
        return "\n".join(t for t in texts if t)
    return ""


def _role(message: Mapping[str, Any]) -> str:
    role = str(message.get("role") or message.get("type") or "")
    return {"human": "user", "ai": "assistant", "model": "assistant"}.get(role, role)


def _messages(value: Any) -> list[Message]:
    value = _json(value)
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        value = value["messages"]
    out: list[Message] = []
    for message in value if isinstance(value, list) else ():
        if isinstance(message, Mapping):
            body = message.get("parts", message.get("content"))
            out.append((_role(message), _text(body)))
    return out


def _indexed(attributes: Mapping[str, Any], source: MessageSource) -> list[Message]:
    rows: dict[int, dict[str, Any]] = {}
    prefix, middle = source.key, source.middle
    for key, value in attributes.items():
        if not key.startswith(prefix):
            continue
        head, _, rest = key[len(prefix) :].partition(".")
        index = ascii_index(head)
        if index is None or not rest.startswith(middle):
            continue
        field = rest[len(middle) :]
        if field in ("role", "content"):
            rows.setdefault(index, {})[field] = value
        elif field.startswith("contents.") and field.endswith(".message_content.text"):
            rows.setdefault(index, {}).setdefault("content", value)
    return [(_role(r), _text(r.get("content"))) for _, r in sorted(rows.items())]


def _events_json(value: Any, side: str) -> list[Message]:
    out: list[Message] = []
    for event in _json(value) if isinstance(_json(value), list) else ():
        if not isinstance(event, Mapping):
            continue
        name = str(event.get("event.name") or "")
        if side == "input" and name == "gen_ai.user.message":
            out.append(("user", _text(event.get("content"))))
        elif side == "output" and name in ("gen_ai.choice", "gen_ai.assistant.message"):
            out.append(("assistant", _text(event.get("message", event.get("content")))))
    return out


def _adk(value: Any, side: str) -> list[Message]:
    value = _json(value)
    if not isinstance(value, Mapping):
        return []
    if side == "input":
        return _messages(value.get("contents"))
    content = value.get("content")
    return [("assistant", _text(content))] if content is not None else []


def _from_span(span: Mapping[str, Any], source: MessageSource) -> list[Message]:
    attributes = span.get("attributes") or {}
    if source.shape == "event":
        out = []
        for event in span.get("events") or ():
            if isinstance(event, Mapping) and event.get("name") == source.key:
                attrs = event.get("attributes") or {}
                value = attrs.get(source.field) if isinstance(attrs, Mapping) else None
                if value is not None:
                    role = "user" if source.side == "input" else "assistant"
                    out.append((role, _text(value)))
        return out
    if source.shape == "indexed":
        return _indexed(attributes, source)
    if any(str(attributes.get(key)) != value for key, value in source.when):
        return []
    value = attributes.get(source.key)
    if value is None and source.shape == "messages":  # the GenAI details event / log record
        for event in span.get("events") or ():
            attrs = event.get("attributes") if isinstance(event, Mapping) else None
            if isinstance(attrs, Mapping) and attrs.get(source.key) is not None:
                value = attrs[source.key]
    if value is None:
        return []
    if source.shape == "messages":
        return _messages(value)
    if source.shape == "events_json":
        return _events_json(value, source.side)
    if source.shape in ("adk_request", "adk_response"):
        return _adk(value, source.side)
    if source.shape == "prompt":
        parsed = _json(value)
        if isinstance(parsed, Mapping) and isinstance(parsed.get("prompt"), str):
            return [("user", parsed["prompt"])]
        return _messages(parsed)
    return [("user" if source.side == "input" else "assistant", _text(value))]


def _decoded(span: Mapping[str, Any]) -> dict[str, Any]:
    attributes = _json(span.get("attributes"))
    events = _json(span.get("events"))
    if isinstance(attributes, Mapping) and GENKIT.SUBTYPE in attributes:
        attributes = genkit_as_genai(attributes)  # Genkit's messages, as GenAI's
    return {
        **span,
        "attributes": attributes if isinstance(attributes, Mapping) else {},
        "events": events if isinstance(events, list) else [],
    }


def _last(messages: Iterable[Message], roles: Sequence[str]) -> str | None:
    found = None
    for role, text in messages:
        if role in roles and text.strip():
            found = text
    return found


def _pick(spans: Sequence[dict[str, Any]], side: str) -> tuple[str | None, str | None]:
    roles = ("user",) if side == "input" else ("assistant", "")
    ordered = spans if side == "input" else list(reversed(spans))
    for span in ordered:
        for source in MESSAGE_SOURCES:
            if source.side != side:
                continue
            try:
                text = _last(_from_span(span, source), roles)
            except Exception:  # noqa: BLE001 - an odd shape skips that source, never the turn
                continue
            if text is not None:
                return text, source.convention
    return None, None


def _outer(spans: Sequence[dict[str, Any]], ids: set[Any]) -> list[dict[str, Any]]:
    """Spans that speak for the whole turn: roots of the turn (`ids`: every span of it), and
    agent spans; never a tool's, a model's or an inner chain step's own input and output
    (LangGraph's routing steps output `Send(...)`)."""
    return [
        s
        for s in spans
        if s.get("parent_span_id") not in ids
        or s["attributes"].get("openinference.span.kind") == "AGENT"
    ]


def _agent_level(
    spans: Sequence[dict[str, Any]], side: str, ids: set[Any]
) -> tuple[str | None, str | None]:
    """The outermost span's agent-level value (spans sorted by start, so roots come first)."""
    roles = ("user",) if side == "input" else ("assistant", "")
    for span in _outer(spans, ids):
        for source in AGENT_LEVEL:
            if source.side != side:
                continue
            try:
                text = _last(_from_span(span, source), roles)
            except Exception:  # noqa: BLE001
                continue
            if text is not None:
                return text, source.convention
    return None, None


def _start(span: Mapping[str, Any]) -> tuple[bool, Any]:
    start = span.get("start_time")
    return (start is None, start if start is not None else 0)


_MARKERS = tuple({source.key for source in (*MESSAGE_SOURCES, *AGENT_LEVEL)} | {GENKIT.INPUT})
"""Keys and event names whose text shows a span may hold messages (checked before parsing)."""


def _may_hold(span: Mapping[str, Any]) -> bool:
    """False when the span's stored JSON text names no message source: most spans (tool
    spans, HTTP spans) are then never parsed."""
    texts = [v for v in (span.get("attributes"), span.get("events")) if v is not None]
    if any(not isinstance(v, str) for v in texts):
        return True  # already parsed: look
    return any(marker in text for text in texts for marker in _MARKERS)


def turn_dialogue(spans: Iterable[Mapping[str, Any]]) -> TurnDialogue:
    """The user message and agent reply of one turn (one trace) from its spans."""
    spans = list(spans)
    ids = {s.get("span_id") for s in spans}
    decoded = sorted((_decoded(s) for s in spans if _may_hold(s)), key=_start)
    by_end = sorted(
        decoded, key=lambda s: _start({"start_time": s.get("end_time") or s.get("start_time")})
    )
    user, convention = _pick(decoded, "input")
    agent, reply_convention = _pick(by_end, "output")
    if user is None:
        user, convention = _agent_level(decoded, "input", ids)
    if agent is None:
        agent, reply_convention = _agent_level(decoded, "output", ids)
    return TurnDialogue(user, agent, convention or reply_convention)


def replies(span: Mapping[str, Any]) -> list[str]:
    """Every text a span says was answered (model replies and agent-level outputs of every
    convention), stripped; a span with decoded `attributes` and `events`. Unreadable
    values are skipped."""
    found = []
    for source in (*MESSAGE_SOURCES, *AGENT_LEVEL):
        if source.side != "output":
            continue
        try:
            messages = _from_span(span, source)
        except Exception:  # noqa: BLE001 - an odd shape skips that source
            continue
        found.extend(text.strip() for role, text in messages if role in ("assistant", ""))
    return found
