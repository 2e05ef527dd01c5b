"""A ClickHouse user with a `readonly = 1` profile (as analysts' accounts are) reads a store
over HTTP: `sql`, `report` and `inspect` use what an evaluation created; it may change no
setting, so timestamps come back as UTC without `session_timezone`; writes exit 2."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.evaluator.store import StoreError, parse_store_url
from tracesim.evaluator.store.clickhouse_client import HttpClient

from tests.clickhouse.chdb_http import ChdbHttpServer
from tests.clickhouse.conftest import StoreDB, two_chats_request
from tracesim.cli import cli


def test_client_connects_reads_utc_and_is_refused_writes(tmp_path: Path) -> None:
    server = ChdbHttpServer(tmp_path / "ch", timezone="America/New_York").start()
    try:
        server.execute("CREATE TABLE t (ts DateTime64(9)) ENGINE = MergeTree ORDER BY ts")
        server.execute(
            "INSERT INTO t VALUES ('2024-05-06 07:08:09.123456')", session_timezone="UTC"
        )
        name, password = server.viewer
        client = HttpClient(
            parse_store_url(f"clickhouse://{name}:{password}@127.0.0.1:{server.port}/default")
        )
        try:
            client.use_database(read_only=True)
            assert client.query("SELECT ts FROM t").column("ts").to_pylist() == [
                datetime(2024, 5, 6, 7, 8, 9, 123456)
            ]
            with pytest.raises(StoreError, match="viewer: Cannot execute query in readonly"):
                client.command("TRUNCATE TABLE t")
        finally:
            client.close()
    finally:
        server.shutdown()


def test_strings_are_strings_on_a_server_that_sends_them_as_bytes(tmp_path: Path) -> None:
    # older servers send String as Arrow binary by default, and a read-only user may not
    # ask otherwise (output_format_arrow_string_as_string)
    server = ChdbHttpServer(
        tmp_path / "ch", profile={"output_format_arrow_string_as_string": "0"}
    ).start()
    try:
        name, password = server.viewer
        client = HttpClient(
            parse_store_url(f"clickhouse://{name}:{password}@127.0.0.1:{server.port}/default")
        )
        try:
            sql = "SELECT 'x' AS s, map('k', 'v') AS m, ['a'] AS l, toFixedString('ab', 2) AS f"
            rows = client.query(sql).to_pylist()
            assert rows == [{"s": "x", "m": [("k", "v")], "l": ["a"], "f": b"ab"}]
            assert [b.to_pylist() for b in client.stream(sql)] == [rows]
        finally:
            client.close()
    finally:
        server.shutdown()


def test_cli_reads_what_evaluate_wrote(tmp_path: Path) -> None:
    store = StoreDB(tmp_path, "http")
    writer = store(two_chats_request())
    assert store.server is not None
    name, password = store.server.viewer
    viewer = f"clickhouse://{name}:{password}@127.0.0.1:{store.server.port}/otel"
    runner = CliRunner()
    try:
        result = runner.invoke(cli, ["sql", "--db", viewer, "SELECT 1"])
        assert result.exit_code == 2 and "this user may only read" in result.output
        assert "tool_calls" in result.output and "tracesim evaluate" in result.output
        out = str(tmp_path / "out")
        result = runner.invoke(
            cli, ["evaluate", "--db", writer, "--no-progress", "--output-dir", out]
        )
        assert result.exit_code == 3, result.output  # nothing graded: exit 3
        sql = "SELECT chat_id, name FROM tool_calls FINAL ORDER BY ALL"
        result = runner.invoke(cli, ["sql", "--db", viewer, "--format", "csv", sql])
        assert result.exit_code == 0, result.output
        assert (
            result.output.splitlines() == ["chat_id,name"] + ["c1,lookup"] * 2 + ["c2,lookup"] * 2
        )
        report = tmp_path / "report.html"
        result = runner.invoke(cli, ["report", "--db", viewer, "--out", str(report)])
        assert result.exit_code == 0 and report.is_file(), result.output
        result = runner.invoke(cli, ["inspect", "--db", viewer])
        assert result.exit_code == 0 and "tool spans: 4" in result.output, result.output
        result = runner.invoke(
            cli, ["evaluate", "--db", viewer, "--no-progress", "--output-dir", out]
        )
        assert result.exit_code == 2 and "Code: 164" in result.output
        assert "allowed to CREATE and INSERT" in result.output and "Traceback" not in result.output
    finally:
        store.close()
