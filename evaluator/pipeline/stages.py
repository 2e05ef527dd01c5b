"""Per-conversation stages of an evaluation: the work item, and deriving tool calls.

`ConversationWork` carries one conversation through the pipeline: its rows,
its merged tool calls per turn, and the results gathered at turn and
conversation level. Every stage records failures as results; none raises.
The later stages have modules of their own: the checks (`check_stage`) and
scoring (`score_stage`). Stages append rows to column lists (`evaluator.output.output`) instead of
building an object per row: they run once per turn on every stored turn.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from tracesim.evaluator.calls.merge import merge_tool_calls
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.audit import Unexplained, count_kinds, settle
from tracesim.evaluator.extract.pairing.outcome import unanswered_calls
from tracesim.evaluator.load.load import ConversationData, DecodedSpans, explicit_calls
from tracesim.evaluator.output.output import ToolCallColumns
from tracesim.schemas import MetricResult, ToolCall

__all__ = [
    "ConversationWork",
    "add_results",
    "derive_calls",
    "tag",
]

log = logging.getLogger(__name__)


@dataclass
class ConversationWork:
    """One conversation being evaluated: rows, merged calls, results so far."""

    data: ConversationData
    calls: list[list[ToolCall]] = field(default_factory=list)
    turn_results: list[list[MetricResult]] = field(default_factory=list)
    conv_results: list[MetricResult] = field(default_factory=list)
    evidence: dict[str, int] = field(default_factory=dict)
    """Tool evidence no call explains, per kind (`evaluator.extract.audit`)."""

    def context(self, index: int | None) -> MetricContext:
        """The MetricContext of turn `index` (by position), or of the conversation (None).

        The spans' JSON columns are parsed on first access (`DecodedSpans`): extraction
        reads them as text, judges not at all.
        """
        data = self.data
        if index is None:
            spans = DecodedSpans([s for rows in data.spans_by_turn.values() for s in rows])
            return MetricContext(
                chat_id=data.chat_id,
                conversation=data.conversation,
                scenario=data.scenario,
                turns=data.turns,
                turn_tool_calls=self.calls,
                tool_calls=[c for calls in self.calls for c in calls],
                spans=spans,
            )
        turn = data.turns[index]
        return MetricContext(
            chat_id=data.chat_id,
            conversation=data.conversation,
            scenario=data.scenario,
            turns=data.turns,
            turn_tool_calls=self.calls,
            turn=turn,
            tool_calls=self.calls[index],
            spans=DecodedSpans(data.spans_by_turn.get(turn["turn_id"], [])),
        )


def tag(result: MetricResult, kind: str) -> MetricResult:
    """`result` with `details["kind"]` set (judge, check, check_info, custom, score), in place:
    callers tag results they just made (a copy per result is measurable at 100k turns)."""
    if result.details.get("kind") != kind:
        result.details = {"kind": kind, **result.details}
    return result


def add_results(works: Sequence[ConversationWork], results: Sequence[MetricResult]) -> None:
    """Give every conversation the judges would grade (not the traced-only ones whose spans
    carry no messages) its own copy of `results` (conversation level): the judges' not-run
    results."""
    from tracesim.evaluator.pipeline.production import has_messages

    if not results:
        return
    for work in works:
        if not work.data.traced_only or has_messages(work.data):
            work.conv_results.extend(
                r.model_copy(update={"details": _fresh(r.details)}) for r in results
            )


def _fresh(value: Any) -> Any:
    """A copy of JSON-like `value` whose dicts and lists are new (what `deepcopy` gives a
    result's details, at a fraction of its cost: 7 not-run results per conversation)."""
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    if type(value) is list:
        return [_fresh(v) for v in value]
    if value is None or isinstance(value, (str, int, float)):  # bool is an int
        return value
    return copy.deepcopy(value)


def derive_calls(work: ConversationWork, rows: ToolCallColumns) -> None:
    """Merge explicit and traced calls of every turn; append the `tool_calls` rows to `rows`."""
    data = work.data
    spans_by_turn = data.spans_by_turn
    # One view of the conversation's spans for all its turns: parsed once, not per turn
    # (a fresh context per turn made long conversations quadratic).
    context = ConversationSpans(chain.from_iterable(spans_by_turn.values()))
    audit: list[Unexplained] = []
    for turn in data.turns:
        turn_id = int(turn["turn_id"])
        try:
            spans = spans_by_turn.get(turn_id, ())
            traced = extract_tool_calls(spans, context=context, audit=audit)
            merged = merge_tool_calls(explicit_calls(turn), traced)
        except Exception:  # noqa: BLE001 - one turn's spans never stop the evaluation
            log.exception("chat %s turn %s: tool-call derivation failed", data.chat_id, turn_id)
            merged = explicit_calls(turn)
        work.calls.append(merged)
        work.turn_results.append([])
        rows.add_turn(data.chat_id, turn_id, turn.get("run_id"), merged)
    # settled first: `settle` would take an unanswered call's own id for an explanation
    items = settle(audit, chain.from_iterable(work.calls)) if audit else []
    items.extend(unanswered_calls(chain.from_iterable(work.calls)))
    if items:
        work.evidence = count_kinds(items)
