"""`tracesim inspect --db FILE`: what tracesim understood of a capture, per service and scope.

Spans, conventions detected, tool spans found and left unkeyed (and why), model calls and
tokens, the tool-call fields it could not read. Plain text (stored text is never read as
markup), for a terminal or a CI log; `--format json` for scripts. Exit 2 on a bad file.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import click
import orjson

from tracesim.paths import DB_ENV, DEFAULT_DB_PATH

__all__ = ["command"]


@click.command(name="inspect")
@click.option(
    "--db",
    "db_path",
    default=DEFAULT_DB_PATH,
    show_default=True,
    envvar=DB_ENV,
    help=(
        f"The DuckDB file a run or collector wrote (env {DB_ENV}; opened read-only), or a "
        "ClickHouse store: clickhouse://user:pass@host:8123/otel or chdb://DIR."
    ),
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Plain text, or JSON for scripts.",
)
@click.option("--limit", default=20, show_default=True, help="Unkeyed tool spans listed.")
def command(db_path: str, fmt: str, limit: int) -> None:
    """Show what tracesim understood of a capture: spans, conventions, tool and model calls."""
    import duckdb

    from tracesim.evaluator.inspect.inspect import inspect_db
    from tracesim.schemas.views import create_views

    if "://" in db_path:  # the OTel Collector ClickHouse exporter's database
        inspection = _inspect_clickhouse(db_path)
        _print(inspection, fmt, limit)
        return
    db_path = Path(db_path)
    if not db_path.is_file():
        click.echo(f"tracesim inspect: DuckDB file {db_path} does not exist (--db)", err=True)
        sys.exit(2)
    try:
        con = duckdb.connect(str(db_path), read_only=True)
    except duckdb.Error as exc:
        click.echo(
            f"tracesim inspect: cannot open {db_path} ({exc}); is a collector still writing "
            "it? stop it or copy the file first",
            err=True,
        )
        sys.exit(2)
    try:
        try:
            create_views(con, temporary=True)  # this version's views, whatever wrote the file
            inspection = inspect_db(con)
        except duckdb.CatalogException as exc:
            click.echo(f"tracesim inspect: {db_path} is not a tracesim file ({exc})", err=True)
            sys.exit(2)
    finally:
        con.close()
    _print(inspection, fmt, limit)


def _print(inspection: Any, fmt: str, limit: int) -> None:
    from tracesim.evaluator.inspect.inspect import format_inspection

    if fmt == "json":
        click.echo(orjson.dumps(dataclasses.asdict(inspection), option=orjson.OPT_INDENT_2))
        return
    click.echo(format_inspection(inspection, limit=limit))


def _inspect_clickhouse(db: str) -> Any:
    """Inspect a ClickHouse store; bad input (unreachable, missing tables...) exits 2."""
    from tracesim.evaluator.store import StoreError, open_clickhouse
    from tracesim.evaluator.store.clickhouse_inspect import inspect_store

    try:
        with open_clickhouse(db) as store:
            return inspect_store(store)
    except StoreError as exc:
        click.echo(f"tracesim inspect: {exc}", err=True)
        sys.exit(2)
