"""Measure the report at scale (not a test).

    python -m tests.report.measure_report [N] [TURNS]   # build N x TURNS, write, open
    python -m tests.report.measure_report --html PATH   # open an existing report

The first form builds a synthetic DuckDB file of N conversations x TURNS
turns (default 1,000 x 5) and writes its report; both open the report in
headless Chromium and print the file size, the time to write it, the
page's load time and the time to open one conversation (decompress, draw
its transcript and first waterfall). Numbers for the README and commit
messages, never asserted in tests. Peak RSS of the write is measured from
outside: `/usr/bin/time -v tracesim report --db ... --out ...`.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tracesim.evaluator.report import write_report

from tests.report.cdp import Browser
from tests.report.fixture_db import build_fixture_db

__all__ = ["main", "measure_page"]

_OPEN_FIRST = """new Promise((resolve) => {
    const t = performance.now();
    document.querySelector('#conv-rows a').click();
    (function check() {
        const panel = document.getElementById('conversation');
        const plots = panel.querySelectorAll('.waterfall svg.main-svg').length;
        if (panel.dataset.chatId && plots) return resolve(performance.now() - t);
        requestAnimationFrame(check);
    })();
})"""


def measure_page(report: Path) -> None:
    """Open `report` in headless Chromium twice and print its load and open timings."""
    print(f"report: {report.stat().st_size / 1e6:.1f} MB")
    with Browser() as browser:
        for attempt in (1, 2):
            browser.open(report.as_uri())
            browser.wait_for("document.body.dataset.ready === '1'", timeout_ms=120000)
            load = browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
            ready = browser.evaluate("Number(document.body.dataset.readyAt || 0)")
            print(f"load event {attempt}: {load:.0f} ms (list ready at {ready:.0f} ms)")
        opened = browser.evaluate(_OPEN_FIRST)
        print(f"open one conversation (transcript + first waterfall): {opened:.0f} ms")
        print("console errors:", browser.errors or "none")


def main(num_conversations: int = 1000, turns: int = 5) -> None:
    """Print size and timings of a report of `num_conversations` x `turns`."""
    root = Path(tempfile.mkdtemp(prefix="tracesim-measure-"))
    db = build_fixture_db(root / "big.duckdb", num_conversations=num_conversations, turns=turns)
    t0 = time.perf_counter()
    report = write_report(db, root / "report.html")
    print(f"{num_conversations} conversations x {turns} turns")
    print(f"written in {time.perf_counter() - t0:.2f} s")
    measure_page(report)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--html"]:
        measure_page(Path(sys.argv[2]))
    else:
        main(*(int(a) for a in sys.argv[1:3]))
