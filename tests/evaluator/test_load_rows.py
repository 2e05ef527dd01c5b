"""Arrow rows to Python dicts (`evaluator.load.fetch.table_rows`): the same values as
Arrow's own `to_pylist`, timestamps included (they go through numpy, 20x faster)."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pyarrow as pa
from tracesim.evaluator.load.fetch import table_rows


def test_rows_equal_arrow_to_pylist_for_every_column_type_duckdb_returns() -> None:
    con = duckdb.connect()
    table = con.sql(
        "SELECT * FROM (VALUES "
        "('a', 1, 2.5, TIMESTAMP '2025-01-01 01:02:03.456789', NULL::TIMESTAMP, true, '{\"k\": 1}'),"
        "(NULL, NULL, NULL, NULL, TIMESTAMP '1970-01-01 00:00:00', NULL, NULL),"
        "('c', 3, -1.0, TIMESTAMP '1999-12-31 23:59:59.999999', TIMESTAMP '2262-04-11 23:47:16',"
        " false, '[]')) AS t(s, i, d, ts, ts2, b, j)"
    ).to_arrow_table()
    assert table.schema.field("ts").type == pa.timestamp("us")
    assert table_rows(table) == table.to_pylist()
    assert table_rows(table)[0]["ts"] == datetime(2025, 1, 1, 1, 2, 3, 456789)
    assert table_rows(table)[1]["ts"] is None


def test_rows_of_a_chunked_timestamp_column_with_nulls() -> None:
    first = pa.array([datetime(2025, 5, 6, 7, 8, 9, 10), None], pa.timestamp("us"))
    second = pa.array([None, datetime(2001, 2, 3)], pa.timestamp("us"))
    table = pa.table({"start_time": pa.chunked_array([first, second])})
    assert table_rows(table) == table.to_pylist()
    assert [type(r["start_time"]).__name__ for r in table_rows(table)] == [
        "datetime",
        "NoneType",
        "NoneType",
        "datetime",
    ]
