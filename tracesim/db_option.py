"""The one `--db` option of every command that reads or writes a store.

Same name, default (`results/tracesim.duckdb`), environment variable (`TRACESIM_DB`),
help and checks everywhere; only what the command does with it differs:
- `read`: a DuckDB file (opened read-only, or through the collector holding it) or a
  ClickHouse store URL (`clickhouse://...`, `chdb://DIR`);
- `evaluate`: the same, also written (tool calls, scores, runs);
- `write`: a DuckDB file only (`collect`, `import` store spans into it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import click

from tracesim.paths import DB_ENV, DEFAULT_DB_PATH

__all__ = ["db_option"]

Use = Literal["read", "evaluate", "write"]

_STORES = "or a ClickHouse store: clickhouse://user:pass@host:8123/otel or chdb://DIR"
_HELP: dict[str, str] = {
    "read": (
        f"The DuckDB file a run or collector wrote (env {DB_ENV}; opened read-only, or "
        f"through the collector holding it), {_STORES}."
    ),
    "evaluate": (
        f"The DuckDB file a run or collector wrote (env {DB_ENV}; through the collector "
        f"holding it when one runs), {_STORES}."
    ),
    "write": (
        f"The DuckDB file to write (env {DB_ENV}); created with its folder if missing, "
        "added to if not."
    ),
}
_URL_SCHEMES = ("clickhouse://", "clickhouses://", "chdb://", "http://", "https://")


def _check(use: Use) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None:
            return value
        text = str(value).strip()
        if not text:
            raise click.BadParameter(
                "empty: give a DuckDB file path"
                + ("" if use == "write" else ", or a clickhouse:// or chdb:// URL"),
                ctx=ctx,
                param=param,
            )
        if use == "write" and text.lower().startswith(_URL_SCHEMES):
            raise click.BadParameter(
                f"{text}: this command writes a DuckDB file, not a URL (the OTel Collector's "
                "ClickHouse exporter fills ClickHouse); give a file path",
                ctx=ctx,
                param=param,
            )
        if use == "write" and Path(text).expanduser().is_dir():
            raise click.BadParameter(
                f"{text} is a folder: give a file path such as {Path(text) / 'tracesim.duckdb'}",
                ctx=ctx,
                param=param,
            )
        return text

    return check


def db_option(use: Use, *, extra_help: str = "") -> Callable[[Any], Any]:
    """The `--db` option (parameter `db_path`) for a command that uses the store as `use`."""
    return click.option(
        "--db",
        "db_path",
        default=DEFAULT_DB_PATH,
        show_default=True,
        envvar=DB_ENV,
        callback=_check(use),
        help=_HELP[use] + (f" {extra_help}" if extra_help else ""),
    )
