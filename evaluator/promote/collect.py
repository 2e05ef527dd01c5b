"""Read a store's conversations for promotion: selected, tool calls derived, definitions found.

`promote_store` walks the chosen conversations chunk by chunk (memory bounded
like an evaluation), derives each turn's merged tool calls exactly as
`tracesim evaluate` does, and returns one `Promotion` per conversation, the
goal and knowledge summarised by `summarise` when an LLM is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.checks.validity import tool_definitions_from_spans
from tracesim.evaluator.load.load import DecodedSpans
from tracesim.evaluator.output.output import ToolCallColumns
from tracesim.evaluator.pipeline.stages import ConversationWork, derive_calls
from tracesim.evaluator.promote.scenario import Promotion, Summary, conversation_scenario
from tracesim.evaluator.select import Selection, SelectionReport, apply_selection
from tracesim.schemas.tool_definitions import ToolDefinitionError, tool_definitions

__all__ = ["PromotionResult", "promote_store"]


@dataclass
class PromotionResult:
    """The promotions, in chat_id order, and how the conversations were chosen."""

    promotions: list[Promotion] = field(default_factory=list)
    selection: SelectionReport | None = None

    @property
    def scenarios(self) -> list[dict[str, Any]]:
        return [p.scenario for p in self.promotions if p.scenario is not None]

    @property
    def skipped(self) -> list[Promotion]:
        return [p for p in self.promotions if p.scenario is None]


def _definitions(data: Any) -> list[Any]:
    raw = data.scenario.get("tools") if data.scenario else None
    if raw:
        try:
            return tool_definitions(raw)
        except ToolDefinitionError:
            pass
    spans = DecodedSpans([s for rows in data.spans_by_turn.values() for s in rows])
    return tool_definitions_from_spans(spans)


def promote_store(
    store: Any,
    selection: Selection,
    *,
    summarise: Callable[[Sequence[Sequence[str]]], list[Summary]] | None = None,
    max_rows: int = 20_000,
) -> PromotionResult:
    """One Promotion per selected conversation of `store` (an open `EvalStore`)."""
    store.prepare()  # tracesim's own views and tables (ClickHouse: created beside the exporter's)
    plan = store.plan(run_id=None, max_rows=max_rows)
    plan, report = apply_selection(store, plan, selection)
    result = PromotionResult(selection=report)
    pending: list[tuple[Any, list, list]] = []
    for _, conversations in store.chunks(plan, run_id=None, span_columns=None):
        for data in conversations:
            work = ConversationWork(data)
            derive_calls(work, ToolCallColumns())
            pending.append((data, work.calls, _definitions(data)))
    summaries: list[Summary | None] = [None] * len(pending)
    if summarise is not None:
        wanted = [
            i
            for i, (data, _, _) in enumerate(pending)
            if data.turns and all(t.get("user_message") for t in data.turns)
        ]
        answers = summarise([[t["user_message"] for t in pending[i][0].turns] for i in wanted])
        for i, summary in zip(wanted, answers, strict=True):
            summaries[i] = summary
    try:  # calls that failed their checks are never asserted (promote.scenario)
        failed = store.scored_chats(by_calls=True) if pending else set()
    except NotImplementedError:
        failed = set()
    used: set[str] = set()
    for (data, calls, definitions), summary in zip(pending, summaries, strict=True):
        promotion = conversation_scenario(
            data.chat_id,
            data.turns,
            calls,
            definitions=definitions,
            summary=summary,
            store=getattr(store, "label", None),
            failed=data.chat_id in failed,
            played=data.scenario or None,
        )
        if promotion.scenario is not None:  # ids made file-safe may collide: keep them unique
            base = scenario_id = promotion.scenario["scenario_id"]
            n = 1
            while scenario_id in used:
                n += 1
                scenario_id = f"{base}-{n}"
            used.add(scenario_id)
            promotion.scenario["scenario_id"] = scenario_id
        result.promotions.append(promotion)
    return result
