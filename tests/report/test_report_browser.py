"""Open the report in real headless Chromium: charts drawn, conversations open, no errors.

Skipped only when /usr/bin/chromium is absent
(`apt-get install -y chromium chromium-driver`). Screenshots go to
tests/artifacts/ for a human to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tracesim.evaluator.report.embed import GZIP_SCRIPT_TYPE

from tests.report.cdp import CHROMIUM, Browser
from tests.report.conftest import ARTIFACTS
from tests.report.fixture_db import XSS_TEXT

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"{CHROMIUM} not installed: apt-get update && apt-get install -y chromium chromium-driver",
)


@pytest.fixture(scope="module")
def browser():
    with Browser(width=1400, height=1000) as b:
        yield b


def test_the_report_renders_without_console_errors(browser: Browser, report_path: Path) -> None:
    browser.open(report_path.as_uri())
    browser.wait_for("document.body.dataset.ready === '1'")
    charts = browser.evaluate('document.querySelectorAll(".chart").length')
    assert charts >= 4
    drawn = "[...document.querySelectorAll('.chart')].filter((c) =>"
    drawn += " c.classList.contains('js-plotly-plot') && c.querySelector('svg.main-svg')).length"
    browser.wait_for(f"{drawn} === {charts}")
    assert browser.evaluate('document.querySelectorAll("#conv-rows tr").length') == 12
    browser.screenshot(ARTIFACTS / "report_overview.png", full_page=True)
    assert browser.errors == []


def test_opening_a_conversation_shows_its_tool_calls_and_waterfalls(
    browser: Browser, report_path: Path
) -> None:
    browser.open(report_path.as_uri())
    browser.wait_for("document.body.dataset.ready === '1'")
    assert browser.evaluate('document.querySelectorAll("#conversation .tool-call").length') == 0
    browser.evaluate("document.querySelector(\"#conv-rows a[href='#conv=chat-0001']\").click()")
    browser.wait_for('document.getElementById("conversation").dataset.chatId === "chat-0001"')
    calls = browser.wait_for('document.querySelectorAll("#conversation .tool-call").length')
    assert calls > 0
    text = browser.evaluate('document.getElementById("conversation").innerText')
    assert "lookup_order" in text and "order_id" in text
    turns = browser.evaluate('document.querySelectorAll("#conversation .turn").length')
    browser.wait_for(
        f'[...document.querySelectorAll("#conversation .waterfall")].filter((w) => w.querySelector("svg.main-svg")).length === {turns}'
    )
    # agent text with HTML in it shows as text and runs nothing
    assert "<script>window.__xss = 1</script>" in text
    assert browser.evaluate("typeof window.__xss") == "undefined"
    browser.screenshot(ARTIFACTS / "report_conversation.png")
    assert browser.errors == []


def test_a_conv_link_opens_the_conversation_after_decompressing_it(
    browser: Browser, report_path: Path
) -> None:
    browser.open("about:blank")  # a real load, not a same-document hash change
    browser.open(report_path.as_uri() + "#conv=chat-0001")
    browser.wait_for("document.body.dataset.ready === '1'")
    assert browser.evaluate(
        f'document.querySelector(\'script[id="conv-1"]\').type === "{GZIP_SCRIPT_TYPE}"'
    )
    browser.wait_for('document.getElementById("conversation").dataset.chatId === "chat-0001"')
    assert browser.evaluate('document.querySelectorAll("#conversation .turn").length') == 3
    assert browser.evaluate('document.querySelectorAll("#conversation .tool-call").length') > 0
    text = browser.evaluate('document.getElementById("conversation").innerText')
    assert "Conversation chat-0001" in text and "Sure, I looked into order status" in text
    assert XSS_TEXT.split(">")[0] in text  # shown as text, decompressed intact
    browser.wait_for('document.querySelector("#conversation .waterfall svg.main-svg")')
    assert browser.evaluate("typeof window.__xss") == "undefined"
    assert browser.errors == []


def test_a_failure_link_opens_its_conversation(browser: Browser, report_path: Path) -> None:
    browser.open(report_path.as_uri())
    browser.wait_for("document.body.dataset.ready === '1'")
    chat_id = browser.evaluate(
        "(() => { const a = document.querySelector('#failures a[href^=\"#conv=\"]');"
        " a.click(); return decodeURIComponent(a.getAttribute('href').slice(6)); })()"
    )
    browser.wait_for(f'document.getElementById("conversation").dataset.chatId === "{chat_id}"')
    assert browser.errors == []


def test_the_list_filters_by_failure_label(browser: Browser, report_path: Path) -> None:
    browser.open(report_path.as_uri())
    browser.wait_for("document.body.dataset.ready === '1'")
    shown = browser.evaluate(
        "(() => { const s = document.getElementById('f-label'); s.value = 'Failed';"
        " s.dispatchEvent(new Event('change'));"
        " return document.querySelectorAll('#conv-rows tr').length; })()"
    )
    failed = browser.evaluate(
        "JSON.parse(document.getElementById('report-index').textContent)"
        ".filter((r) => r.label === 'Failed').length"
    )
    assert shown == failed > 0
    assert browser.errors == []
