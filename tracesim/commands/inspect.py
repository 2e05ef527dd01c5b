"""`tracesim inspect --db FILE`: what tracesim understood of a capture, per service and scope.

Spans, conventions detected, tool spans found and left unkeyed (and why), model calls and
tokens, the tool-call fields it could not read. Plain text (stored text is never read as
markup), for a terminal or a CI log; `--format json` for scripts. Exit 2 on a bad file.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import click
import orjson

from tracesim.db_option import db_option
from tracesim.shown import one_line

__all__ = ["command"]


@click.command(name="inspect")
@db_option("read")
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
    from tracesim.evaluator.store import StoreError, open_store

    try:
        with open_store(db_path, read_only=True) as store:
            inspection = store.inspect()
    except StoreError as exc:  # missing, locked, unreachable, not a tracesim store
        click.echo(f"tracesim inspect: {one_line(str(exc))}", err=True)
        sys.exit(2)
    _print(inspection, fmt, limit)


def _print(inspection: Any, fmt: str, limit: int) -> None:
    from tracesim.evaluator.inspect.inspect import format_inspection

    if fmt == "json":
        click.echo(orjson.dumps(dataclasses.asdict(inspection), option=orjson.OPT_INDENT_2))
        return
    from tracesim.schemas.terminal_text import printable

    click.echo(printable(format_inspection(inspection, limit=limit)))  # names are span text
