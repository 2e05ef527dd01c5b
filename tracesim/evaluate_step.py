"""Evaluate a store and write its report: the step `tracesim run` takes after capture and
`tracesim evaluate` takes on a stored file (any store `evaluator.store.open_store` opens)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from tracesim.disk_errors import disk_problem
from tracesim.shown import shown

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


def _unkeyed_warning(store: Any) -> str | None:
    """The warning about tool spans the collector could not key (None when there are none or
    the store cannot say: the evaluation reports that itself)."""
    from tracesim.evaluator.inspect.inspect import unkeyed_warning

    count = store.unkeyed_tool_spans()
    return unkeyed_warning(count, store.label) if count else None


def load_baseline(config: Any, store: Any, base_dir: Path | None) -> Any:
    """The digest of `config.baseline` (None without one): its `db` (relative to the config's
    folder; default the evaluated store, the open `store`) and `ref`. EvalConfigError (exit
    2) when unreadable."""
    from tracesim.evaluations import EvaluationRefError, incomplete_note, load_digest
    from tracesim.evaluator.scoring.gates import EvalConfigError
    from tracesim.evaluator.store import StoreError, StoreMissing, open_store, resolve_store

    baseline = getattr(config, "baseline", None)
    if baseline is None:
        return None
    spec = resolve_store(baseline.db, base_dir) if baseline.db else None
    try:
        if spec is None or spec == store.label:
            digest = load_digest(store, baseline.ref)
            note = incomplete_note(store, digest, "baseline")
        else:
            with open_store(spec, read_only=True) as other:
                digest = load_digest(other, baseline.ref)
                note = incomplete_note(other, digest, "baseline")
        if note is not None:  # the comparison stands on what that evaluation graded
            import click

            click.echo(note, err=True)
        return digest
    except StoreMissing:
        raise EvalConfigError(
            f"evaluation.baseline.db: {spec} does not exist. Fix: point it at the DuckDB file "
            "of the baseline run (e.g. a previous job's artefact), or remove `baseline`"
        ) from None
    except StoreError as exc:
        raise EvalConfigError(f"evaluation.baseline.db: {exc}") from None
    except EvaluationRefError as exc:
        raise EvalConfigError(f"evaluation.baseline: {exc}") from None


_NOT_PASSED = ("Failed", "Partial Failure", "Error", "Interrupted")


def _load_outcomes(store: Any, report: Any, *, needed: bool, console: Any) -> list[Any] | None:
    """Each conversation's outcome (`tracesim.ci`) from the open store; None when not
    `needed` and nothing failed, or when they cannot be read (said, never fatal: the
    scores are stored)."""
    from tracesim.ci import load_outcomes

    counts = report.summary.status_counts
    if not needed and not any(counts.get(status) for status in _NOT_PASSED):
        return None
    try:
        return load_outcomes(store, report.eval_id)
    except Exception as exc:  # noqa: BLE001 - the scores are stored; say what failed
        console.print(
            f"failing conversations not listed: {type(exc).__name__}: {exc}", markup=False
        )
        return None


def _ungraded(store: Any, eval_id: str, console: Any) -> list[str]:
    """The checks that could not grade, one line each (never fatal: the scores are stored)."""
    from tracesim.ci.ungraded import ungraded_check_lines

    try:
        return ungraded_check_lines(store, eval_id)
    except Exception as exc:  # noqa: BLE001 - informative only
        console.print(f"checks not graded not listed: {type(exc).__name__}: {exc}", markup=False)
        return []


def evaluate_and_report(
    db_path: Any,
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
    """Run `evaluate_db` on `db_path` (a `--db` value or an open `EvalStore`, left open),
    print its summary table, write `report.html` next to `results.json`, the JUnit XML
    file when `junit_path` is given, and the Markdown summary to `$GITHUB_STEP_SUMMARY`
    when that is set.

    Raises the evaluator's `EvalConfigError` on a bad evaluation config or a store that
    cannot be opened (exit 2 for the caller). A report that fails to render is reported,
    never fatal: the scores are already stored. `workers`: `evaluate_db`'s (None: its
    automatic choice).
    """
    from tracesim.evaluator.scoring.gates import EvalConfigError
    from tracesim.evaluator.store import EvalStore, StoreError, open_store

    options = {
        "config": config, "llm": llm, "run_id": run_id, "base_dir": base_dir,
        "output_dir": output_dir, "kind": kind, "progress": progress, "console": console,
        "junit_path": junit_path, "workers": workers, "select": select,
    }  # fmt: skip
    if isinstance(db_path, EvalStore):
        return _evaluate_store(db_path, **options)
    try:
        store = open_store(db_path)
    except StoreError as exc:
        raise EvalConfigError(str(exc)) from exc
    with store:
        return _evaluate_store(store, **options)


def _evaluate_store(
    store: Any,
    *,
    config: Any,
    llm: Any,
    run_id: str | None,
    base_dir: Path | None,
    output_dir: Path | None,
    kind: str,
    progress: bool,
    console: Console | None,
    junit_path: Path | None,
    workers: int | None,
    select: Any,
) -> EvaluationOutcome:
    from tracesim.ci import failure_lines, write_ci_outputs
    from tracesim.ci.step_summary import STEP_SUMMARY_ENV
    from tracesim.console import make_console
    from tracesim.evaluator.output.summary import print_summary
    from tracesim.evaluator.pipeline.pipeline import evaluate_db
    from tracesim.evaluator.report import write_report

    console = console or make_console()
    from tracesim.evaluator.checks.arksim_llm import configure_arksim_llm

    configure_arksim_llm(  # arksim metrics' self.llm and their failure labels
        getattr(config, "llm", None) or llm, getattr(config, "failure_labels", None)
    )
    unkeyed = _unkeyed_warning(store)
    baseline = load_baseline(config, store, base_dir)
    result = evaluate_db(
        store,
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
    ci_wanted = junit_path is not None or bool(os.environ.get(STEP_SUMMARY_ENV))
    outcomes = _load_outcomes(store, result.report, needed=ci_wanted, console=console)
    lines = failure_lines(outcomes or []) + _ungraded(store, result.eval_id, console)
    if result.report.comparison is not None:  # before the verdict: a CI log ends on it
        from tracesim.compare_format import comparison_text

        lines += ["", *comparison_text(result.report.comparison).splitlines()]
    usage = result.report.llm_usage
    if usage.failed and usage.first_error:  # why, before the verdict line that points here
        lines.append(f"judge: {usage.failed} request(s) failed; the first: {usage.first_error}")
    print_summary(result.report, console=console, failures=lines)
    if unkeyed:
        console.print(unkeyed, style="yellow", markup=False, highlight=False)
    from tracesim.evaluator.inspect.inspect import evidence_warning

    unexplained = evidence_warning(result.report.unexplained_evidence, store.label)
    if unexplained:
        console.print(unexplained, style="yellow", markup=False, highlight=False)
    if result.report.unexplained_evidence.get("unchecked_usage"):  # clickhouse_inspect
        console.print(
            f"warning: {store.label} could not run the uncounted-usage walk (a recursive "
            "query), so token usage no model call accounts for was not checked; ClickHouse "
            "25.x runs it",
            style="yellow",
            markup=False,
            highlight=False,
        )
    out_dir = (
        result.results_path.parent if result.results_path else store.default_report_path().parent
    )
    report_path: Path | None = out_dir / "report.html" if config.html_report else None
    try:
        if report_path is not None:
            write_report(store, report_path, eval_id=result.eval_id)
    except Exception as exc:  # noqa: BLE001 - the scores are stored; say what failed
        problem = disk_problem(exc, report_path or out_dir)
        if problem is not None:  # the machine refused: the command fails (exit 2)
            raise problem from None
        console.print(
            f"report not written: {type(exc).__name__}: {exc}", style="yellow", markup=False
        )
        report_path = None
    if result.results_path:
        console.print(f"results: {shown(result.results_path)}", highlight=False, markup=False)
    if report_path:
        console.print(f"report:  {shown(report_path)}", highlight=False, markup=False)
    if ci_wanted and outcomes is not None:
        write_ci_outputs(
            store,
            result.report,
            report_path=report_path,
            junit_path=junit_path,
            console=console,
            outcomes=outcomes,
        )
    return EvaluationOutcome(
        exit_code=int(result.exit_code), result=result, report_path=report_path
    )
