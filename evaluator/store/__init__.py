"""Where tracesim reads spans and writes evaluation results: a DuckDB file (opened here,
or through the running `tracesim collect` that holds it), or the tables the stock OTel
Collector's ClickHouse exporter writes (a server, or a chdb directory).

`open_store(db)` takes what `--db` takes (see `evaluator.store.url`) and returns
an `EvalStore`: the one object evaluate, report, inspect, sql, the CI outputs
and the pytest plugin read through. Only this package parses `--db` or opens a
database to read (tests/test_store_boundary.py). Adding a backend is one
`EvalStore` class here. The ClickHouse backends need the `clickhouse` extra
(`pip install 'tracesim[clickhouse]'`), imported only when used.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tracesim.evaluator.store.base import EvalStore, QueryRows, StoreError, StoreMissing
from tracesim.evaluator.store.url import StoreURL, is_store_url, parse_store_url, resolve_store

if TYPE_CHECKING:
    from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

__all__ = [
    "EvalStore",
    "QueryRows",
    "StoreError",
    "StoreMissing",
    "StoreURL",
    "is_store_url",
    "open_clickhouse",
    "open_store",
    "parse_store_url",
    "resolve_store",
]


def open_clickhouse(url: StoreURL | str, *, read_only: bool = False) -> ClickHouseStore:
    """A `ClickHouseStore` on a `clickhouse://` or `chdb://` URL (StoreError when unusable);
    `read_only`: for the reading commands (`query` refuses writes)."""
    from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

    parsed = url if isinstance(url, StoreURL) else _parse(url)
    return ClickHouseStore(parsed, read_only=read_only)


def _parse(db: str) -> StoreURL:
    try:
        return parse_store_url(db)
    except ValueError as exc:
        raise StoreError(str(exc)) from None


def open_store(
    db: str | Path,
    *,
    read_only: bool = False,
    endpoint: str | None = None,
    token: str | None = None,
) -> EvalStore:
    """The store `db` names: a DuckDB path, `clickhouse://...` or `chdb://DIR`.

    A DuckDB file another process holds is read (and, unless `read_only`, written)
    through the `tracesim collect` that holds it, once that collector proves it serves
    this very file (`evaluator.store.live`): `endpoint` when given, else the one the
    file's sidecar names, else the default one. `token`: the collector's bearer token
    (default: env TRACESIM_COLLECTOR_TOKEN). StoreError (exit 2) on anything unusable,
    e.g. a file locked by a process that is not its collector.
    """
    url = _parse(str(db))
    if url.kind == "duckdb":
        from tracesim.evaluator.store.duckdb_store import DuckDBStore, FileLocked

        try:
            return DuckDBStore(url.path, read_only=read_only)
        except FileLocked as locked:
            from tracesim.evaluator.store.live import open_live

            return open_live(locked, endpoint=endpoint, token=token)
    return open_clickhouse(url, read_only=read_only)
