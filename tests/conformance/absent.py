"""Machine-checking a truth's claim that something is not in the telemetry (SPEC §5).

A truth may list calls the agent made that the recording does not hold
(`not_in_telemetry`) or whose results it holds only in another unkeyed trace
(`unattributable`). The claim is checked, not trusted: every attribute, event, link, log
record and resource value of the recorded requests is read as text (`key: value`, nested
values each on their own) and searched for

- a call's arguments, as its recorded form would show them: each argument's name followed,
  within a few non-word characters, by its value (`"city": "Paris"`, `\\"city\\": \\"Paris\\"`,
  `'city': 'Paris'`, `city=Paris`), all of them in one value. A user's prompt naming the
  value ("weather in Paris") or a tool definition naming the parameter is not a call;
- a result's text (or its error's), in the traces of the conversation tracesim found the
  call in, recorded after the span that gave the call ended (a tool span, a later model
  input): where it could have been paired with it. An earlier call's identical result,
  replayed in the same model input that asked for this call, is not this call's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tests.conformance.replay import Recording, _to_protobuf

__all__ = [
    "RecordedText",
    "argument_pattern",
    "span_end",
    "texts_of",
    "where_arguments",
    "where_text",
]


@dataclass(frozen=True)
class RecordedText:
    """One value of a recording, as text, and where it was."""

    trace_id: str
    """The span's or log record's trace (hex), "" for a resource or an unlinked record."""
    where: str
    text: str
    span_id: str = ""
    start: int = 0
    """The span's start, the log record's time (ns); 0 for a resource."""
    end: int = 0


def _value_texts(key: str, value: Any) -> Iterator[str]:
    """`key: value` for an AnyValue, and each nested value on its own."""
    kind = value.WhichOneof("value")
    if kind is None:
        return
    if kind == "kvlist_value":
        parts = []
        for item in value.kvlist_value.values:
            nested = list(_value_texts(item.key, item.value))
            yield from nested
            parts.extend(nested[:1])
        yield f"{key}: {{{', '.join(parts)}}}"
        return
    if kind == "array_value":
        parts = []
        for item in value.array_value.values:
            nested = list(_value_texts(key, item))
            yield from nested
            parts.extend(n[len(key) + 2 :] for n in nested[:1])
        yield f"{key}: [{', '.join(parts)}]"
        return
    raw = getattr(value, kind)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    yield f"{key}: {text}"


def _attributes(
    trace: str, where: str, attributes: Any, *, span: Any = None, time: int = 0
) -> Iterator[RecordedText]:
    span_id = span.span_id.hex() if span is not None else ""
    start = span.start_time_unix_nano if span is not None else time
    end = span.end_time_unix_nano if span is not None else time
    for item in attributes:
        for text in _value_texts(item.key, item.value):
            yield RecordedText(trace, where, text, span_id, start, end)


def texts_of(recording: Recording) -> list[RecordedText]:
    """Every value the recording's requests carry, as text."""
    found: list[RecordedText] = []
    for signal, ext, body in recording.requests:
        message = _to_protobuf(signal, ext, body)
        if signal == "traces":
            for resource_spans in message.resource_spans:
                found.extend(_attributes("", "resource", resource_spans.resource.attributes))
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        trace = span.trace_id.hex()
                        where = f"span {span.name!r} {span.span_id.hex()}"
                        status = f"status: {span.status.message}"
                        found.append(
                            RecordedText(
                                trace,
                                where,
                                status,
                                span.span_id.hex(),
                                span.start_time_unix_nano,
                                span.end_time_unix_nano,
                            )
                        )
                        found.extend(_attributes(trace, where, span.attributes, span=span))
                        for event in span.events:
                            found.extend(
                                _attributes(
                                    trace,
                                    f"{where} event {event.name}",
                                    event.attributes,
                                    span=span,
                                )
                            )
                        for link in span.links:
                            found.extend(
                                _attributes(trace, f"{where} link", link.attributes, span=span)
                            )
        else:
            for resource_logs in message.resource_logs:
                found.extend(_attributes("", "resource", resource_logs.resource.attributes))
                for scope_logs in resource_logs.scope_logs:
                    for record in scope_logs.log_records:
                        trace = record.trace_id.hex()
                        where = f"log record {record.event_name or record.span_id.hex()}"
                        time = record.time_unix_nano or record.observed_time_unix_nano
                        found.extend(
                            RecordedText(trace, where, text, record.span_id.hex(), time, time)
                            for text in _value_texts("body", record.body)
                        )
                        found.extend(_attributes(trace, where, record.attributes, time=time))
    return found


def argument_pattern(name: str, value: Any) -> re.Pattern[str]:
    """An argument as a recorded call shows it: its name, a few non-word characters (quotes,
    escapes, `:`, `=`), its value."""
    shown = value if isinstance(value, str) else json.dumps(value)
    forms = {shown}
    for _ in range(2):  # as it reads inside a JSON string, and inside one nested again
        shown = json.dumps(shown)[1:-1]
        forms.add(shown)
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len))
    return re.compile(re.escape(name) + r"\W{1,12}(?:" + alternatives + ")")


def where_arguments(arguments: dict[str, Any], texts: list[RecordedText]) -> list[str]:
    """Where one recorded value holds every argument of a call (empty: nowhere)."""
    if not arguments:
        return []
    patterns = [argument_pattern(k, v) for k, v in arguments.items()]
    return [
        f"{t.where}: {t.text[:160]}"
        for t in texts
        if all(pattern.search(t.text) for pattern in patterns)
    ]


def where_text(
    text: str, texts: list[RecordedText], traces: set[str], *, after: int = 0
) -> list[str]:
    """Where `text` occurs in a value of one of `traces` recorded from `after` (ns: a span
    starting, a log record written, at or after it) on: where an answer to a call made
    before `after` could be."""
    return [
        f"{t.where}: {t.text[:160]}"
        for t in texts
        if t.trace_id in traces and t.start >= after and text in t.text
    ]


def span_end(span_id: str, texts: list[RecordedText]) -> int:
    """When the span `span_id` ended (ns; 0 when the recording does not hold it)."""
    return max(
        (t.end for t in texts if t.span_id == span_id and t.where.startswith("span")), default=0
    )
