"""Which conversations `tracesim evaluate` grades: the run (newest by default, `--run-id`,
`--all-runs`) and a production selection (`--since`, `--sample`), refusing to write an
evaluation of nothing."""

from __future__ import annotations

from typing import Any

__all__ = ["NothingSelected", "choose_run", "production_selection", "refusing_empty"]


def choose_run(store: Any, run_id: str | None, *, all_runs: bool) -> tuple[str | None, str]:
    """(run_id to evaluate, a sentence saying what is evaluated) for the evaluate command,
    on an open `EvalStore`.

    Default: the newest run when the file holds several (by its conversations' start
    time), everything when it holds one run or none (`tracesim collect` traces). A store
    that does not choose (ClickHouse: production traces) evaluates every conversation,
    or the run asked for.
    """
    runs = store.runs_newest_first()
    if runs is None:
        what = (
            f"evaluating run {run_id} in {store.label}" if run_id else f"evaluating {store.label}"
        )
        return run_id, what
    if run_id is not None:
        starting = [run for run in runs if run.startswith(run_id)] if len(run_id) >= 4 else []
        if run_id not in runs and len(starting) == 1:  # the short id `tracesim run` prints
            run_id = starting[0]
        if run_id not in runs:  # else an evaluation of nothing, written over the last one
            known = ", ".join(runs[:10]) + (f" and {len(runs) - 10} more" if len(runs) > 10 else "")
            raise ValueError(
                f"--run-id {run_id}: no such run in {store.label}; "
                + (f"its runs, newest first: {known}" if runs else "it holds no run")
                + " (or --all-runs for every conversation)"
            )
        return run_id, f"evaluating run {run_id}"
    if all_runs or len(runs) <= 1:
        what = "every conversation in the file" if all_runs else "the file"
        if not runs:
            return None, f"evaluating {what}: collected conversations, no tracesim run"
        return None, f"evaluating {what} ({len(runs)} run(s))"
    return runs[0], (
        f"evaluating the newest run {runs[0]}; the file holds {len(runs)} runs "
        "(--run-id ID for another, --all-runs for all)"
    )


class NothingSelected(Exception):
    """--since/--sample kept no conversation: nothing to grade, so no evaluation is written
    (an empty one would be an hourly job's noise, and `latest` for a careless reader)."""

    def __init__(self, report: Any) -> None:
        super().__init__(report.describe())
        self.report = report


def refusing_empty(select: Any, reports: list[Any]) -> Any:
    """`select` (a production selection appending to `reports`) raising NothingSelected
    when it keeps nothing."""

    def nonempty(store: Any, plan: Any) -> Any:
        narrowed = select(store, plan)
        if not narrowed.num_conversations:
            raise NothingSelected(reports[-1])
        return narrowed

    return nonempty


def production_selection(
    since: str | None, sample: str | None, seed: int, include_evaluated: bool
) -> tuple[Any, list[Any]]:
    """The `select` hook of `evaluate_db` for --since/--sample (None without them), and the
    list its SelectionReport is appended to. ValueError names the bad option."""
    from tracesim.evaluator.select import Selection, apply_selection, parse_sample, parse_since

    if since is None and sample is None:
        if include_evaluated:
            raise ValueError("--all goes with --since or --sample")
        return None, []
    selection = Selection(
        since=parse_since(since) if since is not None else None,
        sample=parse_sample(sample) if sample is not None else None,
        seed=seed,
        new_only=not include_evaluated,
    )
    reports: list[Any] = []

    def select(store: Any, plan: Any) -> Any:
        narrowed, report = apply_selection(store, plan, selection)
        reports.append(report)
        return narrowed

    return select, reports
