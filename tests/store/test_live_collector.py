"""Every command on a file while `tracesim collect` writes it: evaluate, report, inspect and
sql go through the collector (a real one, in-process on free ports, with a token) and
answer what they answer on the file once it stopped. And never another file's rows:
a file locked by a process that is not its collector is an error (issue 19 item 8)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.store.live import ENDPOINT_ENV, TOKEN_ENV

from tests.collector.otlp import GrpcClient
from tests.store.conftest import two_chats
from tracesim.cli import cli

TOKEN = "live-s3cret"
CALLS = "SELECT chat_id, turn_id, name, arguments, source, traced FROM tool_calls ORDER BY ALL"

GRADED = "evaluation:\n  metrics: []\n  policies: [{never: delete_everything}]\n"
"""No judge; a policy grades every chat (an evaluation that graded nothing exits 3)."""


def _run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _json(*args: str) -> object:
    result = _run(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _evaluate(db: Path, out: Path, config: Path) -> dict:
    result = _run("evaluate", "--db", str(db), "--config", str(config), "--output-dir",
                  str(out), "--no-progress", "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


def _scores(db: Path, eval_id: str) -> list:
    return _json("sql", "SELECT chat_id, turn_id, metric, value, passed, label FROM scores "
                 f"WHERE eval_id = '{eval_id}' ORDER BY ALL", "--db", str(db),
                 "--format", "json")  # fmt: skip


def _answers(db: Path, tmp: Path, config: Path) -> dict:
    """What evaluate, report, inspect and sql answer on `db`, eval ids aside."""
    results = _evaluate(db, tmp / "out", config)
    report = tmp / "report.html"
    written = _run("report", "--db", str(db), "--out", str(report))
    assert written.exit_code == 0, written.output
    page = report.read_text(encoding="utf-8")
    assert results["eval_id"] in page
    return {
        "summary": results["summary"],
        "gates": results["gates"],
        "scores": _scores(db, results["eval_id"]),
        "calls": _json("sql", CALLS, "--db", str(db), "--format", "json"),
        "inspect": _json("inspect", "--db", str(db), "--format", "json"),
        "spans": _json(
            "sql",
            "SELECT name, chat_id, turn_id FROM spans ORDER BY ALL",
            "--db",
            str(db),
            "--format",
            "json",
        ),  # fmt: skip
        "report_chats": sorted(c for c in ("c1", "c2") if f"{c}" in page),
    }


def test_live_answers_are_the_answers_after_the_collector_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    config = tmp_path / "config.yaml"
    config.write_text(GRADED)
    db = tmp_path / "live.duckdb"
    collector = Collector(db, grpc_port=0, http_port=0, auth_token=TOKEN).start()
    try:
        client = GrpcClient(collector.grpc_endpoint or "", token=TOKEN)
        client.export(two_chats())
        client.close()  # no flush here: the collector flushes before it answers
        (tmp_path / "live").mkdir()
        live = _answers(db, tmp_path / "live", config)
        assert collector.stats().spans_stored == 8  # still running, still the owner
        table = _run("sql", "SELECT count(*) FROM runs", "--db", str(db))
        assert f"from {collector.http_endpoint}/tracesim/query" in table.output
    finally:
        collector.shutdown()
    (tmp_path / "stopped").mkdir()
    stopped = _answers(db, tmp_path / "stopped", config)
    assert live["summary"]["num_conversations"] == 2 and len(live["calls"]) == 4
    assert live == stopped


def test_a_live_file_without_the_token_says_which_token(tmp_path: Path) -> None:
    db = tmp_path / "guarded.duckdb"
    with Collector(db, grpc_port=0, http_port=0, auth_token=TOKEN):
        result = CliRunner().invoke(cli, ["inspect", "--db", str(db)])
    assert result.exit_code == 2
    assert "HTTP 401" in result.output and TOKEN_ENV in result.output


@contextmanager
def _held(db: Path) -> Iterator[int]:
    """`db` locked read-write by a process that is not a collector; yields its pid."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
         "con.execute('CREATE TABLE spans (name VARCHAR)'); "
         "con.execute(\"INSERT INTO spans VALUES ('from-A')\"); con.commit(); "
         "print('ready', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "ready"
        yield holder.pid
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


@pytest.mark.parametrize(
    ("token_b", "client_token"), [(None, None), ("b-token", "b-token"), ("b-token", None)]
)
def test_sql_on_a_file_locked_by_another_process_never_answers_from_the_collector_of_b(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_b: str | None, client_token: str | None
) -> None:
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    if client_token:  # the client holds B's token: B still does not answer for A
        monkeypatch.setenv(TOKEN_ENV, client_token)
    why = "asks for a token" if token_b and not client_token else f"serves {b.resolve()}"
    with Collector(b, grpc_port=0, http_port=0, auth_token=token_b) as collector_b:
        client = GrpcClient(collector_b.grpc_endpoint or "", token=token_b)
        client.export(two_chats())
        client.close()
        # B's collector is where a client looks by default (the default port)
        monkeypatch.setenv(ENDPOINT_ENV, collector_b.http_endpoint or "")
        if client_token == token_b:
            assert _json("sql", "SELECT count(*) AS n FROM spans", "--db", str(b),
                         "--format", "json") == [{"n": 8}]  # fmt: skip
        with _held(a) as pid:
            for command in (["sql", "SELECT count(*) AS n FROM spans"], ["inspect"], ["report"],
                            ["evaluate", "--no-progress"]):  # fmt: skip
                result = CliRunner().invoke(cli, [*command, "--db", str(a)])
                assert result.exit_code == 2, (command, result.output)
                assert f"{a} is locked by process {pid}" in result.output, result.output
                assert why in result.output  # why B's collector was not used
                assert "stop that process, or copy the file" in result.output
                assert '"n"' not in result.output and "Traceback" not in result.output
            # even when pointed at B's collector explicitly
            named = CliRunner().invoke(cli, ["sql", "SELECT 1", "--db", str(a), "--endpoint",
                                             collector_b.http_endpoint or ""])  # fmt: skip
            assert named.exit_code == 2 and "Traceback" not in named.output
            assert (why if client_token == token_b else "HTTP 401") in named.output


def test_evaluate_while_spans_keep_arriving(tmp_path: Path) -> None:
    """The collector keeps storing while evaluate reads and writes through it: both go on,
    the chats stored when evaluate planned are scored, and no span is lost."""
    import threading

    config = tmp_path / "config.yaml"
    config.write_text(GRADED)
    db = tmp_path / "busy.duckdb"
    stop = threading.Event()
    sent = [0]
    with Collector(db, grpc_port=0, http_port=0) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        client.export(two_chats())

        def keep_sending() -> None:
            while not stop.is_set():
                client.export(two_chats())
                sent[0] += 1

        sender = threading.Thread(target=keep_sending)
        sender.start()
        try:
            results = _evaluate(db, tmp_path / "out", config)
        finally:
            stop.set()
            sender.join(timeout=60)
            client.close()
        assert results["summary"]["num_conversations"] == 2
        assert results["summary"]["num_turns"] >= 4
        collector.flush()
        stored = collector.query("SELECT count(*) FROM spans")[1][0][0]
    assert stored == 8 * (1 + sent[0])


def test_a_tls_collector_is_read_with_its_ca(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracesim.evaluator.store.live_client import CA_ENV

    from tests.tls_certs import self_signed_cert

    cert, key = self_signed_cert(tmp_path / "tls")
    db = tmp_path / "tls.duckdb"
    with Collector(db, grpc_port=None, http_port=0, tls_cert=cert, tls_key=key) as collector:
        assert (collector.http_endpoint or "").startswith("https://")
        unknown = CliRunner().invoke(cli, ["sql", "SELECT count(*) FROM spans", "--db", str(db)])
        assert unknown.exit_code == 2 and "Traceback" not in unknown.output
        assert "not trusted" in unknown.output and CA_ENV in unknown.output
        monkeypatch.setenv(CA_ENV, str(cert))
        assert _json("sql", "SELECT count(*) AS n FROM spans", "--db", str(db),
                     "--format", "json") == [{"n": 0}]  # fmt: skip
