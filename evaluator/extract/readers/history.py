"""Calls a model input replays in its history (SPEC §5: requests are evidence wherever the
messages carry them).

A model input carries the conversation so far: the assistant messages' tool calls and the
tool messages answering them. Where a reply's own tool calls are not recorded on its model
span (streamed replies whose output is a stream object, instrumentations that record only
the prompt), the next model input is the only evidence of them. Read in message order:
- OpenInference: `llm.input_messages.{i}.message.tool_calls.{j}.tool_call.{id, function.name,
  function.arguments}` (Groq streamed under OpenInference);
- the legacy indexed prompt: `gen_ai.prompt.{i}.tool_calls.{j}.{id, name, arguments}` (Ollama
  under OpenLLMetry, plain and streamed);
- OTel GenAI `gen_ai.input.messages`: `tool_call` parts, OpenAI-style `tool_calls`;
- `gen_ai.assistant.message` events and log records (`tool_calls`).

Each model input repeats the history, so the longest one of a turn holds every call of the
turn that earlier turns' inputs did not.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from tracesim.evaluator.extract.pairing.recover import (
    from_indexed,
    from_messages,
    safe_requested_calls,
)
from tracesim.evaluator.extract.pieces import REPLAY, CallPiece
from tracesim.evaluator.extract.provenance import note
from tracesim.evaluator.extract.readers.fields import parse_arguments
from tracesim.evaluator.extract.readers.requests import (
    LEGACY_FIELDS,
    LEGACY_TOOL_CALLS,
    OI_FIELDS,
    OI_TOOL_CALLS,
)
from tracesim.evaluator.extract.span import SpanView, json_or_none
from tracesim.schemas import GENAI, OPENINFERENCE, ToolCall, ToolCallSource

__all__ = ["carries_input", "replayed_calls", "row_may_replay_calls", "turn_replays"]

logger = logging.getLogger(__name__)

_ASSISTANT_EVENT = "gen_ai.assistant.message"
_MARKERS = (
    f'"{OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX}',
    f'"{GENAI.PROMPT_PREFIX}',
    f'"{GENAI.INPUT_MESSAGES}"',
    _ASSISTANT_EVENT,
)


def row_may_replay_calls(view: SpanView) -> bool:
    """Whether a view's input may carry a history with tool calls."""
    return bool(view.events) or view.may_hold_text(*_MARKERS)


_INPUT_PREFIXES = (OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, GENAI.PROMPT_PREFIX)
_INPUT_EVENTS = frozenset(
    ("gen_ai.system.message", "gen_ai.user.message", _ASSISTANT_EVENT, "gen_ai.tool.message")
)


def carries_input(view: SpanView) -> bool:
    """Whether a view records a model input's messages (any convention), so what it
    replays is the whole history so far (a span without one replays nothing)."""
    if any(event.get("name") in _INPUT_EVENTS for event in view.events):
        return True
    if not view.may_hold_text(*_MARKERS[:3]):
        return False  # the stored text names no input convention (decided on the text)
    attributes = view.attributes  # decided on the attributes themselves, text or not
    return GENAI.INPUT_MESSAGES in attributes or any(
        key.startswith(_INPUT_PREFIXES) for key in attributes
    )


def _raw(view: SpanView) -> list[dict[str, Any]]:
    raw: list[dict[str, Any]] = []
    attributes = view.attributes
    if view.may_hold_text(*_MARKERS[:3]):
        raw.extend(
            from_indexed(
                attributes, OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, OI_TOOL_CALLS, OI_FIELDS
            )
        )
        raw.extend(
            from_indexed(attributes, GENAI.PROMPT_PREFIX, LEGACY_TOOL_CALLS, LEGACY_FIELDS)
        )
        messages = attributes.get(GENAI.INPUT_MESSAGES)
        if messages:
            raw.extend(from_messages(messages))
    for event in view.events:
        if event.get("name") != _ASSISTANT_EVENT:
            continue
        event_attributes = event.get("attributes")
        calls = (
            event_attributes.get("tool_calls")
            if (type(event_attributes) is dict or isinstance(event_attributes, Mapping))
            else None
        )
        calls = json_or_none(calls) if isinstance(calls, str) else calls
        if isinstance(calls, list):
            raw.extend(from_messages([{"tool_calls": calls}]))
    return raw


def replayed_calls(view: SpanView) -> list[CallPiece]:
    """The tool calls `view`'s model input replays, in message order (id "" when none);
    empty for a span that cannot be read (logged)."""
    try:
        raw = _raw(view) if row_may_replay_calls(view) else []
    except Exception as exc:  # one bad model span must not stop extraction
        logger.warning("skipping span %s for replayed calls: %s", view.span_id, exc)
        return []
    order = view.sort_key()
    calls = []
    for item in raw:
        name = item.get("name")
        if name:
            arguments = parse_arguments(item.get("arguments"))
            calls.append(
                CallPiece(str(item.get("id") or ""), str(name), None, arguments, order, kind=REPLAY)
            )
    return calls


def _latest_history(views: list[SpanView]) -> list[CallPiece]:
    """The calls replayed by the latest of `views` (in start order) that replays any."""
    for view in reversed(views):
        found = replayed_calls(view)
        if found:
            return found
    return []


def turn_replays(
    models: list[SpanView],
    conversation: list[SpanView],
    requested: list[tuple[CallPiece, ToolCall]],
    aliases: dict[int, str] | None = None,
) -> list[ToolCall]:
    """Calls of this turn known only from the history a model input replays (the reply's
    own requests unrecorded: streamed replies, prompt-only instrumentations): the turn's
    latest history minus what earlier turns' inputs replayed, minus the calls the turn's
    requests already are (same id; an id-less one by position and name). A request whose
    arguments are empty takes the replayed ones of its call (the fuller source).

    One call under two ids: a replay of the same name and arguments at a request's
    position under another id (the Responses API's item id in the reply, its `call_id` in
    the history and the answer) is that request's call; it takes the replay's id (the one
    answers and later inputs name) and the request's becomes its alias (`aliases`: the
    call's index in `requested` -> the other id, filled in place)."""
    if not models:
        return []
    start = models[0].sort_key()
    mine = _latest_history(models)
    if not mine:
        return []
    # what the turn's first model input already replays was called before the turn (in
    # earlier turns, captured or not: a trace of its own per model call replays them all)
    first = next((v for v in models if carries_input(v)), None)
    before = replayed_calls(first) if first is not None else []
    if not before:
        before = _latest_history([v for v in conversation if v.sort_key() < start])
    new = mine[len(before) :] if len(before) <= len(mine) else []
    known = {r.id for v in conversation for r in safe_requested_calls(v)}
    pending: dict[str, list[ToolCall]] = {}  # name -> the turn's calls not yet matched
    index_of: dict[int, int] = {}
    for index, (request, call) in enumerate(requested):
        pending.setdefault(request.name, []).append(call)
        index_of[id(call)] = index
    by_id = {request.id: call for request, call in requested if request.id}
    extra: list[ToolCall] = []
    for item in new:
        if item.id and item.id in known:
            call = by_id.get(item.id)
            if call is not None:
                waiting = pending.get(call.name, [])
                pending[call.name] = [c for c in waiting if c is not call]
                _fill_arguments(call, item)
            continue
        waiting = pending.get(item.name)
        if waiting:  # a request of the turn, by position (ids missing or rewritten)
            call = waiting.pop(0)
            if item.id and call.id and item.id != call.id and item.same_arguments(call.arguments):
                _rename(call, item, aliases, index_of[id(call)])
            _fill_arguments(call, item)
            continue
        extra.append(
            ToolCall(
                id=item.id,
                name=item.name,
                arguments=dict(item.arguments),
                source=ToolCallSource.TRACING_PROCESSOR,
                span_id=None,
                start_time=_first_replay(models, item),
                provenance=_replay_provenance(item),
            )
        )
    return extra


def _rename(call: ToolCall, item: CallPiece, aliases: dict[int, str] | None, index: int) -> None:
    """A request's call replayed under another id: the replay's id is the call's (answers
    name it), the request's its alias."""
    if aliases is not None:
        aliases[index] = call.id
    call.id = item.id
    note(call, "id", REPLAY)


def _fill_arguments(call: ToolCall, item: CallPiece) -> None:
    """Empty arguments of a recorded request from its replay (a streamed request lost
    them: the fuller source of the same call)."""
    if not call.arguments and item.arguments:
        call.arguments = dict(item.arguments)
        note(call, "arguments", REPLAY)


def _first_replay(models: list[SpanView], item: CallPiece) -> Any:
    """The start of the first model span whose input replays `item` (the call ran before)."""
    for view in models:
        if any(r.name == item.name and r.id == item.id for r in replayed_calls(view)):
            return view.start_time
    return None


def _replay_provenance(item: CallPiece) -> dict[str, str]:
    provenance = {"name": REPLAY}
    if item.id:
        provenance["id"] = REPLAY
    if item.arguments:
        provenance["arguments"] = REPLAY
    return provenance
