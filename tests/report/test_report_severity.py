"""Severity (`scores.details.severity` of behaviour-failure labels) shown where labels are."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from tests.report.cdp import CHROMIUM, Browser
from tests.report.conftest import ARTIFACTS
from tests.report.test_report_user_view import _VISIBLE, needs_chromium


def _failing_label(db: Path) -> tuple[str, str, str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT chat_id, label, details->>'severity' FROM scores WHERE eval_id = 'eval-2'"
            " AND metric = 'agent_behavior_failure' AND details->>'severity' IS NOT NULL"
            " ORDER BY chat_id LIMIT 1"
        ).fetchone()


def test_failures_list_shows_the_severity_of_each_label(
    fixture_db: Path, report_path: Path
) -> None:
    _, label, severity = _failing_label(fixture_db)
    failures = report_path.read_text().split('<section id="failures">')[1].split("</section>")[0]
    group = failures.split(f"<summary>{label} ")[1].split("</details>")[0]
    assert re.search(rf"<span class='sev {severity}'>{severity}</span>", group)


@needs_chromium
def test_a_conversation_shows_severity_next_to_its_label(
    fixture_db: Path, report_path: Path
) -> None:
    assert CHROMIUM.exists()
    chat_id, label, severity = _failing_label(fixture_db)
    with Browser(width=1400, height=900) as browser:
        browser.open(report_path.as_uri() + f"#conv={chat_id}")
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.wait_for(f'document.getElementById("conversation").dataset.chatId === "{chat_id}"')
        chips = browser.evaluate(f"{_VISIBLE}('#conversation .chip')")
        (chip,) = [c for c in chips if c.startswith("agent_behavior_failure")]
        assert label in chip and severity in chip.lower()
        checks = browser.evaluate(f"{_VISIBLE}('#conversation .checks')")
        assert any("agent_behavior_failure" in c and severity in c.lower() for c in checks)
        browser.evaluate("document.getElementById('conversation').scrollIntoView()")
        browser.screenshot(ARTIFACTS / "user_view_severity.png")
        assert browser.errors == []
