"""Bad stores exit 2 with the URL and the fix: unreachable server, missing database,
table or directory, a table layout tracesim does not know, a write through `sql`."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from tracesim.evaluator.store import StoreError, parse_store_url
from tracesim.evaluator.store.clickhouse_errors import describe_error

from tests.clickhouse.conftest import HTTP_PASSWORD, StoreDB, request_of
from tracesim.cli import cli


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _evaluate(db: str, tmp_path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", db, "--output-dir", str(tmp_path / "out"), "--no-progress"]
    )
    return result.exit_code, result.output


def test_http_bad_credentials_database_table_and_stopped_server_exit_2(tmp_path: Path) -> None:
    store = StoreDB(tmp_path, "http")
    url = store(request_of(), database="traces")
    base, _, _ = url.rpartition("/")
    label = f"clickhouse://tracesim@127.0.0.1:{store.server.port}"
    try:
        code, output = _evaluate(url.replace(quote(HTTP_PASSWORD, safe=""), "nope"), tmp_path)
        assert code == 2 and f"{label}/traces (http): connecting failed" in output
        assert "AUTHENTICATION_FAILED" in output and "CLICKHOUSE_PASSWORD" in output
        assert "nope" not in output
        code, output = _evaluate(f"{base}/otel", tmp_path)
        assert code == 2 and f"{label}/otel (http): database 'otel' does not exist" in output
        code, output = _evaluate(f"{url}?traces_table=spans_x", tmp_path)
        assert code == 2 and "traces.spans_x does not exist" in output
        assert "deploy/otel-collector.yaml" in output
        code, output = _evaluate(url, tmp_path)
        assert code == 0, output
        report = tmp_path / "report.html"
        result = CliRunner().invoke(cli, ["report", "--db", url, "--out", str(report)])
        assert result.exit_code == 0 and report.stat().st_size > 0, result.output
        result = CliRunner().invoke(cli, ["inspect", "--db", url, "--format", "json"])
        assert result.exit_code == 0 and '"groups"' in result.output, result.output
    finally:
        store.close()
    code, output = _evaluate(url, tmp_path)  # the server is gone: its port is closed
    assert code == 2 and f"{label}/traces (http): connecting failed: connection refused" in output
    assert "not reachable" in output and "Traceback" not in output
    assert "Unexpected Http Driver Exception" not in output


def test_unreachable_server_exits_2_naming_the_url(tmp_path: Path) -> None:
    port = _closed_port()
    code, output = _evaluate(f"clickhouse://bob:secret@127.0.0.1:{port}/otel", tmp_path)
    assert code == 2
    assert f"clickhouse://bob@127.0.0.1:{port}/otel" in output
    assert "not reachable" in output and "secret" not in output
    assert "Traceback" not in output


def test_missing_directory_database_and_table_exit_2(
    exporter_db: Callable[..., str], tmp_path: Path
) -> None:
    code, output = _evaluate(f"chdb://{tmp_path / 'nowhere'}", tmp_path)
    assert code == 2 and "does not exist" in output and "chdb://" in output
    url = exporter_db(request_of(), database="traces")  # tables live in another database
    code, output = _evaluate(url.split("?")[0], tmp_path)
    assert code == 2 and "database 'otel' does not exist" in output
    code, output = _evaluate(url.split("?")[0] + "?database=traces&traces_table=spans_x", tmp_path)
    assert code == 2 and "traces.spans_x does not exist" in output
    assert "deploy/otel-collector.yaml" in output


def test_unknown_layout_exits_2(tmp_path: Path) -> None:
    from chdb import session

    sess = session.Session(str(tmp_path / "ch"))
    try:
        sess.query("CREATE DATABASE otel")
        sess.query(
            "CREATE TABLE otel.otel_traces (TraceId String, SpanAttributes String) "
            "ENGINE = MergeTree ORDER BY TraceId"
        )
    finally:
        sess.close()
    code, output = _evaluate(f"chdb://{tmp_path / 'ch'}", tmp_path)
    assert code == 2
    assert "not a table layout tracesim knows" in output and "Timestamp" in output


def test_sql_refuses_writes_with_exit_2(store_db: StoreDB) -> None:
    url = store_db(request_of())
    for write in ("DROP TABLE otel_traces", "INSERT INTO otel_traces (TraceId) VALUES ('x')"):
        result = CliRunner().invoke(cli, ["sql", "--db", url, write])
        assert result.exit_code == 2 and "SELECTs only" in result.output
        assert "Code: 164" in result.output  # refused by the engine, not by tracesim
    result = CliRunner().invoke(cli, ["sql", "--db", url, "SELECT count( FROM otel_traces"])
    assert result.exit_code == 2 and "not valid ClickHouse SQL" in result.output
    result = CliRunner().invoke(
        cli, ["sql", "--db", url, "--format", "csv", "SELECT count() AS n FROM otel_traces"]
    )
    assert result.exit_code == 0 and result.output.splitlines()[:2] == ["n", "0"]


def test_wrong_credentials_message_says_which_and_how() -> None:
    # the text a ClickHouse server answers for a bad password (code 516)
    url = parse_store_url("clickhouse://bob:nope@db.internal:8443/otel?secure=1")
    message = describe_error(
        url,
        Exception(
            "HTTPDriver for https://db.internal:8443 received ClickHouse error code 516\n"
            "Code: 516. DB::Exception: bob: Authentication failed: password is incorrect, "
            "or there is no user with such name. (AUTHENTICATION_FAILED)"
        ),
        "connecting",
    )
    assert message.startswith("clickhouse://bob@db.internal:8443/otel (https)")
    assert "CLICKHOUSE_PASSWORD" in message and "nope" not in message


def test_read_timeout_is_not_called_unreachable() -> None:
    url = parse_store_url("clickhouse://bob@db.internal/otel")
    message = describe_error(
        url,
        Exception(
            "Error HTTPConnectionPool(host='db.internal', port=8123): Read timed out. "
            "(read timeout=300) executing HTTP request attempt 1 (http://db.internal:8123)"
        ),
        "a query",
    )
    assert "sent nothing for 300 s" in message and "not reachable" not in message


def test_url_forms() -> None:
    url = parse_store_url("clickhouses://u%40x:p@h:9440/traces?traces_table=t&logs_table=l", env={})
    assert (url.kind, url.host, url.port, url.username, url.password) == (
        "clickhouse",
        "h",
        9440,
        "u@x",
        "p",
    )
    assert (url.database, url.secure, url.traces_table, url.logs_table) == (
        "traces",
        True,
        "t",
        "l",
    )
    url = parse_store_url("clickhouses://h/db?ca_cert=/etc/ca.pem", env={})
    assert (url.secure, url.ca_cert, url.verify, url.port) == (True, "/etc/ca.pem", True, 8443)
    assert parse_store_url("clickhouse://h/db?secure=1&verify=0", env={}).verify is False
    env = {"CLICKHOUSE_USER": "svc", "CLICKHOUSE_PASSWORD": "pw"}
    url = parse_store_url("clickhouse://ch", env=env)
    assert (url.username, url.password, url.port, url.database) == ("svc", "pw", 8123, "otel")
    assert parse_store_url("chdb:///var/lib/x").path == "/var/lib/x"
    assert parse_store_url("results/t.duckdb").kind == "duckdb"
    with pytest.raises(ValueError, match="port"):
        parse_store_url("clickhouse://h:notaport/otel")
    with pytest.raises(StoreError, match="data directory"):
        from tracesim.evaluator.store import open_store

        open_store("chdb://")
