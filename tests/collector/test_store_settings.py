"""DuckDB sizes of the store: measured defaults, configurable on Collector and the CLI."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.collector.store.store import DEFAULT_CHECKPOINT_THRESHOLD, DEFAULT_MEMORY_LIMIT

SETTINGS = "SELECT current_setting('memory_limit'), current_setting('checkpoint_threshold')"


def _as_duckdb_reports(memory_limit: str, checkpoint_threshold: str) -> tuple[str, str]:
    config = {"memory_limit": memory_limit, "checkpoint_threshold": checkpoint_threshold}
    with duckdb.connect(":memory:", config=config) as con:
        return con.execute(SETTINGS).fetchone()


def _store_settings(collector: Collector) -> tuple[str, str]:
    assert collector._store is not None
    return collector._store.con.execute(SETTINGS).fetchone()


def test_defaults_are_the_measured_sizes(db_path: Path) -> None:
    assert (DEFAULT_MEMORY_LIMIT, DEFAULT_CHECKPOINT_THRESHOLD) == ("512MB", "128MB")
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        assert _store_settings(collector) == _as_duckdb_reports("512MB", "128MB")


def test_sizes_are_configurable(db_path: Path) -> None:
    with Collector(
        db_path,
        grpc_port=None,
        http_port=None,
        duckdb_memory_limit="256MB",
        duckdb_checkpoint_threshold="1GiB",
    ) as collector:
        assert _store_settings(collector) == _as_duckdb_reports("256MB", "1GiB")


@pytest.mark.parametrize("field", ["duckdb_memory_limit", "duckdb_checkpoint_threshold"])
def test_a_bad_size_fails_in_the_constructor_naming_the_field(db_path: Path, field: str) -> None:
    with pytest.raises(ValueError, match=f"{field}: 'lots' is not a size"):
        Collector(db_path, grpc_port=None, http_port=None, **{field: "lots"})
    assert not db_path.exists()


def test_collect_command_rejects_a_bad_size(tmp_path: Path) -> None:
    from tracesim.commands.collect import command

    db = tmp_path / "cli.duckdb"
    result = CliRunner().invoke(command, ["--db", str(db), "--duckdb-memory-limit", "1 potato"])
    assert result.exit_code == 2
    assert "duckdb_memory_limit: '1 potato' is not a size" in result.output
    assert not db.exists()
