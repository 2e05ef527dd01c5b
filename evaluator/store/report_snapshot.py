"""The HTML report of an evaluation stored in ClickHouse.

The report's queries are DuckDB SQL; rather than keep two dialects of them,
the rows one report reads (its evaluation's `runs` and `scores`, and the
`turns`, `conversations`, `tool_calls`, `traced_turns` and routed `spans` of the chats it
scored) are streamed into a temporary DuckDB file, the report is written
from it, and the file is deleted. Memory stays bounded by a stream batch;
disk by the evaluated chats' rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracesim.evaluator.store.base import StoreError
from tracesim.evaluator.store.clickhouse_readonly import prepare_for_reading
from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

__all__ = ["snapshot_for_report"]

_EVAL_TABLES = ("runs", "scores")
_CHAT_TABLES = ("turns", "conversations", "tool_calls", "traced_turns", "spans")


def _copy(store: ClickHouseStore, con: Any, table: str, where: str, params: dict[str, Any]) -> None:
    wanted = [row[1] for row in con.execute(f"PRAGMA table_info('{table}')").fetchall()]
    probe = store._c.query(f"SELECT * FROM {store._t(table)} LIMIT 0")
    columns = [name for name in probe.column_names if name in wanted]
    select = ", ".join(f"`{name}`" for name in columns)
    names = ", ".join(columns)
    final = " FINAL" if table in ("tool_calls", "traced_turns", "runs") else ""
    for batch in store._c.stream(
        f"SELECT {select} FROM {store._t(table)}{final} WHERE {where}", params
    ):
        con.register("_tracesim_snapshot", batch)
        try:
            con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _tracesim_snapshot")
        finally:
            con.unregister("_tracesim_snapshot")


def snapshot_for_report(store: ClickHouseStore, path: Path, *, eval_id: str | None) -> str:
    """Copy what the report of `eval_id` (default: the newest) reads into DuckDB `path`;
    returns the eval_id copied. StoreError when the store holds no evaluation."""
    import duckdb
    from tracesim.schemas import create_all

    prepare_for_reading(store)
    if eval_id is None:
        latest = store._c.query(f"SELECT eval_id FROM {store._t('latest_eval')}")
        if not latest.num_rows:
            raise StoreError(
                f"{store.label}: no evaluation stored yet. Fix: run "
                f"`tracesim evaluate --db {store.url.raw}` first"
            )
        eval_id = latest.column("eval_id")[0].as_py()
    params = {"e": eval_id}
    chats = (
        f"chat_id IN (SELECT DISTINCT chat_id FROM {store._t('scores')} "
        "WHERE eval_id = {e:String} AND chat_id IS NOT NULL)"
    )
    con = duckdb.connect(str(path))
    try:
        create_all(con)
        for table in _EVAL_TABLES:
            _copy(store, con, table, "eval_id = {e:String}", params)
        for table in _CHAT_TABLES:
            _copy(store, con, table, chats, params)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return eval_id
