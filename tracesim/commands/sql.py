"""`tracesim sql "SELECT ..."`: read-only SQL over a DuckDB file or a running collector."""

from __future__ import annotations

import csv
import os
import sys
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import click
import orjson

from tracesim.commands.errors import BadInput
from tracesim.db_option import db_option
from tracesim.sql_client import DEFAULT_ENDPOINT, QueryResult, SqlError, run_query

__all__ = ["command", "print_result", "truncation_note"]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return orjson.dumps(value, default=str).decode()
    return str(value)


def _shown(value: Any) -> str:
    """A cell as the table shows it: floats rounded (CSV and JSON keep every digit)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (float, Decimal)):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return str(number)
        if number == 0 or abs(number) >= 1e-3:
            text = f"{number:.4f}".rstrip("0").rstrip(".")
            return text if text not in ("", "-0") else "0"
        return f"{number:.3g}"
    return _cell(value)


def print_result(result: QueryResult, fmt: str) -> None:
    """Write `result` to stdout as a rich table, CSV or JSON (a list of objects)."""
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows([_cell(v) for v in row] for row in result.rows)
        return
    if fmt == "json":
        records = [dict(zip(result.columns, row, strict=True)) for row in result.rows]

        def default(value: Any) -> Any:
            if isinstance(value, Decimal):
                return float(value)
            if isinstance(value, (datetime, date)):
                return value.isoformat()
            return str(value)

        sys.stdout.write(
            orjson.dumps(records, default=default, option=orjson.OPT_INDENT_2).decode() + "\n"
        )
        return
    from rich.table import Table

    from tracesim.console import make_console, plain

    table = Table(show_lines=False, header_style="bold")
    for name in result.columns:
        table.add_column(plain(name), overflow="fold")
    for row in result.rows:  # stored text is shown as it is, never read as markup
        table.add_row(*(plain(_shown(v)) for v in row))
    console = make_console()
    console.print(table)
    console.print(plain(f"{len(result.rows)} row(s) from {result.source}", style="dim"))


def truncation_note(result: QueryResult) -> str | None:
    """What to tell the user when the collector's row limit cut the rows (None otherwise)."""
    if not result.truncated:
        return None
    return (
        f"note: only the first {len(result.rows)} rows were returned: the collector at "
        f"{result.source} caps query answers. Aggregate or add LIMIT/OFFSET, or stop the "
        "collector and query the file with `tracesim sql --db FILE`."
    )


@click.command(name="sql")
@click.argument("query")
@db_option("read")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option(
    "--endpoint",
    default=None,
    help=(
        "A running collector to query when it holds the file's lock, used once it proves it "
        "serves that file. Default: the one named in <db>.collector.json (written by a "
        f"running collector), else $TRACESIM_COLLECTOR_ENDPOINT or {DEFAULT_ENDPOINT}."
    ),
)
@click.option(
    "--auth-token-env",
    default=None,
    metavar="VAR",
    help="Environment variable holding the collector's bearer token.",
)
def command(
    query: str, db_path: str, fmt: str, endpoint: str | None, auth_token_env: str | None
) -> None:
    """Run a read-only SQL QUERY (SELECT / EXPLAIN) and print the rows.

    Tables: spans, logs, turns, conversations, tool_calls, traced_turns, scores, runs.
    Views: all_turns, tool_stats, llm_calls, latest_eval, latest_scores, turn_summary,
    conversation_summary. Example:

        tracesim sql "SELECT name, calls, error_rate, p95_ms FROM tool_stats"
    """
    token = None
    if auth_token_env:
        token = os.environ.get(auth_token_env)
        if not token:
            raise click.UsageError(f"--auth-token-env {auth_token_env}: that variable is not set")
    try:
        result = run_query(query, db_path=db_path, endpoint=endpoint, token=token)
    except SqlError as exc:  # a refused or failing query, a missing file: bad input
        raise BadInput(str(exc), command="sql") from None
    print_result(result, fmt)
    note = truncation_note(result)
    if note:  # on stderr, so CSV / JSON output stays parseable
        click.echo(note, err=True)
