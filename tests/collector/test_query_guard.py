"""`collector.query.sql_guard` on hand-written SQL: what the query endpoint runs and refuses."""

from __future__ import annotations

import pytest
from tracesim.collector import RefusedQuery, check_read_only, check_safe_for_endpoint
from tracesim.schemas.views import VIEW_NAMES

TABLES = ("spans", "logs", "turns", "conversations", "tool_calls", "scores", "runs", *VIEW_NAMES)

_FILES = "reading files is not allowed through the collector's query endpoint"


def _refusal(sql: str) -> str:
    with pytest.raises(RefusedQuery) as raised:
        check_safe_for_endpoint(sql, allowed_tables=TABLES)
    return str(raised.value)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM spans WHERE chat_id = ? ORDER BY name",
        "SELECT * FROM SPANS",
        "SELECT * FROM main.spans",
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        "WITH a AS (SELECT * FROM spans), b AS (SELECT * FROM a) SELECT * FROM b",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) FROM r",
        "SELECT s.name, t.status FROM spans s LEFT JOIN turns t USING (chat_id, turn_id)",
        "SELECT (SELECT count(*) FROM turns), attributes->>'k' FROM spans",
        "SELECT 1 UNION ALL SELECT 2",
        "VALUES (1), (2)",
        "SELECT * FROM range(10)",
        "FROM generate_series(1, 3)",
        "SELECT unnest([1, 2])",
        "SELECT * FROM json_each('{\"a\": 1}')",
        "DESCRIBE spans",
        "SHOW spans",
        "SHOW TABLES",
        "SUMMARIZE turns",
        "EXPLAIN SELECT * FROM spans",
        "PRAGMA table_info('spans')",
        *(f"SELECT * FROM {view}" for view in VIEW_NAMES),
    ],
)
def test_reads_of_the_database_are_allowed(sql: str) -> None:
    check_safe_for_endpoint(sql, allowed_tables=TABLES)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM read_blob('/etc/passwd')",
        "SELECT * FROM read_parquet('x.parquet')",
        "SELECT * FROM read_json_auto('x.json')",
        "SELECT * FROM sniff_csv('x.csv')",
        "SELECT * FROM parquet_metadata('x.parquet')",
        "SELECT * FROM glob('*')",
        "SELECT * FROM query('SELECT 1')",
        "SELECT * FROM spans, LATERAL (SELECT * FROM read_csv(spans.name))",
        "SELECT (SELECT count(*) FROM read_csv('x.csv'))",
        "EXPLAIN SELECT * FROM read_csv('x.csv')",
    ],
)
def test_file_reading_table_functions_are_refused(sql: str) -> None:
    message = _refusal(sql)
    assert "table function" in message and _FILES in message
    assert "tracesim sql --db FILE" in message


@pytest.mark.parametrize(
    "sql",
    [
        "FROM '/etc/hostname'",
        "SELECT * FROM '/etc/passwd'",
        "SELECT * FROM spans WHERE EXISTS (FROM '/etc/passwd')",
        "DESCRIBE '/etc/passwd'",
        "SUMMARIZE '/etc/passwd'",
        "SELECT * FROM some_python_variable",  # a replacement scan of the server's frames
        "SELECT * FROM system.main.duckdb_settings",
        "SELECT * FROM other_db.spans",
        "WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a",  # b not yet defined
        "SELECT * FROM (WITH v AS (SELECT 1) SELECT * FROM v), v",  # v out of scope
    ],
)
def test_names_that_are_not_tables_are_refused(sql: str) -> None:
    message = _refusal(sql)
    assert "is not a table or view of the collector's database" in message
    assert "spans" in message and _FILES in message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT getenv('HOME')",
        "SELECT \"GETENV\"('HOME')",
        "SELECT getenv('HOME') OVER ()",
        "SELECT list_transform([1], x -> getenv('HOME'))",
        "SELECT current_setting('threads')",
        "SELECT name FROM spans WHERE name = read_text('x')",
    ],
)
def test_environment_and_file_functions_are_refused(sql: str) -> None:
    message = _refusal(sql)
    assert "is not allowed through the collector's query endpoint" in message
    assert "environment" in message


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("INSERT INTO spans (trace_id) VALUES ('a')", "INSERT statements are refused"),
        ("COPY spans TO '/tmp/x.csv'", "COPY statements are refused"),
        ("ATTACH 'other.duckdb'", "ATTACH statements are refused"),
        ("SET threads = 4", "SET statements are refused"),
        ("PRAGMA threads = 4", "SET statements are refused"),
        ("CALL checkpoint()", "CALL statements are refused"),
        ("SELECT 1; SELECT 2", "2 statements given"),
        ("SELECT 1; DROP TABLE spans", "DROP statements are refused"),
        ("EXPLAIN ANALYZE SELECT 1", "EXPLAIN ANALYZE is not allowed"),
        ("PRAGMA database_list", "is not allowed through the collector's query endpoint"),
        ("PRAGMA table_info('secret_var')", "is not allowed through the collector's query"),
        ("SHOW databases", "is not allowed through the collector's query endpoint"),
        ("SELEC 1", "does not parse"),
        ("", "no SQL statement"),
    ],
)
def test_statements_that_are_not_one_read_are_refused(sql: str, expected: str) -> None:
    assert expected in _refusal(sql)


def test_the_statement_check_alone_lets_files_be_read() -> None:
    """The local path (`tracesim sql --db FILE`) runs with the user's privileges."""
    for sql in ("SELECT * FROM read_csv('/etc/passwd')", "SELECT getenv('HOME')"):
        assert check_read_only(sql).query == sql
    with pytest.raises(RefusedQuery, match="read-only"):
        check_read_only("DELETE FROM spans")
