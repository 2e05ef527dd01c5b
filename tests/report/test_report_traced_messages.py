"""Collected traces are readable: each turn's messages (from the `turns` table, where the
extraction of messages from spans stores them with `source = 'traced'`) beside its
spans, and the span inspector on a click, for a file filled by a real collector."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from tracesim.evaluator.report import write_report
from tracesim.evaluator.report.embed import read_gzip_script

from tests.report.cdp import CHROMIUM, Browser
from tests.report.conftest import ARTIFACTS
from tests.report.user_view_fixtures import collected_only_db

USER = "Where is my order A1? <b>now</b>"
AGENT = "Order A1 ships tomorrow."


@pytest.fixture(scope="module")
def collected_with_messages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The collected-only file, plus `turns` rows for `sess-a` as the message extraction
    writes them: one per trace, keyed by trace_id, messages from the spans, source traced
    (the spans themselves keep turn_id NULL)."""
    db = collected_only_db(tmp_path_factory.mktemp("traced") / "traces.duckdb")
    with duckdb.connect(str(db)) as con:
        con.execute("ALTER TABLE turns ADD COLUMN IF NOT EXISTS source VARCHAR")
        traces = con.execute(
            "SELECT trace_id, min(start_time) FROM spans WHERE chat_id = 'sess-a'"
            " GROUP BY trace_id ORDER BY 2"
        ).fetchall()
        for turn_id, (trace_id, start) in enumerate(traces):
            con.execute(
                "INSERT INTO turns (chat_id, turn_id, trace_id, user_message, agent_message,"
                " start_time, status, source) VALUES ('sess-a', ?, ?, ?, ?, ?, 'ok', 'traced')",
                [turn_id, trace_id, f"{USER} ({turn_id})", f"{AGENT} ({turn_id})", start],
            )
    return db


def _details(html: str, chat_id: str) -> dict:
    for block in re.findall(
        r'(<script type="application/x-tracesim-gzip-base64"[^>]*>[^<]*</script>)', html
    ):
        detail = read_gzip_script(block)
        if detail["chat_id"] == chat_id:
            return detail
    raise AssertionError(f"no block for {chat_id}")


def test_traced_turns_carry_their_messages_and_their_spans(collected_with_messages: Path) -> None:
    html = write_report(collected_with_messages, collected_with_messages.parent / "r.html")
    turns = _details(html.read_text(), "sess-a")["turns"]
    assert [t["turn_id"] for t in turns] == [0, 1]
    assert [t["user"] for t in turns] == [f"{USER} (0)", f"{USER} (1)"]
    assert [t["agent"] for t in turns] == [f"{AGENT} (0)", f"{AGENT} (1)"]
    assert {t["source"] for t in turns} == {"traced"}
    # the spans (turn_id NULL) are each drawn under the turn of their trace
    assert [len(t["spans"]) for t in turns] == [3, 3]
    assert all(len(t["inspect"]) == len(t["spans"]) for t in turns)
    (refund,) = [t for t in turns if any("issue_refund" in s[0] for s in t["spans"])]
    assert refund["resources"] and "shop-agent" in refund["resources"][0]


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} not installed")
def test_a_traced_conversation_reads_like_a_transcript(collected_with_messages: Path) -> None:
    report = write_report(collected_with_messages, collected_with_messages.parent / "r.html")
    with Browser(width=1400, height=1000) as browser:
        browser.open(report.as_uri() + "#conv=sess-a")
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.wait_for("document.getElementById('conversation').dataset.chatId === 'sess-a'")
        text = browser.evaluate("document.getElementById('conversation').innerText")
        assert f"{USER} (0)" in text and f"{AGENT} (1)" in text  # markup shown as text
        badges = browser.evaluate(
            "[...document.querySelectorAll('#conversation .turn-head .badge')]"
            ".map(b => b.textContent)"
        )
        assert badges.count("traced") == 2 and "tracing_processor" not in text
        browser.wait_for(
            "[...document.querySelectorAll('#conversation .waterfall')]"
            ".filter(w => w.querySelector('svg.main-svg')).length === 2"
        )
        bar = (
            "[...document.querySelectorAll('#conversation .waterfall')]"
            ".flatMap(w => [...w.querySelectorAll('.point path')])"
            ".find(p => (p.style.fill || '').includes('217, 83, 79'))"
        )
        browser.click_element(bar)
        panel = "[...document.querySelectorAll('#conversation .inspector')].find(p => !p.hidden)"
        inspected = browser.wait_for(f"({panel} || {{}}).innerText")
        assert "execute_tool issue_refund" in inspected and "refund service down" in inspected
        assert "gen_ai.tool.call.arguments" in inspected and "shop-agent" in inspected
        browser.screenshot(ARTIFACTS / "report_traced_transcript.png")
        assert browser.errors == []
