"""Evaluate a captured DuckDB file and write its report: the step `tracesim run`
takes after capture and `tracesim evaluate` takes on a stored file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

__all__ = ["EvaluationOutcome", "evaluate_and_report", "load_baseline"]


@dataclass
class EvaluationOutcome:
    """What the evaluation step produced."""

    exit_code: int
    """0 gates passed, 1 a gate failed."""
    result: Any
    """The evaluator's `EvaluationResult`."""
    report_path: Path | None
    """The HTML report (None when it could not be written; the reason was printed)."""


def _unkeyed_warning(db_path: Path) -> str | None:
    """The warning about tool spans the collector could not key (None when there are none or
    the file cannot be read here: the evaluation reports that itself)."""
    import duckdb

    from tracesim.evaluator.inspect.inspect import count_unkeyed_tool_spans, unkeyed_warning

    try:
        with duckdb.connect(str(db_path), read_only=True) as con:
            count = count_unkeyed_tool_spans(con)
    except duckdb.Error:
        return None
    return unkeyed_warning(count, str(db_path))


def _store_ci_outputs(
    db: str, report: Any, report_path: Path | None, junit_path: Path | None, console: Any
) -> None:
    """JUnit file and step summary of an evaluation stored in ClickHouse (read from a
    temporary DuckDB snapshot of it); a failure is reported, never fatal."""
    from tracesim.ci import write_ci_outputs
    from tracesim.evaluator.store.report_snapshot import evaluation_snapshot

    try:
        with evaluation_snapshot(db, report.eval_id) as snapshot:
            write_ci_outputs(
                snapshot, report, report_path=report_path, junit_path=junit_path, console=console
            )
    except Exception as exc:  # noqa: BLE001 - the scores are stored; say what failed
        console.print(f"CI output not written: {type(exc).__name__}: {exc}", markup=False)


def load_baseline(config: Any, db_path: Path | str, base_dir: Path | None) -> Any:
    """The digest of `config.baseline` (None without one): its `db` (relative to the config's
    folder; default the evaluated store) and `ref`. EvalConfigError (exit 2) when unreadable."""
    from tracesim.evaluations import EvaluationRefError, load_digest
    from tracesim.evaluator.scoring.gates import EvalConfigError

    baseline = getattr(config, "baseline", None)
    if baseline is None:
        return None
    db = baseline.db or str(db_path)
    if "://" not in db and base_dir is not None and not Path(db).is_absolute():
        db = str(Path(base_dir) / db)
    if "://" not in db and not Path(db).exists():
        raise EvalConfigError(
            f"evaluation.baseline.db: {db} does not exist. Fix: point it at the DuckDB file "
            "of the baseline run (e.g. a previous job's artefact), or remove `baseline`"
        )
    try:
        return load_digest(db, baseline.ref)
    except EvaluationRefError as exc:
        raise EvalConfigError(f"evaluation.baseline: {exc}") from None


def evaluate_and_report(
    db_path: Path | str,
    *,
    config: Any,
    llm: Any = None,
    run_id: str | None = None,
    base_dir: Path | None = None,
    output_dir: Path | None = None,
    kind: str = "evaluate",
    progress: bool = True,
    console: Console | None = None,
    junit_path: Path | None = None,
    workers: int | None = 1,
    select: Any = None,
) -> EvaluationOutcome:
    """Run `evaluate_db`, print its summary table, write `report.html` next to `results.json`,
    the JUnit XML file when `junit_path` is given, and the Markdown summary to
    `$GITHUB_STEP_SUMMARY` when that is set.

    Raises the evaluator's `EvalConfigError` on a bad evaluation config (exit 2
    for the caller). A report that fails to render is reported, never fatal:
    the scores are already stored. `workers`: `evaluate_db`'s (None: its automatic choice).
    """
    from tracesim.ci import write_ci_outputs
    from tracesim.ci.step_summary import STEP_SUMMARY_ENV
    from tracesim.console import make_console
    from tracesim.evaluator.output.summary import print_summary
    from tracesim.evaluator.pipeline.pipeline import evaluate_db
    from tracesim.evaluator.report import write_report

    console = console or make_console()
    unkeyed = None if "://" in str(db_path) else _unkeyed_warning(Path(db_path))
    baseline = load_baseline(config, db_path, base_dir)
    result = evaluate_db(
        db_path,
        config=config,
        run_id=run_id,
        llm=llm,
        base_dir=base_dir,
        output_dir=output_dir,
        progress=progress,
        kind=kind,
        workers=workers,
        baseline=baseline,
        select=select,
    )
    print_summary(result.report, console=console)
    if result.report.comparison is not None:
        from tracesim.compare_format import comparison_text

        console.print(comparison_text(result.report.comparison), markup=False, highlight=False)
    if unkeyed:
        console.print(unkeyed, style="yellow", markup=False, highlight=False)
    out_dir = result.results_path.parent if result.results_path else Path(str(db_path)).parent
    report_path: Path | None = out_dir / "report.html" if config.html_report else None
    try:
        if report_path is None:
            pass
        elif "://" in str(db_path):  # a ClickHouse store (evaluator.store)
            from tracesim.evaluator.store import open_clickhouse
            from tracesim.evaluator.store.report_snapshot import write_store_report

            with open_clickhouse(str(db_path)) as store:
                write_store_report(store, report_path, eval_id=result.eval_id)
        else:
            write_report(db_path, report_path, eval_id=result.eval_id)
    except Exception as exc:  # noqa: BLE001 - the scores are stored; say what failed
        console.print(
            f"report not written: {type(exc).__name__}: {exc}", style="yellow", markup=False
        )
        report_path = None
    if result.results_path:
        console.print(f"results: {result.results_path}", highlight=False, markup=False)
    if report_path:
        console.print(f"report:  {report_path}", highlight=False, markup=False)
    if "://" in str(db_path) and (junit_path is not None or os.environ.get(STEP_SUMMARY_ENV)):
        _store_ci_outputs(str(db_path), result.report, report_path, junit_path, console)
    else:
        write_ci_outputs(
            db_path, result.report, report_path=report_path, junit_path=junit_path, console=console
        )
    return EvaluationOutcome(
        exit_code=int(result.exit_code), result=result, report_path=report_path
    )
