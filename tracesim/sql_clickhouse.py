"""`tracesim sql --db clickhouse://... | chdb://DIR`: a query on the exporter's database.

The query runs with ClickHouse's `readonly = 2` (the server refuses writes),
unqualified names resolving in the store's database, after tracesim's views
(`spans`, `turns`, `tool_stats`, ...) are created when missing (a read-only
user reads those an evaluation created).
"""

from __future__ import annotations

from tracesim.sql_client import QueryResult, SqlError

__all__ = ["query_clickhouse"]


def query_clickhouse(db: str, sql: str) -> QueryResult:
    """Run `sql` on the ClickHouse store `db`; SqlError naming the URL on any failure."""
    from tracesim.evaluator.store import StoreError, open_clickhouse
    from tracesim.evaluator.store.clickhouse_readonly import prepare_for_reading

    try:
        store = open_clickhouse(db)
    except StoreError as exc:
        raise SqlError(str(exc)) from None
    try:
        prepare_for_reading(store)
        client = store._c
        client.use_database(read_only=True)
        table = client.query(sql)
    except StoreError as exc:
        raise SqlError(str(exc)) from None
    finally:
        store.close()
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
    rows = [list(values) for values in zip(*columns, strict=True)]
    return QueryResult(list(table.column_names), rows, store.label)
