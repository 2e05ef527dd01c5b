"""`tracesim report`: write the self-contained HTML report of an evaluation in a store."""

from __future__ import annotations

from pathlib import Path

import click

from tracesim.commands.errors import BadInput
from tracesim.db_option import db_option
from tracesim.disk_errors import disk_problem
from tracesim.paths import outputs_dir
from tracesim.shown import shown

__all__ = ["command"]


@click.command(name="report")
@db_option("read")
@click.option(
    "--out",
    "out_path",
    default=None,
    help="Where to write the HTML file  [default: report.html next to the DuckDB file, or "
    "in <stem>_results/ beside a file not named tracesim.duckdb]",
)
@click.option("--eval-id", default=None, help="The evaluation to report (default: the newest).")
def command(db_path: str, out_path: str | None, eval_id: str | None) -> None:
    """Write the HTML report: summary, gates, charts, failures, conversations with tool calls."""
    from tracesim.evaluate_in_progress import in_progress_note
    from tracesim.evaluator.report import write_report
    from tracesim.evaluator.store import StoreError, open_store
    from tracesim.paths import PathProblem, check_writable_file

    try:
        with open_store(db_path, read_only=True) as store:
            note = in_progress_note(store)
            if note is not None:
                click.echo(note, err=True)
            if out_path is None:  # where `tracesim evaluate` put its results.json
                path_of = getattr(store, "path", None)
                out_path = str(
                    outputs_dir(path_of) / "report.html"
                    if isinstance(path_of, Path)
                    else store.default_report_path()
                )
            check_writable_file(out_path, what="--out")
            path = write_report(store, out_path, eval_id=eval_id)
    except (StoreError, ValueError, PathProblem) as exc:
        raise BadInput(str(exc), command="report") from None
    except OSError as exc:  # a full disk or quota while writing the page: the machine's
        problem = disk_problem(exc, out_path or "the report")
        if problem is None:
            raise
        raise BadInput(str(problem), command="report") from None
    click.echo(f"report written to {shown(path)} ({path.stat().st_size / 1e6:.1f} MB)")
