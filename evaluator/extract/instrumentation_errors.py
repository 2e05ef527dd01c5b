"""Spans whose instrumentation failed while recording them (SPEC §5: nothing is dropped in
silence).

An instrumentation that raises inside its own code while recording a call (a model reply
shape it did not expect) leaves the span with its exception and without the content it was
about to write: the tool calls the model asked for are then in no attribute. Such a failure
is told apart from the call's own failure (the provider's error, propagated through the
wrapper) by where the exception was raised: the innermost frame of its stack trace is in an
instrumentation package (a path segment naming `instrumentation`: `openlit/instrumentation/`,
`opentelemetry/instrumentation/`, `openinference/instrumentation/`,
`@traceloop/instrumentation-openai`, ...). Python tracebacks list that frame last, V8
stacks first. An exception thrown in from outside (a cancelled task, a generator closed at
its `yield`) is not the instrumentation's failure. Generic: no framework is named.

Pure: spans in, items out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from tracesim.evaluator.extract.audit import INSTRUMENTATION_ERROR, Unexplained
from tracesim.evaluator.extract.span import SpanView, view_of
from tracesim.schemas import OTEL

__all__ = ["instrumentation_error", "instrumentation_errors", "row_may_hold_exception"]

_PYTHON_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)[^\n]*\n?(.*)$', re.M)
_V8_FRAME = re.compile(r"^\s*at (?:.*?\()?((?:file://)?[^\s()]+?):(\d+):\d+\)?\s*$", re.M)
_SEGMENT = re.compile(r"[\\/]")
_MARKER = OTEL.EXCEPTION_EVENT


_CONTROL_FLOW = ("CancelledError", "GeneratorExit", "KeyboardInterrupt", "SystemExit", "AbortError")
"""Exceptions that stop a call from outside (a cancelled task, a consumer that stopped
iterating): raised wherever the call happened to be, never the instrumentation's failure."""


def _innermost_frame(stack: str) -> tuple[str, str] | None:
    """(path, line) of the frame that raised, in a Python traceback or a V8 stack; None when
    it raised at a `yield` (an exception thrown into a generator from outside)."""
    python = _PYTHON_FRAME.findall(stack)
    if python:
        path, line, source = python[-1]
        return None if source.strip().startswith("yield") else (path, line)
    v8 = _V8_FRAME.search(stack)
    return (v8.group(1), v8.group(2)) if v8 else None


def _in_instrumentation(path: str) -> bool:
    return any("instrumentation" in part.lower() for part in _SEGMENT.split(path)[:-1])


def instrumentation_error(view: SpanView) -> str | None:
    """Why `view`'s own record is incomplete (its instrumentation raised while recording
    it: type, message and where), or None."""
    for event in view.events:
        if not isinstance(event, Mapping) or event.get("name") != _MARKER:
            continue
        attributes = event.get("attributes") or {}
        if not isinstance(attributes, Mapping):
            continue
        kind = str(attributes.get(OTEL.EXCEPTION_TYPE) or "")
        if kind.endswith(_CONTROL_FLOW):
            continue
        stack = attributes.get(OTEL.EXCEPTION_STACKTRACE)
        frame = _innermost_frame(stack) if isinstance(stack, str) else None
        if frame is None or not _in_instrumentation(frame[0]):
            continue
        kind = kind or "an exception"
        message = str(attributes.get(OTEL.EXCEPTION_MESSAGE) or "").splitlines()
        said = f"{kind}: {message[0][:200]}" if message and message[0] else str(kind)
        where = "/".join(_SEGMENT.split(frame[0])[-4:])
        return (
            f"its instrumentation raised {said} (at {where}:{frame[1]}) while recording this "
            "call: the messages and tool requests it was writing are missing; upgrade or fix "
            "the instrumentation"
        )
    return None


def row_may_hold_exception(span: Any) -> bool:
    """False only for a `spans` row whose events text certainly holds no exception."""
    if type(span) is not dict:
        return True
    events = span.get("events")
    return not isinstance(events, str) or _MARKER in events


def instrumentation_errors(spans: Iterable[Any]) -> list[Unexplained]:
    """One `instrumentation_error` per span of `spans` (rows or views) whose exception was
    raised inside an instrumentation's code."""
    found: list[Unexplained] = []
    for span in spans:
        if not row_may_hold_exception(span):
            continue
        try:
            view = span if type(span) is SpanView else view_of(span)
            reason = instrumentation_error(view)
        except Exception:  # noqa: BLE001 - an unreadable span is the audit's, not ours
            continue
        if reason is not None:
            found.append(
                Unexplained(INSTRUMENTATION_ERROR, view.trace_id, view.span_id, view.name, reason)
            )
    return found
