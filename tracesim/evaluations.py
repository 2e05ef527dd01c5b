"""Read a stored evaluation's digest (its scenarios' trials) by reference, from any store.

A reference is an eval id, a run id (its newest evaluation), a unique prefix of
either (the short id `tracesim run` prints), or `latest` (the
newest evaluation in the store that graded a scenario, else the newest; optionally
before a given one). The digest is
what the evaluation's `runs` row keeps in its `summary` (`trials`,
`scenarios`), so a comparison reads one row per side whatever the store holds.
Stores are opened read-only through `evaluator.store.open_store` (a DuckDB
file, the running collector holding it, ClickHouse), or an open `EvalStore` is
read as it is (the store an evaluation is writing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from tracesim.evaluator.stats.compare import EvaluationDigest

__all__ = ["EvaluationRefError", "incomplete_note", "load_digest"]

_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
_COLUMNS = "eval_id, run_id, kind, coalesce(finished_at, started_at) AS at, summary"


class EvaluationRefError(ValueError):
    """A reference that names no usable evaluation, or a store that cannot be read; the
    message says which and what to do (the CLI exits 2)."""


def _query(db: Any, build: Callable[[Any], str]) -> list[list[object]]:
    """Rows of the query `build(store)` on store `db` (a `--db` value or an open store)."""
    from tracesim.evaluator.store import EvalStore, StoreError, open_store

    try:
        if isinstance(db, EvalStore):
            return db.query(build(db)).rows
        with open_store(db, read_only=True) as store:
            return store.query(build(store)).rows
    except StoreError as exc:
        raise EvaluationRefError(f"{_label(db)}: {exc}") from None


_LATEST_SCAN = 64
"""Newest evaluations `latest` looks through for one that graded a scenario."""


def _summary(summary: Any) -> dict[str, Any]:
    """A `runs` row's summary as a dict ({} when unreadable)."""
    try:
        data = orjson.loads(summary) if isinstance(summary, (str, bytes)) else (summary or {})
    except orjson.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _label(db: Any) -> str:
    return str(getattr(db, "label", db))


_PREFIX = re.compile(r"^[0-9a-f]{4,31}$")
"""A short id as the terminal prints it (`tracesim run 004b17bb150b`): a unique prefix of
an eval id or a run id, as git takes a commit's."""


def _by_prefix(db: Any, ref: str, order: str) -> list[Any]:
    """The newest evaluation of the one eval id or run id starting with `ref` ([] when none;
    an error naming them when several do)."""
    where = f"WHERE eval_id LIKE '{ref}%' OR run_id LIKE '{ref}%'"  # hex: no wildcard
    rows = _query(
        db, lambda store: f"SELECT {_COLUMNS} FROM {store.final('runs')} {where} {order} 1000"
    )
    ids = {row[0] if str(row[0]).startswith(ref) else row[1] for row in rows}
    if len(ids) > 1:
        named = ", ".join(sorted(str(i) for i in ids)[:5]) + (" ..." if len(ids) > 5 else "")
        raise EvaluationRefError(
            f"{_label(db)}: {ref!r} is the start of {len(ids)} ids ({named}). "
            "Fix: give more characters of the one you mean"
        )
    return rows[:1]


def load_digest(db: Any, ref: str, *, exclude: str | None = None) -> EvaluationDigest:
    """The digest of evaluation `ref` in store `db`, a `--db` value or an open `EvalStore`
    (`latest` skips the eval id `exclude`)."""
    if not _REF.match(ref):
        raise EvaluationRefError(
            f"{ref!r} is not an evaluation reference: give an eval id, a run id or `latest`"
        )
    order = "ORDER BY coalesce(started_at, finished_at) DESC NULLS LAST, eval_id DESC LIMIT"
    if ref == "latest":
        where = f"WHERE eval_id <> '{exclude}'" if exclude and _REF.match(exclude) else ""
    else:
        where = f"WHERE eval_id = '{ref}' OR run_id = '{ref}'"

    def newest(limit: int) -> list[Any]:
        return _query(
            db,
            lambda store: f"SELECT {_COLUMNS} FROM {store.final('runs')} {where} {order} {limit}",
        )

    rows = newest(1)
    if not rows and _PREFIX.match(ref):
        rows = _by_prefix(db, ref, order)
    if ref == "latest" and rows and not _summary(rows[0][4]).get("scenarios"):
        # `latest` is the newest evaluation that graded a scenario: an hourly `--since` job
        # with no new traffic stores an empty one, which must not become the side compared
        graded = [row for row in newest(_LATEST_SCAN) if _summary(row[4]).get("scenarios")]
        rows = graded[:1] or rows
    db = _label(db)
    if not rows:
        if ref == "latest" and where:  # one evaluation stored: the other side's
            raise EvaluationRefError(
                f"{db}: only one evaluation stored ({exclude}, the candidate), and a "
                "comparison needs two. Fix: evaluate again after your change (tracesim run "
                "or tracesim evaluate), or give the baseline's own store with --baseline-db"
            )
        what = "no evaluation" if ref == "latest" else f"no evaluation or run {ref!r}"
        raise EvaluationRefError(
            f"{db}: {what} stored. Fix: list them with "
            f'`tracesim sql --db {db} "SELECT eval_id, run_id, kind, finished_at FROM runs"`'
        )
    eval_id, run_id, kind, at, summary = rows[0]
    data = _summary(summary)
    if "scenarios" not in data:
        raise EvaluationRefError(
            f"{db}: evaluation {eval_id} has no trials (it was written by an older tracesim). "
            f"Fix: re-evaluate it with `tracesim evaluate --db {db} --run-id {run_id}`"
        )
    return EvaluationDigest.model_validate(
        {
            "eval_id": eval_id,
            "run_id": run_id,
            "kind": kind,
            "created_at": at,
            "db": db,
            "trials": data.get("trials") or {},
            "scenarios": data.get("scenarios") or [],
        }
    )


def incomplete_note(db: Any, digest: EvaluationDigest, side: str) -> str | None:
    """A warning when the evaluation behind `digest` did not finish grading (exit code 3:
    judge requests failed, conversations ended by an error, ...): its pass counts leave
    out what it could not grade, so a comparison against it can say `unchanged` on
    nothing. None when it graded what it should."""
    if not _REF.match(digest.eval_id):
        return None
    try:
        rows = _query(
            db,
            lambda store: (
                f"SELECT exit_code, summary FROM {store.final('runs')} "
                f"WHERE eval_id = '{digest.eval_id}'"
            ),
        )
    except EvaluationRefError:
        return None
    if not rows or rows[0][0] != 3:
        return None
    usage = _summary(rows[0][1]).get("llm_usage") or {}
    failed = usage.get("failed") if isinstance(usage, dict) else None
    why = f" (judge: {failed} request(s) failed)" if isinstance(failed, int) and failed else ""
    return (
        f"warning: the {side} evaluation {digest.eval_id} was incomplete (exit code 3){why}: "
        "its pass counts leave out what it could not grade; evaluate it again "
        "(`tracesim evaluate`) before trusting this comparison"
    )
