"""Evaluate a captured DuckDB file and write its report: the step `tracesim run`
takes after capture and `tracesim evaluate` takes on a stored file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

__all__ = ["EvaluationOutcome", "evaluate_and_report"]


@dataclass
class EvaluationOutcome:
    """What the evaluation step produced."""

    exit_code: int
    """0 gates passed, 1 a gate failed."""
    result: Any
    """The evaluator's `EvaluationResult`."""
    report_path: Path | None
    """The HTML report (None when it could not be written; the reason was printed)."""


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
) -> EvaluationOutcome:
    """Run `evaluate_db`, print its summary table, write `report.html` next to `results.json`.

    Raises the evaluator's `EvalConfigError` on a bad evaluation config (exit 2
    for the caller). A report that fails to render is reported, never fatal:
    the scores are already stored.
    """
    from evaluator.pipeline import evaluate_db
    from evaluator.report import write_report
    from evaluator.summary import print_summary

    console = console or Console()
    result = evaluate_db(
        db_path,
        config=config,
        run_id=run_id,
        llm=llm,
        base_dir=base_dir,
        output_dir=output_dir,
        progress=progress,
        kind=kind,
    )
    print_summary(result.report, console=console)
    out_dir = result.results_path.parent if result.results_path else Path("results")
    report_path: Path | None = out_dir / "report.html"
    try:
        if "://" in str(db_path):  # a ClickHouse store (evaluator.store)
            from evaluator.store import open_clickhouse
            from evaluator.store.report_snapshot import write_store_report

            with open_clickhouse(str(db_path)) as store:
                write_store_report(store, report_path, eval_id=result.eval_id)
        else:
            write_report(db_path, report_path, eval_id=result.eval_id)
    except Exception as exc:  # noqa: BLE001 - the scores are stored; say what failed
        console.print(f"[yellow]report not written[/yellow]: {type(exc).__name__}: {exc}")
        report_path = None
    if result.results_path:
        console.print(f"results: {result.results_path}", highlight=False)
    if report_path:
        console.print(f"report:  {report_path}", highlight=False)
    return EvaluationOutcome(
        exit_code=int(result.exit_code), result=result, report_path=report_path
    )
