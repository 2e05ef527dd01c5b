"""Measure the report at scale (not a test): `python -m tests.report.measure_report [N] [TURNS]`.

Builds a synthetic DuckDB file of N conversations x TURNS turns (default
1,000 x 5), writes the report, and opens it in headless Chromium, printing
the file size, the time to write it, the page's load time and the time to
open one conversation. Numbers for the README, never asserted in tests.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from evaluator.report import write_report
from tests.report.cdp import Browser
from tests.report.fixture_db import build_fixture_db

__all__ = ["main"]


def main(num_conversations: int = 1000, turns: int = 5) -> None:
    """Print size and timings of a report of `num_conversations` x `turns`."""
    root = Path(tempfile.mkdtemp(prefix="tracesim-measure-"))
    db = build_fixture_db(root / "big.duckdb", num_conversations=num_conversations, turns=turns)
    t0 = time.perf_counter()
    report = write_report(db, root / "report.html")
    written = time.perf_counter() - t0
    print(f"{num_conversations} conversations x {turns} turns")
    print(f"report: {report.stat().st_size / 1e6:.1f} MB, written in {written:.2f} s")
    with Browser() as browser:
        for attempt in (1, 2):
            browser.open(report.as_uri())
            browser.wait_for("document.body.dataset.ready === '1'", timeout_ms=120000)
            load = browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
            print(f"load event {attempt}: {load:.0f} ms")
        opened = browser.evaluate(
            """new Promise((resolve) => {
                const t = performance.now();
                document.querySelector('#conv-rows a').click();
                (function check() {
                    const panel = document.getElementById('conversation');
                    const plots = panel.querySelectorAll('.waterfall svg.main-svg').length;
                    if (panel.dataset.chatId && plots) return resolve(performance.now() - t);
                    requestAnimationFrame(check);
                })();
            })"""
        )
        print(f"open one conversation (transcript + first waterfall): {opened:.0f} ms")
        print("console errors:", browser.errors or "none")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
