"""The report designed for thousands of scenarios, in real headless Chromium.

A 500-scenario report (1,000 conversations) and a 6-scenario one: failures come
right after the summary, open, worst first; per-scenario charts stay a fixed
height; the conversation list sorts and filters by status, scenario, tool and
error; the title names what was tested, not a hash. Screenshots of both are kept
in tests/artifacts/ for a human to look at.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from tracesim.evaluator.report import write_report

from tests.report.cdp import CHROMIUM, Browser
from tests.report.conftest import ARTIFACTS
from tests.report.fixture_db import build_fixture_db

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} not installed: apt-get install -y chromium"
)

READY = "document.body.dataset.ready === '1'"
ROWS = "[...document.querySelectorAll('#conv-rows tr')]"


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("large")
    db = build_fixture_db(
        folder / "tracesim.duckdb", num_conversations=1000, turns=2, num_scenarios=500
    )
    return db, write_report(db, folder / "report.html")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("small")
    db = build_fixture_db(folder / "tracesim.duckdb", num_conversations=12, num_scenarios=6)
    return db, write_report(db, folder / "report.html")


@pytest.fixture(scope="module")
def browser():
    with Browser(width=1400, height=1000) as b:
        yield b


def _open(browser: Browser, report: Path) -> None:
    browser.open("about:blank")
    browser.open(report.as_uri())
    browser.wait_for(READY)


def _top(browser: Browser, selector: str) -> float:
    return browser.evaluate(
        f"document.querySelector('{selector}').getBoundingClientRect().top + window.scrollY"
    )


def _scalar(db: Path, sql: str) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchone()[0]


def test_500_scenarios_failures_first_open_and_charts_bounded(
    browser: Browser, large: tuple[Path, Path]
) -> None:
    db, report = large
    _open(browser, report)
    # the title names what was tested (the agent's service), never the eval_id hash
    title = browser.evaluate("document.querySelector('header h1').textContent")
    assert title.startswith("support-agent") and "eval-2" not in title
    assert title.endswith("· evaluation 2025-01-15 11:00")
    # failures come before the charts, within the first two screens, every group open
    assert _top(browser, "#failures") < _top(browser, "#charts")
    assert _top(browser, "#failures") < 2000
    assert browser.evaluate(
        "[...document.querySelectorAll('#failures details')].every(d => d.open)"
    )
    worst = browser.evaluate(
        "[...document.querySelectorAll('table.worst tbody tr')].map(tr =>"
        " [tr.cells[2].innerText, tr.cells[3].innerText])"
    )
    assert 0 < len(worst) <= 20
    failed = [float(score) for label, score in worst if label == "Failed"]
    assert failed == sorted(failed) and worst[0][0] == "Failed"  # worst first
    # per-scenario charts draw the 15 worst: a fixed height, not one bar per scenario
    charts = browser.evaluate("document.querySelectorAll('.chart').length")
    browser.wait_for(
        "[...document.querySelectorAll('.chart')].filter(c => c.querySelector('svg.main-svg'))"
        f".length === {charts}"
    )
    status_height = browser.evaluate(
        "document.getElementById('chart-status').getBoundingClientRect().height"
    )
    assert status_height < 700
    assert "15 worst of 500 scenarios" in browser.evaluate(
        "document.getElementById('charts').innerText"
    )
    height = browser.evaluate("document.documentElement.scrollHeight")
    assert height < 10000, height  # the status chart alone was ~5,000 px at 200 scenarios
    browser.screenshot(ARTIFACTS / "report_500_scenarios.png", full_page=True)
    assert browser.errors == []


def test_500_scenarios_list_sorts_and_filters(browser: Browser, large: tuple[Path, Path]) -> None:
    db, report = large
    _open(browser, report)
    assert browser.evaluate(f"{ROWS}.length") == 50  # paginated
    count = "document.getElementById('conv-count').textContent"
    assert browser.evaluate(count).startswith("1000 of 1000")
    # default order: worst first (Failed, lowest final score on top)
    first = browser.evaluate(f"{ROWS}.slice(0, 3).map(tr => tr.cells[2].innerText)")
    assert first == ["Failed"] * 3
    scores = f"{ROWS}.map(tr => Number(tr.cells[3].innerText))"
    top = browser.evaluate(scores)[:10]
    assert top == sorted(top)
    # a click on a header sorts by it, a second click reverses
    browser.evaluate("document.querySelector('th[data-sort=\"final\"]').click()")
    ascending = browser.evaluate(scores)
    assert ascending == sorted(ascending)
    browser.evaluate("document.querySelector('th[data-sort=\"final\"]').click()")
    descending = browser.evaluate(scores)
    assert descending == sorted(descending, reverse=True) and descending[0] > ascending[0]

    def filtered(select: str, value: str) -> int:
        browser.evaluate(
            "(() => { document.getElementById('f-reset').click();"
            f" const s = document.getElementById('{select}'); s.value = '{value}';"
            " s.dispatchEvent(new Event('change')); })()"
        )
        return int(browser.evaluate(count).split(" of ")[0])

    assert filtered("f-tool", "issue_refund") == _scalar(
        db, "SELECT count(DISTINCT chat_id) FROM tool_calls WHERE name = 'issue_refund'"
    )
    assert filtered("f-error", "tool") == _scalar(
        db, "SELECT count(DISTINCT chat_id) FROM tool_calls WHERE error <> ''"
    )
    failing = filtered("f-label", "__failing")
    assert 0 < failing < 1000
    assert filtered("f-label", "Failed") == _scalar(
        db,
        "SELECT count(*) FROM scores WHERE eval_id = 'eval-2' AND metric = 'final_score'"
        " AND turn_id IS NULL AND label = 'Failed'",
    )
    assert filtered("f-scenario", "order_status-0001") == 2
    assert browser.errors == []


def test_6_scenarios_report(browser: Browser, small: tuple[Path, Path]) -> None:
    _, report = small
    _open(browser, report)
    charts = browser.evaluate("document.querySelectorAll('.chart').length")
    browser.wait_for(
        "[...document.querySelectorAll('.chart')].filter(c => c.querySelector('svg.main-svg'))"
        f".length === {charts}"
    )
    text = browser.evaluate("document.getElementById('charts').innerText")
    assert "Final status per scenario" in text and "worst of" not in text
    assert browser.evaluate(f"{ROWS}.length") == 12
    browser.screenshot(ARTIFACTS / "report_6_scenarios.png", full_page=True)
    assert browser.errors == []


def test_clicking_a_span_opens_the_inspector(browser: Browser, small: tuple[Path, Path]) -> None:
    db, report = small
    _open(browser, report)
    chat = _scalar(
        db, "SELECT chat_id FROM spans WHERE status_code = 'ERROR' ORDER BY chat_id LIMIT 1"
    )
    browser.evaluate(f"location.hash = '#conv={chat}'")
    browser.wait_for(f"document.getElementById('conversation').dataset.chatId === '{chat}'")
    browser.wait_for("document.querySelector('#conversation .waterfall svg.main-svg')")
    # the error span (red bar) of the first turn that has one: a real mouse click on it
    bar = (
        "[...document.querySelectorAll('#conversation .waterfall')]"
        ".flatMap(w => [...w.querySelectorAll('.point path')])"
        ".find(p => (p.style.fill || '').includes('217, 83, 79'))"
    )
    assert browser.evaluate(f"!!({bar})")
    browser.click_element(bar)
    panel = "[...document.querySelectorAll('#conversation .inspector')].find(p => !p.hidden)"
    browser.wait_for(f"{panel}")
    text = browser.evaluate(f"{panel}.innerText")
    for heading in ("ATTRIBUTES", "EVENTS (1)", "LINKS (0)", "RESOURCE"):
        assert heading in text.upper()
    assert "ERROR" in text and "exception.message" in text and "service.name" in text
    assert "span id" in text and "trace id" in text
    browser.screenshot(ARTIFACTS / "report_span_inspector.png")
    browser.evaluate(f"{panel}.querySelector('button.close').click()")
    assert browser.evaluate(f"!({panel})")
    assert browser.errors == []
