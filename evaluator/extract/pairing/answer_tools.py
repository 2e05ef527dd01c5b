"""An agent's answer tool is not a tool call (SPEC §5): the agent's answer, sent through a tool.

Some agents answer the user by calling a tool (smolagents' `final_answer`, BeeAI's
`final_answer`, DSPy ReAct's `finish`). The general signal, whatever the tool's name: the
turn's LAST call takes one text argument, and that text is what the turn answered (a model
reply, an agent span's output or the turn's recorded answer, elsewhere in the turn). A
real tool whose text argument happens to be the final answer is the same thing: the
answer, sent through a tool.
DSPy's `finish` carries no answer (no arguments, a constant result); it is recognised by
that signature alone, named as specific (`conventions.DSPY`).

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
_FRAGMENT = 48
"""Characters of the answer looked for in a span's stored text before parsing it."""


def split_answer_tool(
    calls: list[ToolCall], others: Sequence[Any], traces: Mapping[str, str]
) -> tuple[list[ToolCall], list[Unexplained]]:
    """`calls` (in start order) without the turn's answer tool, and the item saying why.

    `others`: the turn's spans that are no tool call (views or rows); `traces`: a tool
    span's id -> its trace id."""
    if not calls:
        return calls, []
    last = calls[-1]
    why = _answer_tool(last, others)
    if why is None:
        return calls, []
    span_id = last.span_id or ""
    item = Unexplained(IGNORED_SPAN, traces.get(span_id, ""), span_id, last.name, why)
    return calls[:-1], [item]


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
