"""Writes the machine refuses part-way (attack round 6: a file-size limit, `ulimit -f`,
refuses every write past 40 KiB, as a full quota or a failing disk would) during
`tracesim import` and `tracesim evaluate`.

Held: import stops with one line saying nothing of the refused batch is stored, and
importing again stores every span once. Broken, then said: evaluate failing to write its
results left DuckDB to checkpoint on close; DuckDB 2.0 rewrites a partly filled block of
the file in place, the write was cut short, and the store no longer opened (a checksum
error), while evaluate said "what was written is complete". Evaluate now checks the
store after a refused write and says when it no longer opens, never "complete"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

TRACESIM = str(Path(sys.executable).with_name("tracesim"))


def _limited(*args: str, cwd: Path, kib: int = 40) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f'ulimit -f {kib}; exec "$@"', "tracesim", TRACESIM, *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _spans_file(folder: Path, count: int = 1500) -> Path:
    spans = [
        {
            "traceId": f"{i // 10 + 1:032x}",
            "spanId": f"{i + 1:016x}",
            "name": f"s{i}",
            "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000001000000000",
            "attributes": [
                {"key": "session.id", "value": {"stringValue": f"chat-{i // 10 % 20}"}},
                {"key": "pad", "value": {"stringValue": "x" * 400}},
            ],
        }
        for i in range(count)
    ]
    path = folder / "spans.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    return path


def _count(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM spans").fetchone()[0]
    finally:
        con.close()


def _opens(db: Path) -> bool:
    try:
        _count(db)
    except duckdb.Error:
        return False
    return True


def test_import_refused_midway_stores_nothing_then_everything_once(tmp_path: Path) -> None:
    source = _spans_file(tmp_path)
    db = tmp_path / "t.duckdb"
    done = _limited("import", str(source), "--db", str(db), cwd=tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "importing again stores nothing twice" in done.stderr
    assert _count(db) == 0
    again = subprocess.run(
        [TRACESIM, "import", str(source), "--db", str(db)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert _count(db) == 1500


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "t.duckdb"
    done = subprocess.run(
        [TRACESIM, "import", str(_spans_file(tmp_path)), "--db", str(db)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db


def test_evaluate_refused_midway_never_says_complete_over_a_damaged_store(store: Path) -> None:
    done = _limited("evaluate", "--db", str(store), cwd=store.parent)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "File too large" in last
    if _opens(store):
        assert "a re-run gives the same results" in last
        assert _count(store) == 1500
    else:  # DuckDB's checkpoint rewrote a block halfway: said, never "complete"
        assert "no longer opens" in last and "restore it from a copy" in last
        assert "complete" not in last


def test_report_refused_midway_is_one_line_and_leaves_no_page(store: Path) -> None:
    """Before: a traceback (OSError from the page writer)."""
    evaluated = subprocess.run(
        [TRACESIM, "evaluate", "--db", str(store)],
        cwd=store.parent, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "results:" in evaluated.stdout, evaluated.stderr  # exit 3: judges not run
    page = store.parent / "page.html"
    done = _limited("report", "--db", str(store), "--out", str(page), cwd=store.parent, kib=200)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "File too large" in done.stderr.strip().splitlines()[-1]
    assert not page.exists() and not page.with_name("page.html.tmp").exists()
