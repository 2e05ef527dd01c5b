"""`tracesim report`: write the self-contained HTML report of a DuckDB file."""

from __future__ import annotations

import click

from tracesim.commands.errors import BadInput
from tracesim.paths import DB_ENV, DEFAULT_DB_PATH, outputs_dir

__all__ = ["command"]


def _clickhouse_report(db: str, out_path: str, eval_id: str | None) -> None:
    """The report of an evaluation stored in ClickHouse; bad input exits 2."""
    from tracesim.evaluator.store import StoreError, open_clickhouse
    from tracesim.evaluator.store.report_snapshot import write_store_report

    try:
        with open_clickhouse(db) as store:
            path = write_store_report(store, out_path, eval_id=eval_id)
    except (StoreError, ValueError) as exc:
        raise BadInput(str(exc), command="report") from None
    click.echo(f"report written to {path} ({path.stat().st_size / 1e6:.1f} MB)")


@click.command(name="report")
@click.option(
    "--db",
    "db_path",
    default=DEFAULT_DB_PATH,
    show_default=True,
    envvar=DB_ENV,
    help=(
        f"The DuckDB file to report on (env {DB_ENV}; opened read-only), or a ClickHouse "
        "store: clickhouse://user:pass@host:8123/otel or chdb://DIR."
    ),
)
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
    import duckdb

    from tracesim.evaluator.report import write_report
    from tracesim.paths import PathProblem, check_writable_file

    if "://" in db_path:  # the OTel Collector ClickHouse exporter's database
        _clickhouse_report(db_path, out_path or "results/report.html", eval_id)
        return
    if out_path is None:  # where `tracesim evaluate` put its results.json
        out_path = str(outputs_dir(db_path) / "report.html")
    try:
        check_writable_file(out_path, what="--out")
        path = write_report(db_path, out_path, eval_id=eval_id)
    except (FileNotFoundError, ValueError, PathProblem) as exc:
        raise BadInput(str(exc), command="report") from None
    except duckdb.IOException as exc:  # a locked file is bad input: exit 2, as everywhere
        raise BadInput(
            f"{db_path}: {exc}. A running `tracesim collect` holds the file: stop it (or copy "
            "the file) before writing the report.",
            command="report",
        ) from None
    click.echo(f"report written to {path} ({path.stat().st_size / 1e6:.1f} MB)")
