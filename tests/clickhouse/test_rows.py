"""Rows handed to extraction are the same Python values whichever way a column is converted."""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa
from tracesim.evaluator.store.clickhouse_rows import column_values, table_rows


def test_timestamps_come_back_as_the_datetimes_arrow_gives() -> None:
    values = [
        datetime(2024, 1, 1, 12, 0, 0, 1),
        None,
        datetime(1969, 12, 31, 23, 59, 59, 999_999),
        datetime(9999, 12, 31, 23, 59, 59),
    ]
    column = pa.chunked_array([pa.array(values[:2], pa.timestamp("us")), pa.array(values[2:])])
    assert column_values(column) == column.to_pylist() == values
    assert all(type(v) is datetime for v in column_values(column) if v is not None)


def test_other_columns_and_rows() -> None:
    table = pa.table(
        {
            "chat_id": ["c1", None],
            "start_time": pa.array([datetime(2024, 5, 1), None], pa.timestamp("us")),
            "zoned": pa.array([datetime(2024, 5, 1), None], pa.timestamp("us", tz="UTC")),
        }
    )
    rows = table_rows(table)
    assert rows == table.to_pylist()
    assert rows[0]["zoned"].tzinfo is not None  # only naive microseconds take the fast path


def test_cursor_hands_out_chat_ranges_across_batches() -> None:
    import gc

    from tracesim.evaluator.store.clickhouse_rows import RowCursor

    chats = ["a", "a", "b", "c", "c", "c", "d", "e"]
    batches = (
        pa.table({"chat_id": chats[i : i + 3], "n": list(range(i, min(i + 3, len(chats))))})
        for i in range(0, len(chats), 3)
    )
    cursor = RowCursor(batches)
    assert [r["n"] for r in cursor.take({"a", "c"}, "c")] == [0, 1, 3, 4, 5]  # b skipped
    assert gc.isenabled()  # paused while building rows, then restored
    assert cursor.take({"d"}, "d") == [{"chat_id": "d", "n": 6}]
    assert cursor.take({"e", "f"}, "f") == [{"chat_id": "e", "n": 7}]
    assert cursor.take({"g"}, "g") == []
