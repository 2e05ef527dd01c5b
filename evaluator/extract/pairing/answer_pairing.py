"""The one pairing step of answers with calls (SPEC §5): a call without an outcome takes
the answer a later model input carried back, by id (or alias), by position for ids made
up per request, then id-less answers by position and tool name, then answers under
rewritten ids by position when exactly as many (`answers` reads the answers)."""

from __future__ import annotations

from dataclasses import dataclass

from tracesim.evaluator.extract.pairing.recover import safe_requested_calls
from tracesim.evaluator.extract.provenance import INPUT, INPUT_POSITION
from tracesim.evaluator.extract.readers.answers import Answer, AnswerHistory, view_answers
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ToolCall

__all__ = ["Fresh", "pair_answers"]


def _apply(call: ToolCall, answer: Answer, kind: str) -> None:
    provenance = call.provenance if call.provenance is not None else {}
    call.provenance = provenance
    if answer.failed:
        call.error = answer.text
        provenance["error"] = kind
    elif answer.text is not None:
        call.result = answer.text
        provenance["result"] = kind


def pair_answers(
    calls: list[ToolCall],
    history: AnswerHistory,
    *,
    reused: dict[int, tuple[str, int]] | None = None,
    aliases: dict[int, str] | None = None,
    by_id: bool = True,
    after: tuple | None = None,
    fresh: Fresh | None = None,
) -> None:
    """Give `calls` without an outcome their answers, in place (the one pairing step of
    answers with calls): a call under an id made up per request (`reused`: index in
    `calls` -> (id, ordinal)) takes the answer of its position and loses the id, which
    names no one call; a call with an id takes the answer of that id, else of its alias
    (`aliases`: index -> the other id naming it) (not `by_id`: left to the caller); then
    calls still without one (id-less, or under an id no answer names) take the answers
    naming no id in order, by tool name (`after`: the turn's first model span's sort key;
    answers first carried before it are earlier turns'); then (`fresh`: ids rewritten
    between request and answer) the turn's answers under ids nothing names, in order, only
    when exactly as many as the calls still without one (never guessed otherwise)."""
    reused = reused or {}
    aliases = aliases or {}
    for index, (call_id, ordinal) in reused.items():
        call = calls[index]
        call.id = ""
        if call.provenance is not None:
            call.provenance.pop("id", None)
        answer = history.nth(call_id, ordinal)
        if answer is not None and call.error is None:
            _apply(call, answer, INPUT_POSITION)
    answered = history.first
    if by_id:
        for index, call in enumerate(calls):
            if call.error is None and call.result is None and index not in reused:
                answer = answered.get(call.id) if call.id else None
                if answer is None and index in aliases:
                    answer = answered.get(aliases[index])
                if answer is not None:
                    _apply(call, answer, INPUT)
    waiting = [
        index
        for index, call in enumerate(calls)
        if call.result is None
        and call.error is None
        and index not in reused
        and (not call.id or (by_id and call.id not in answered))
    ]
    if not waiting:
        return
    left = history.unnamed(after)
    for index in waiting:
        call = calls[index]
        at = next((i for i, a in enumerate(left) if a.name in ("", call.name)), None)
        if at is not None:
            _apply(call, left.pop(at), INPUT_POSITION)
    if fresh is not None:
        left = [i for i in waiting if calls[i].result is None and calls[i].error is None]
        _pair_fresh(calls, left, fresh)


@dataclass(frozen=True, slots=True)
class Fresh:
    """Where answers under rewritten ids may be: the turn's model views (in start order);
    ids that name a known call: those the requests of `requesters` name, and `aliases`."""

    views: list[SpanView]
    requesters: list[SpanView]
    aliases: set[str]


def _pair_fresh(calls: list[ToolCall], waiting: list[int], fresh: Fresh) -> None:
    """Answers first carried after the first waiting call started, under ids nothing
    names, paired in order when exactly as many as the waiting calls."""
    starts = [calls[i].start_time for i in waiting]
    if not waiting or None in starts:
        return
    first = min(starts)  # type: ignore[type-var]
    named = fresh.aliases | {c.id for c in calls}
    for view in fresh.requesters:
        named.update(r.id for r in safe_requested_calls(view))
    seen: set[str] = set()
    found: list[Answer] = []
    for view in fresh.views:
        for answer in view_answers(view):
            if answer.call_id in seen:
                continue
            seen.add(answer.call_id)
            start = view.start_time
            if answer.call_id not in named and start is not None and start >= first:
                found.append(answer)
    if len(found) == len(waiting):
        for index, answer in zip(waiting, found, strict=True):
            _apply(calls[index], answer, INPUT_POSITION)
