"""`tracesim report`: write the self-contained HTML report of a DuckDB file."""

from __future__ import annotations

import sys

import click

__all__ = ["command"]


def _clickhouse_report(db: str, out_path: str, eval_id: str | None) -> None:
    """The report of an evaluation stored in ClickHouse; bad input exits 2."""
    from evaluator.store import StoreError, open_clickhouse
    from evaluator.store.report_snapshot import write_store_report

    try:
        with open_clickhouse(db) as store:
            path = write_store_report(store, out_path, eval_id=eval_id)
    except (StoreError, ValueError) as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"report written to {path} ({path.stat().st_size / 1e6:.1f} MB)")


@click.command(name="report")
@click.option(
    "--db",
    "db_path",
    default="results/tracesim.duckdb",
    show_default=True,
    envvar="TRACESIM_DB",
    help=(
        "The DuckDB file to report on (env TRACESIM_DB; opened read-only), or a ClickHouse "
        "store: clickhouse://user:pass@host:8123/otel or chdb://DIR."
    ),
)
@click.option(
    "--out",
    "out_path",
    default="results/report.html",
    show_default=True,
    help="Where to write the HTML file.",
)
@click.option("--eval-id", default=None, help="The evaluation to report (default: the newest).")
def command(db_path: str, out_path: str, eval_id: str | None) -> None:
    """Write the HTML report: summary, gates, charts, failures, conversations with tool calls."""
    import duckdb

    from evaluator.report import write_report

    if "://" in db_path:  # the OTel Collector ClickHouse exporter's database
        _clickhouse_report(db_path, out_path, eval_id)
        return
    try:
        path = write_report(db_path, out_path, eval_id=eval_id)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    except duckdb.IOException as exc:
        raise click.ClickException(
            f"{db_path}: {exc}. A running `tracesim collect` holds the file: stop it (or copy "
            "the file) before writing the report."
        ) from exc
    click.echo(f"report written to {path} ({path.stat().st_size / 1e6:.1f} MB)")
