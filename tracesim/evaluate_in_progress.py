"""`tracesim evaluate` on a file a `tracesim run` is still writing (`tracesim.run_marker`).

Its unfinished conversations (turns stored, no `conversations` row yet) would be graded as
they stand: a half-finished conversation fails goals it had no time to reach. A CI job that
evaluates too early must not get that verdict silently, so by default the evaluation is
refused (exit 3, incomplete); `--allow-in-progress` grades the finished conversations and
counts the unfinished ones as not graded, in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tracesim.run_marker import RunInProgress, run_in_progress

__all__ = ["InProgressRefused", "in_progress_note", "in_progress_selection"]

Select = Callable[[Any, Any], Any]


class InProgressRefused(Exception):
    """The evaluation would grade a run still in progress; `str()` is the one line."""


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _chats(store: Any, run: str) -> tuple[int, list[str]]:
    """(conversations of `run` stored so far, those not finished yet)."""
    total = store.query(f"SELECT count(DISTINCT chat_id) FROM turns WHERE run_id = {run}")
    unfinished = store.query(
        f"SELECT DISTINCT chat_id FROM turns WHERE run_id = {run} AND chat_id NOT IN "
        "(SELECT chat_id FROM conversations WHERE chat_id IS NOT NULL) ORDER BY 1"
    )
    return int(total.rows[0][0] or 0), [row[0] for row in unfinished.rows]


def in_progress_note(db: Any) -> str | None:
    """The line a reading command (`report`, `compare`) prints for `db` (an open store or a
    `--db` value) when a run is still writing it (its newest evaluation predates that run's
    end), or was killed before its end; None otherwise. Reading is not refused: the stored
    evaluations are whole."""
    path = getattr(db, "path", db)
    path = Path(path) if isinstance(path, str) else path  # a URL names no marker file
    marker = run_in_progress(path) if isinstance(path, Path) else None
    if marker is None:
        return None
    if not marker.alive:
        return (
            f"note: run {marker.run_id} in {path} stopped before its end (its process "
            f"{marker.pid} is gone): it never evaluated itself; `tracesim evaluate` grades "
            "what it stored"
        )
    return (
        f"note: run {marker.run_id} is still in progress in {path} (tracesim run, pid "
        f"{marker.pid}): its conversations are not evaluated yet; what follows is the newest "
        "evaluation stored before it ends"
    )


def in_progress_selection(
    store: Any, run_id: str | None, select: Select | None, *, allow: bool
) -> tuple[Select | None, list[str]]:
    """(the `select` hook to evaluate with, lines to print) for `store` evaluated with
    `run_id` (None: every run). Raises InProgressRefused unless `allow`."""
    path = getattr(store, "path", None)
    marker: RunInProgress | None = run_in_progress(path) if isinstance(path, Path) else None
    if marker is None or (run_id is not None and run_id != marker.run_id):
        return select, []
    total, unfinished = _chats(store, _literal(marker.run_id))
    if not marker.alive:
        return select, [
            f"note: run {marker.run_id} stopped before its end (its process {marker.pid} is "
            f"gone): {len(unfinished)} of its {total} conversation(s) never finished and are "
            "graded as they stand"
        ]
    if not unfinished:
        return select, []
    what = (
        f"run {marker.run_id} is still in progress in {path} (tracesim run, pid {marker.pid}): "
        f"{len(unfinished)} of its {total} conversation(s) stored so far are not finished"
    )
    if not allow:
        raise InProgressRefused(
            f"{what}; grading them now would fail them for turns not yet played. Wait for the "
            "run to end (it evaluates itself), or pass --allow-in-progress to grade the "
            "finished ones and count the others as not graded"
        )
    excluded = set(unfinished)

    def finished_only(store: Any, plan: Any) -> Any:
        from tracesim.evaluator.select import Selection, apply_selection

        plan = select(store, plan) if select is not None else plan
        keep = tuple(c for chunk in plan.chunks for c in chunk if c not in excluded)
        if not keep:
            return replace(plan, chunks=[], num_turns=0, num_traced_only=0, trace_chats=frozenset())
        narrowed, _ = apply_selection(store, plan, Selection(chat_ids=keep))
        return narrowed

    return finished_only, [f"{what}: not graded (--allow-in-progress)"]
