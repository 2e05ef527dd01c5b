"""Judged answers of a ClickHouse store's evaluation are cached in a local DuckDB file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tracesim.evaluator.store import open_clickhouse
from tracesim.evaluator.store.clickhouse_store import LLM_CACHE_ENV

from tests.clickhouse.conftest import request_of


def test_cache_is_a_local_duckdb_file(
    exporter_db: Callable[..., str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache" / "llm.duckdb"
    monkeypatch.setenv(LLM_CACHE_ENV, str(path))
    with open_clickhouse(exporter_db(request_of())) as store:
        con = store.cache_connection()
        assert con is store.cache_connection()  # one per evaluation
        con.execute("INSERT INTO llm_cache (request_hash, model) VALUES ('h', 'm')")
    import duckdb

    with duckdb.connect(str(path), read_only=True) as kept:
        assert kept.execute("SELECT request_hash, model FROM llm_cache").fetchall() == [("h", "m")]
