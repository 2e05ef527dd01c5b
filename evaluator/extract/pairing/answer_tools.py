"""An agent's answer tool is not a tool call (SPEC §5): the agent's answer, sent through a tool.

Some agents answer the user by calling a tool (smolagents' `final_answer`, BeeAI's
`final_answer`, DSPy ReAct's `finish`). The general signal, whatever the tool's name: the
turn's LAST call takes one text argument, and that text is what the turn answered (a model
reply, an agent span's output or the turn's recorded answer, elsewhere in the turn). A
real tool whose text argument happens to be the final answer is the same thing: the
answer, sent through a tool.
DSPy's `finish` carries no answer (no arguments, a constant result); it is recognised by
that signature alone, named as specific (`conventions.DSPY`).

A delegate agent run inside a call (a managed agent, an agent used as a tool) answers its
caller the same way: the last call below the delegate's call whose one text argument is that
call's result (or its last lines, after the framework's own words) is the delegate's answer,
not a call (smolagents' managed agents).

An answer tool is taken out of the calls and listed as `ignored_span` (inspect lists it,
evaluate does not warn), so its model request is explained, never dropped in silence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracesim.evaluator.extract.audit import IGNORED_SPAN, Unexplained
from tracesim.evaluator.extract.dialogue import replies
from tracesim.evaluator.extract.span import SpanView, view_of
from tracesim.schemas import ToolCall
from tracesim.schemas.conventions import DSPY, TRACESIM

__all__ = ["split_answer_tool"]

_GENERAL = "the agent's answer tool: its argument is the turn's answer (not a call)"
_DELEGATE = "a delegate agent's answer tool: its argument is the delegate call's result (not a call)"
_MAX_DEPTH = 64
"""Ancestors walked from a call's span to the call it runs in (cycles are cut there too)."""
_FRAGMENT = 48
"""Characters of the answer looked for in a span's stored text before parsing it."""


def split_answer_tool(
    calls: list[ToolCall],
    others: Sequence[Any],
    traces: Mapping[str, str],
    parents: Mapping[str, str] | None = None,
) -> tuple[list[ToolCall], list[Unexplained]]:
    """`calls` (in start order) without the turn's answer tools, and the items saying why.

    `others`: the turn's spans that are no tool call (views or rows); `traces`: a tool
    span's id -> its trace id; `parents`: a tool span's id -> its parent span's id."""
    if not calls:
        return calls, []
    items: list[Unexplained] = []
    last = calls[-1]
    why = _answer_tool(last, others)
    if why is not None:
        span_id = last.span_id or ""
        items.append(Unexplained(IGNORED_SPAN, traces.get(span_id, ""), span_id, last.name, why))
        calls = calls[:-1]
    delegated = _delegate_answers(calls, others, parents or {})
    if delegated:
        calls = [call for call in calls if (call.span_id or "") not in delegated]
        for span_id, call in delegated.items():
            items.append(
                Unexplained(IGNORED_SPAN, traces.get(span_id, ""), span_id, call.name, _DELEGATE)
            )
    return calls, items


def _delegate_answers(
    calls: list[ToolCall], others: Sequence[Any], tool_parents: Mapping[str, str]
) -> dict[str, ToolCall]:
    """span id -> the call that is a delegate agent's answer tool (see the module doc).

    Only calls with one text argument and a span are candidates; the span tree is read only
    when there is one, so turns without nested calls pay nothing."""
    if len(calls) < 2:
        return {}
    candidates = []
    for call in calls:
        text = _sole_text(call.arguments) if call.span_id and call.error is None else None
        if text is not None and any(
            other is not call
            and isinstance(other.result, str)
            and _ends_with_answer(other.result, text)
            for other in calls
        ):
            candidates.append(call)  # another call's result is its text: read the tree
    if not candidates:
        return {}
    by_span = {c.span_id: c for c in calls if c.span_id}
    parents: dict[str, str] = {}
    for span in others:
        view = span if type(span) is SpanView else view_of(span)
        parents[view.span_id] = view.parent_span_id
    parents.update(tool_parents)
    enclosing: dict[str, str] = {}  # call span -> the call span it runs in
    for call in calls:
        here = parents.get(call.span_id or "", "")
        for _ in range(_MAX_DEPTH):
            if not here or here == call.span_id:
                break
            if here in by_span:
                enclosing[call.span_id or ""] = here
                break
            here = parents.get(here, "")
    found: dict[str, ToolCall] = {}
    for call in candidates:
        outer = enclosing.get(call.span_id or "")
        if outer is None or enclosing.get(outer) == call.span_id:  # none, or a parent cycle
            continue
        inner = [c for c in calls if enclosing.get(c.span_id or "") == outer]
        text = _sole_text(call.arguments) or ""
        result = by_span[outer].result
        if inner[-1] is call and isinstance(result, str) and _ends_with_answer(result, text):
            found[call.span_id or ""] = call
    return found


def _answer_tool(call: ToolCall, others: Sequence[Any]) -> str | None:
    """Why `call` is the agent's answer, or None when it is a call."""
    if (
        call.name == DSPY.FINISH_TOOL
        and not call.arguments
        and call.error is None
        and str(call.result or "").strip().strip('"') == DSPY.FINISH_RESULT
    ):
        return "DSPy ReAct's finish tool (ends the agent's loop, not a call; specific)"
    text = _sole_text(call.arguments)
    if text is None:
        return None
    fragment = _fragment(text)
    for span in others:
        view = span if type(span) is SpanView else view_of(span)
        if view.span_id == (call.span_id or "") or (
            fragment is not None and not view.raw_may_hold(fragment)
        ):
            continue
        attributes = view.attributes
        reported = attributes.get(TRACESIM.AGENT_MESSAGE)  # the turn's answer, as recorded
        if isinstance(reported, str) and reported.strip() == text:
            return _GENERAL
        if text in replies({"attributes": attributes, "events": view.events}):
            return _GENERAL
    return None


def _ends_with_answer(result: str, text: str) -> bool:
    """Whether a delegate call's result is `text`, or ends with it as whole lines (a
    framework's own words before the delegate's answer); a mere substring is not."""
    result = result.strip()
    return result == text or result.endswith("\n" + text)


def _sole_text(arguments: Any) -> str | None:
    """The one non-empty text argument of a call, else None."""
    if not isinstance(arguments, Mapping) or len(arguments) != 1:
        return None
    (value,) = arguments.values()
    return value.strip() or None if isinstance(value, str) else None


def _fragment(text: str) -> str | None:
    """A piece of `text` that stored JSON holds verbatim however often it was escaped (no
    quote, backslash, control or non-ASCII character), else None (parse every span)."""
    piece = text[:_FRAGMENT]
    if piece.isascii() and piece.isprintable() and '"' not in piece and "\\" not in piece:
        return piece
    return None
