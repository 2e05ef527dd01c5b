"""What a running collector does for the reading and evaluating commands on its file
(`evaluator.store.live`): say which file it serves, answer queries as Arrow, and take
evaluate's writes to tracesim's derived tables.

Guarded like the query endpoint: the same token, the statement guard on every query
(the tables a request sends count as tables it may read), size limits on bodies and
answers, a time limit. Writes reach only `tool_calls`, `traced_turns`, `scores` and `runs`, by
deleting rows of given keys and inserting rows of known columns, in one transaction:
never `spans`, `logs`, `turns` or `conversations`, never arbitrary SQL.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from tracesim.collector.errors import InvalidRequest, TooLarge
from tracesim.collector.query.query import database_tables
from tracesim.collector.query.sql_guard import RefusedQuery, check_safe_for_endpoint

__all__ = ["WRITABLE_TABLES", "apply_writes", "arrow_answer", "identity_document", "new_nonce"]

WRITABLE_TABLES: dict[str, str] = {
    "tool_calls": "chat_id",
    "traced_turns": "chat_id",
    "scores": "eval_id",
    "runs": "eval_id",
}
"""The tables evaluate writes through the collector, and the key column rows are deleted by."""
_INPUT_NAME = re.compile(r"_tracesim_[a-z0-9_]{1,40}")


def new_nonce() -> str:
    """A per-start secret-free token naming one collector start (sidecar and identity)."""
    return secrets.token_hex(16)


def identity_document(db_path: Path, nonce: str) -> dict[str, Any]:
    """What `GET /tracesim/identity` answers: the file served, this start's nonce, the pid."""
    return {"db_path": str(db_path.resolve()), "nonce": nonce, "pid": os.getpid()}


def _run_timed(cursor: Any, timeout: float | None, run: Any) -> Any:
    timer = threading.Timer(timeout, cursor.interrupt) if timeout else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        return run()
    except duckdb.InterruptException:
        raise InvalidRequest(
            f"stopped after {timeout:g} s (the collector's query time limit) or by shutdown"
        ) from None
    except duckdb.Error as error:
        raise InvalidRequest(f"query failed: {error}") from None
    finally:
        if timer is not None:
            timer.cancel()


def arrow_answer(
    cursor: Any,
    sql: str,
    params: list[Any] | None,
    inputs: dict[str, pa.Table],
    *,
    max_bytes: int,
    timeout: float | None,
) -> pa.Table:
    """Every row of a guarded read-only query as one Arrow table; `inputs` are registered
    under their names (`_tracesim_*`) for the query. Never truncates: an answer past
    `max_bytes` is TooLarge (narrow the query), a refused statement InvalidRequest."""
    for name in inputs:
        if not _INPUT_NAME.fullmatch(name):
            raise InvalidRequest(f"input table name {name!r} must match _tracesim_[a-z0-9_]+")
    try:
        check_safe_for_endpoint(sql, allowed_tables=database_tables(cursor) | set(inputs))
    except RefusedQuery as error:
        raise InvalidRequest(str(error)) from None
    for name, table in inputs.items():
        cursor.register(name, table)

    def run() -> pa.Table:
        relation = cursor.sql(sql, params=params or None)
        if relation is None:  # a statement without rows
            return pa.table({})
        reader = relation.to_arrow_reader(8192)
        batches: list[pa.RecordBatch] = []
        size = 0
        for batch in reader:
            size += batch.nbytes
            if size > max_bytes:
                raise TooLarge(
                    f"the answer exceeds {max_bytes} bytes (the collector's answer limit); "
                    "narrow the query"
                )
            batches.append(batch)
        return pa.Table.from_batches(batches, schema=reader.schema)

    return _run_timed(cursor, timeout, run)


def _columns(cursor: Any, table: str) -> list[str]:
    return [row[1] for row in cursor.execute(f"PRAGMA table_info('{table}')").fetchall()]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _check_op(op: Any, count: int) -> tuple[str, list[Any] | None, int | None]:
    if not isinstance(op, dict):
        raise InvalidRequest('each write must be {"table", "delete"?, "rows"?}')
    table = op.get("table")
    if table not in WRITABLE_TABLES:
        raise InvalidRequest(
            f"table {table!r} cannot be written through the collector "
            f"(only {', '.join(WRITABLE_TABLES)})"
        )
    delete = op.get("delete")
    if delete is not None and (
        not isinstance(delete, list) or not all(isinstance(v, str) for v in delete)
    ):
        raise InvalidRequest(f'{table}: "delete" must be a list of {WRITABLE_TABLES[table]} values')
    rows = op.get("rows")
    if rows is not None and (
        not isinstance(rows, int) or isinstance(rows, bool) or not 0 <= rows < count
    ):
        raise InvalidRequest(f'{table}: "rows" must be the index of a table sent')
    return table, delete, rows


def apply_writes(cursor: Any, ops: Any, tables: list[pa.Table], *, timeout: float | None) -> int:
    """Apply evaluate's writes in one transaction: per op, delete the rows of `table` whose
    key column holds one of `delete`, then insert `tables[rows]` (its columns must be
    the table's). Returns the rows inserted; InvalidRequest on anything else."""
    if not isinstance(ops, list) or not ops:
        raise InvalidRequest('"writes" must be a non-empty list')
    checked = [_check_op(op, len(tables)) for op in ops]

    def run() -> int:
        inserted = 0
        cursor.execute("BEGIN TRANSACTION")
        try:
            for table, delete, rows in checked:
                if delete:
                    key = WRITABLE_TABLES[table]
                    cursor.register(
                        "_tracesim_keys", pa.table({"k": pa.array(delete, pa.string())})
                    )
                    cursor.execute(
                        f"DELETE FROM {table} WHERE {key} IN (SELECT k FROM _tracesim_keys)"
                    )
                    cursor.unregister("_tracesim_keys")
                if rows is not None and tables[rows].num_rows:
                    data = tables[rows]
                    unknown = set(data.column_names) - set(_columns(cursor, table))
                    if unknown:
                        raise InvalidRequest(
                            f"{table} has no column(s) {', '.join(sorted(unknown))}"
                        )
                    names = ", ".join(_quoted(n) for n in data.column_names)
                    cursor.register("_tracesim_rows", data)
                    cursor.execute(
                        f"INSERT INTO {table} ({names}) SELECT {names} FROM _tracesim_rows"
                    )
                    cursor.unregister("_tracesim_rows")
                    inserted += data.num_rows
            cursor.execute("COMMIT")
        except BaseException:
            try:
                cursor.execute("ROLLBACK")
            except duckdb.Error:  # an interrupted transaction is already rolled back
                pass
            raise
        return inserted

    return _run_timed(cursor, timeout, run)
