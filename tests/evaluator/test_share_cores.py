"""With worker processes on every core, the evaluating DuckDB connection runs one thread."""

from __future__ import annotations

from pathlib import Path

import duckdb
from tracesim.evaluator.store.duckdb_store import DuckDBStore
from tracesim.schemas import create_all


def test_share_cores_keeps_the_connection_to_one_thread(tmp_path: Path) -> None:
    path = tmp_path / "t.duckdb"
    con = duckdb.connect(str(path))
    create_all(con)
    con.close()
    store = DuckDBStore(path)
    try:
        store.con.execute("SET threads=2")
        store.share_cores()
        assert store.con.execute("SELECT current_setting('threads')").fetchone() == (1,)
    finally:
        store.close()
