"""Collected conversations' messages are stored (issue 22.1, 23.7): evaluate writes the
turns it derives from a collected chat's spans to `traced_turns`, `all_turns` shows them
beside simulated turns, and the report's transcript reads them; on a DuckDB file, through
a running collector's write route, and on ClickHouse (chdb and its HTTP interface).
Re-evaluating replaces the rows, never duplicates them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from tracesim.collector import Collector
from tracesim.evaluator import evaluate_db
from tracesim.evaluator.report import iter_details, load_report_data
from tracesim.evaluator.store import open_store
from tracesim.evaluator.store.live import TOKEN_ENV
from tracesim.schemas.eval_config import EvalConfig

HERE = Path(__file__).resolve().parent
TOKEN = "traced-s3cret"
TURNS = "SELECT chat_id, turn_id, user_message, agent_message, source FROM all_turns ORDER BY ALL"
NO_JUDGES = EvalConfig(metrics=[])


def _evaluate(db: Any, out: Path) -> str:
    return evaluate_db(db, config=NO_JUDGES, output_dir=out, progress=False).eval_id


def _report_turns(db: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Each chat's transcript as the report embeds it: (turn_id, user, agent, source)."""
    with open_store(db, read_only=True) as store, store.report_connection(None) as con:
        data = load_report_data(con, db_path=store.label)
        return {
            detail["chat_id"]: [
                (t["turn_id"], t["user"], t["agent"], t.get("source")) for t in detail["turns"]
            ]
            for _, detail in iter_details(con, data)
        }


def _check_production(rows: list[tuple[Any, ...]], chats: list[str]) -> None:
    by_chat: dict[str, list[tuple[Any, ...]]] = {}
    for chat_id, turn_id, user, agent, source in rows:
        by_chat.setdefault(chat_id, []).append((turn_id, user, agent, source))
    assert sorted(by_chat) == sorted(chats)
    users = [t[1] for t in by_chat[chats[1]]]
    assert users == [
        "Hi, where is my order A1004?",
        "I'd like a refund for it, it broke. My email is kim@example.com",
    ]
    for turns in by_chat.values():
        assert [t[0] for t in turns] == [0, 1]
        assert all(t[2] for t in turns)  # the agent's replies, read from the spans
        assert {t[3] for t in turns} == {"traced"}


def test_collected_messages_are_stored_live_and_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    db = tmp_path / "production.duckdb"
    collector = Collector(db, grpc_port=0, http_port=0, auth_token=TOKEN).start()
    try:
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.grpc_endpoint or "",
            "OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer {TOKEN}",
        }
        done = subprocess.run(
            [sys.executable, str(HERE / "production_app.py")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        chats = json.loads(done.stdout.strip().splitlines()[-1])
        assert collector.flush(10)
        # through the running collector's write route, twice: replaced, not duplicated
        _evaluate(db, tmp_path / "live1")
        _evaluate(db, tmp_path / "live2")
        live = collector.query(TURNS)[1]
        _check_production(live, chats)
        assert collector.query("SELECT count(*) FROM traced_turns")[1][0][0] == 4
        assert collector.query("SELECT count(*) FROM turns")[1][0][0] == 0
    finally:
        collector.shutdown()
    _evaluate(db, tmp_path / "file")  # the file itself, once the collector stopped
    # and in worker processes, a chunk per conversation: the rows a serial evaluation writes
    evaluate_db(db, config=NO_JUDGES, output_dir=tmp_path / "workers", progress=False,
                workers=2, chunk_rows=1)  # fmt: skip
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(TURNS).fetchall()
        assert con.execute("SELECT count(*) FROM traced_turns").fetchone()[0] == 4
    assert [tuple(r) for r in live] == rows
    report = _report_turns(db)
    _check_production([(chat, *turn) for chat, turns in report.items() for turn in turns], chats)
    _check_page(db, chats[1])


def _check_page(db: Path, chat_id: str) -> None:
    """The written page: each turn's messages beside its spans, and (when Chromium is there)
    the transcript a reader sees, with the "traced" badge."""
    from tracesim.evaluator.report import write_report

    from tests.report.cdp import CHROMIUM, Browser
    from tests.report.test_report_traced_messages import _details

    page = write_report(db, db.parent / "report.html")
    turns = _details(page.read_text(encoding="utf-8"), chat_id)["turns"]
    assert [t["user"] for t in turns] == [
        "Hi, where is my order A1004?",
        "I'd like a refund for it, it broke. My email is kim@example.com",
    ]
    assert all(t["agent"] and t["spans"] and t["source"] == "traced" for t in turns)
    if not CHROMIUM.exists():
        return
    with Browser(width=1400, height=1000) as browser:
        browser.open(page.as_uri() + f"#conv={chat_id}")
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.wait_for(f"document.getElementById('conversation').dataset.chatId === '{chat_id}'")
        text = browser.evaluate("document.getElementById('conversation').innerText")
        assert "My email is kim@example.com" in text and turns[1]["agent"][:40] in text
        badges = browser.evaluate(
            "[...document.querySelectorAll('#conversation .turn-head .badge')]"
            ".map(b => b.textContent)"
        )
        assert badges.count("traced") == 2
        assert browser.errors == []


def test_a_file_older_than_traced_turns_still_answers_all_turns(tmp_path: Path) -> None:
    """`tracesim sql` on a read-only file written before `traced_turns` existed: the views
    are created for the session over an empty stand-in, never a catalog error."""
    from tracesim.evaluator.store.duckdb_reads import run_user_query
    from tracesim.schemas.ddl import ALL_DDL

    db = tmp_path / "old.duckdb"
    with duckdb.connect(str(db)) as con:
        for ddl in ALL_DDL:
            if "traced_turns" not in ddl:
                con.execute(ddl)
        con.execute("INSERT INTO turns (chat_id, turn_id, user_message) VALUES ('c', 0, 'hi')")
    with duckdb.connect(str(db), read_only=True) as con:
        rows = run_user_query(con, TURNS, label=str(db), check=None).rows
    assert rows == [["c", 0, "hi", None, "simulated"]]
