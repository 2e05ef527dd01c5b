"""Where the evaluator reads spans and writes its results: a DuckDB file, or the tables
the stock OTel Collector's ClickHouse exporter writes (a server, or a chdb directory).

`open_store(db)` takes what `--db` takes (see `evaluator.store.url`) and returns
an `EvalStore`. The ClickHouse backends need the `clickhouse` extra
(`pip install 'tracesim[clickhouse]'`), imported only when used.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tracesim.evaluator.store.base import EvalStore, StoreError
from tracesim.evaluator.store.url import StoreURL, is_store_url, parse_store_url

if TYPE_CHECKING:
    from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

__all__ = [
    "EvalStore",
    "StoreError",
    "StoreURL",
    "is_store_url",
    "open_clickhouse",
    "open_store",
    "parse_store_url",
]


def open_clickhouse(url: StoreURL | str) -> ClickHouseStore:
    """A `ClickHouseStore` on a `clickhouse://` or `chdb://` URL (StoreError when unusable)."""
    from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

    parsed = url if isinstance(url, StoreURL) else _parse(url)
    return ClickHouseStore(parsed)


def _parse(db: str) -> StoreURL:
    try:
        return parse_store_url(db)
    except ValueError as exc:
        raise StoreError(str(exc)) from None


def open_store(db: str | Path) -> EvalStore:
    """The store `db` names: a DuckDB path, `clickhouse://...` or `chdb://DIR`."""
    url = _parse(str(db))
    if url.kind == "duckdb":
        from tracesim.evaluator.store.duckdb_store import DuckDBStore

        return DuckDBStore(url.path)
    return open_clickhouse(url)
