"""`tracesim sql` and `tracesim report`: read-only queries, clear errors, collector fallback."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.schemas.ddl import ALL_DDL

from tests.report.fixture_db import build_fixture_db
from tracesim.cli import cli
from tracesim.sql_client import SqlError, check_read_only, run_query


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_db(tmp_path_factory.mktemp("sql") / "tracesim.duckdb")


def _sql(*args: str) -> object:
    return CliRunner().invoke(cli, ["sql", *args], catch_exceptions=False)


def test_a_table_is_printed_by_default(db: Path) -> None:
    result = _sql("SELECT name, calls FROM tool_stats ORDER BY calls DESC", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert "lookup_order" in result.output and "row(s)" in result.output


def test_csv_and_json_formats(db: Path) -> None:
    csv_out = _sql(
        "SELECT chat_id, turn_id FROM turns ORDER BY ALL LIMIT 2",
        "--db",
        str(db),
        "--format",
        "csv",
    ).output
    assert csv_out.splitlines() == ["chat_id,turn_id", "chat-0000,0", "chat-0000,1"]
    js = _sql("SELECT eval_id, started_at FROM latest_eval", "--db", str(db), "--format", "json")
    assert json.loads(js.output) == [{"eval_id": "eval-2", "started_at": "2025-01-15T11:00:00"}]


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO runs (eval_id) VALUES ('x')",
        "SELECT 1; DROP TABLE spans",
        "CREATE TABLE t (a INT)",
        "EXPLAIN ANALYZE DELETE FROM spans",
        "COPY spans TO 'out.csv'",
        "ATTACH 'other.duckdb'",
        "CALL checkpoint()",
    ],
)
def test_statements_that_write_are_refused(sql: str) -> None:
    with pytest.raises(SqlError, match="read-only"):
        check_read_only(sql)


def test_refused_before_the_file_is_opened(db: Path) -> None:
    result = _sql("DELETE FROM spans", "--db", str(db))
    assert result.exit_code == 2 and "DELETE statements are refused" in result.output
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM spans").fetchall()[0][0] > 0
    con.close()


def test_an_unknown_table_lists_the_tables(db: Path) -> None:
    result = _sql("SELECT * FROM tool_call", "--db", str(db))
    assert result.exit_code == 2
    assert "tool_calls" in result.output and "tool_stats" in result.output


def test_a_missing_file_says_how_to_create_one(tmp_path: Path) -> None:
    result = _sql("SELECT 1", "--db", str(tmp_path / "none.duckdb"))
    assert result.exit_code == 2 and "tracesim run config.yaml" in result.output


def test_views_are_available_on_files_written_before_them(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    for ddl in ALL_DDL:
        con.execute(ddl)
    con.close()
    assert run_query("SELECT count(*) FROM tool_stats", db_path=path).rows == [[0]]


def _identity(handler: BaseHTTPRequestHandler, db: Path, pid: int) -> None:
    """Answer `GET /tracesim/identity` as the collector of `db` running as `pid` would."""
    payload = json.dumps({"db_path": str(db.resolve()), "nonce": "n", "pid": pid}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


class _Collector(BaseHTTPRequestHandler):
    seen: list[dict] = []
    serves: tuple[Path, int] | None = None

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        assert _Collector.serves is not None
        _identity(self, *_Collector.serves)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Collector.seen.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "sql": body["sql"]}
        )
        payload = json.dumps({"columns": ["n"], "rows": [[42]]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _locked(db: Path) -> Iterator[int]:
    """Another process holds `db` read-write (as a running collector does) until exit;
    yields its pid."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('ready', flush=True);"
            " sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        yield holder.pid
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_locked_file_is_queried_through_the_collector(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with _locked(db) as pid:
            _Collector.serves = (db, pid)
            monkeypatch.setenv("COLLECTOR_TOKEN", "s3cret")
            endpoint = f"http://127.0.0.1:{server.server_port}"
            result = _sql(
                "SELECT count(*) AS n FROM spans",
                "--db",
                str(db),
                "--endpoint",
                endpoint,
                "--auth-token-env",
                "COLLECTOR_TOKEN",
                "--format",
                "json",
            )
            assert result.exit_code == 0, result.output
            assert json.loads(result.output) == [{"n": 42}]
            assert _Collector.seen == [
                {
                    "path": "/tracesim/query",
                    "auth": "Bearer s3cret",
                    "sql": "SELECT count(*) AS n FROM spans",
                }
            ]
            refused = _sql("DROP TABLE spans", "--db", str(db), "--endpoint", endpoint)
            assert refused.exit_code == 2 and len(_Collector.seen) == 1
    finally:
        server.shutdown()


def test_report_command_writes_the_file(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.exists() and "report written to" in result.output
    bad = CliRunner().invoke(cli, ["report", "--db", str(db), "--out", str(out), "--eval-id", "x"])
    assert bad.exit_code == 2 and "eval-2, eval-1" in bad.output


def test_the_local_path_may_read_files(db: Path, tmp_path: Path) -> None:
    """`--db FILE` runs in the user's own process: reading files is the user's privilege."""
    extra = tmp_path / "extra.csv"
    extra.write_text("k,v\na,1\n")
    result = _sql(f"SELECT k, v FROM read_csv('{extra}')", "--db", str(db), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["k,v", "a,1"]


def test_one_statement_per_query() -> None:
    with pytest.raises(SqlError, match="2 statements given"):
        check_read_only("SELECT 1; SELECT 2")


@contextmanager
def _locked_behind(db: Path, answer: tuple[int, dict]) -> Iterator[str]:
    """`db` locked by another process and a fake collector answering `answer`; its URL."""
    status, payload = answer
    body = json.dumps(payload).encode()

    holder: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            _identity(self, db, holder[0])

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with _locked(db) as pid:
            holder.append(pid)
            yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def test_a_truncated_answer_is_noted_on_stderr(db: Path) -> None:
    answer = {"columns": ["n"], "rows": [[1], [2]], "truncated": True}
    with _locked_behind(db, (200, answer)) as endpoint:
        result = _sql(
            "SELECT n FROM t", "--db", str(db), "--endpoint", endpoint, "--format", "json"
        )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{"n": 1}, {"n": 2}]
    assert "only the first 2 rows were returned" in result.stderr


def test_the_collectors_refusal_is_shown_as_is(db: Path) -> None:
    refusal = {"code": 400, "message": "table function read_csv() is not allowed"}
    with _locked_behind(db, (400, refusal)) as endpoint:
        result = _sql("SELECT * FROM read_csv('x')", "--db", str(db), "--endpoint", endpoint)
    assert result.exit_code == 2
    assert "HTTP 400: table function read_csv() is not allowed" in result.output
