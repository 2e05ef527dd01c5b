"""Which conversations an evaluation (or a promotion) takes: recent, not yet evaluated,
named, failed, sampled (SPEC §14). Applied to a store's plan before anything is judged.

Order: `chat_ids` (named), `failed` (the newest evaluation of the chat has a
failed result), `since` (a span or turn of the chat started within the window),
`new_only` (no score of any evaluation yet), then the deterministic `sample`.
Every step's count is kept, so the command can say what it skipped and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from tracesim.evaluator.load.load import ChunkPlan
from tracesim.evaluator.select.sampling import Sample, choose

__all__ = ["Selection", "SelectionReport", "apply_selection", "chat_last_seen"]

_TIME_COLUMNS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "start_time",
    "end_time",
    "chat_id",
    "turn_id",
)


@dataclass(frozen=True)
class Selection:
    """What to take from a store (every field optional)."""

    chat_ids: tuple[str, ...] = ()
    failed: bool = False
    since: timedelta | None = None
    new_only: bool = False
    sample: Sample | None = None
    seed: int = 0

    @property
    def active(self) -> bool:
        return bool(self.chat_ids or self.failed or self.since or self.new_only or self.sample)


@dataclass
class SelectionReport:
    """How many conversations each step kept (for the command's message)."""

    total: int = 0
    steps: list[tuple[str, int]] = field(default_factory=list)
    unknown_chat_ids: list[str] = field(default_factory=list)

    def describe(self) -> str:
        parts = [f"{self.total} conversations"] + [f"{name}: {n}" for name, n in self.steps]
        return ", ".join(parts)


def chat_last_seen(store: Any, plan: ChunkPlan, *, run_id: str | None) -> dict[str, datetime]:
    """Each chat's latest span or turn start (chats with no time at all are left out)."""
    seen: dict[str, datetime] = {}
    for _, conversations in store.chunks(plan, run_id=run_id, span_columns=_TIME_COLUMNS):
        for data in conversations:
            times = [s.get("start_time") for rows in data.spans_by_turn.values() for s in rows]
            times += [t.get("start_time") for t in data.turns]
            times = [t for t in times if isinstance(t, datetime)]
            if times:
                seen[data.chat_id] = max(t.replace(tzinfo=None) for t in times)
    return seen


def _restrict(plan: ChunkPlan, keep: set[str]) -> ChunkPlan:
    chunks = [[c for c in chunk if c in keep] for chunk in plan.chunks]
    chunks = [c for c in chunks if c]
    kept = sum(len(c) for c in chunks)
    total = plan.num_conversations or 1
    return replace(
        plan,
        chunks=chunks,
        num_turns=round(plan.num_turns * kept / total),
        num_traced_only=min(plan.num_traced_only, kept),
        trace_chats=frozenset(c for c in plan.trace_chats if c in keep),
    )


def apply_selection(
    store: Any,
    plan: ChunkPlan,
    selection: Selection,
    *,
    run_id: str | None = None,
    now: datetime | None = None,
) -> tuple[ChunkPlan, SelectionReport]:
    """`plan` restricted to the selected chats, and the counts of each step."""
    chats = [c for chunk in plan.chunks for c in chunk]
    report = SelectionReport(total=len(chats))
    keep = set(chats)
    if selection.chat_ids:
        wanted = set(selection.chat_ids)
        report.unknown_chat_ids = sorted(wanted - keep)
        keep &= wanted
        report.steps.append(("named", len(keep)))
    if selection.failed:
        keep &= store.scored_chats(failed=True)
        report.steps.append(("failed in their latest evaluation", len(keep)))
    if selection.since is not None:
        now = now or datetime.now(timezone.utc).replace(tzinfo=None)
        cutoff = now - selection.since
        seen = chat_last_seen(store, _restrict(plan, keep), run_id=run_id)
        keep = {c for c in keep if c in seen and seen[c] >= cutoff}
        report.steps.append((f"active since {cutoff:%Y-%m-%d %H:%M}", len(keep)))
    if selection.new_only:
        keep -= store.scored_chats()
        report.steps.append(("not evaluated yet", len(keep)))
    if selection.sample is not None:
        keep = choose(keep, selection.sample, seed=selection.seed)
        report.steps.append((f"sampled (seed {selection.seed})", len(keep)))
    return _restrict(plan, keep), report
