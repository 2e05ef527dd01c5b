"""The reading commands on a ClickHouse store: `sql` in ClickHouse's dialect (the server
refuses writes: `readonly = 2`), `inspect` on tracesim's views, and the report's DuckDB
connection on a temporary snapshot of one evaluation (`report_snapshot`)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracesim.evaluator.store.base import QueryRows
from tracesim.evaluator.store.clickhouse_readonly import prepare_for_reading

if TYPE_CHECKING:
    from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

__all__ = ["clickhouse_query", "clickhouse_report_connection"]


def clickhouse_query(store: ClickHouseStore, sql: str) -> QueryRows:
    """Run `sql`, unqualified names resolving in the store's database, after tracesim's
    views are created when missing (StoreError naming the URL). On a store opened for
    reading the session refuses writes from then on (`readonly = 2`): a user's query."""
    prepare_for_reading(store)
    client = store._c
    client.use_database(read_only=store.read_only)
    table = client.query(sql)
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
    rows = [list(values) for values in zip(*columns, strict=True)]
    return QueryRows(list(table.column_names), rows, store.label)


@contextmanager
def clickhouse_report_connection(store: ClickHouseStore, eval_id: str | None) -> Iterator[Any]:
    """A read-only DuckDB connection on a temporary copy of what the report of `eval_id`
    (None: the newest) reads; the copy is deleted afterwards."""
    import duckdb
    from tracesim.evaluator.store.report_snapshot import snapshot_for_report

    with tempfile.TemporaryDirectory(prefix="tracesim-snapshot-") as tmp:
        path = Path(tmp) / "evaluation.duckdb"
        snapshot_for_report(store, path, eval_id=eval_id)
        con = duckdb.connect(str(path), read_only=True)
        try:
            yield con
        finally:
            con.close()
