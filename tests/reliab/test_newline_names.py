"""File names holding a newline (or another control character) stay on their output line
(attack round 6). Before: `tracesim import` printed such a name raw, so one line of its
output became two, the second a forged line starting with the rest of the name; bad-input
errors naming such a file did the same on stderr. Now a name with control characters is
quoted with them escaped, and every bad-input error is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracesim.shown import one_line, shown


def _tracesim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("tracesim")), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _span_file(path: Path) -> Path:
    span = {
        "traceId": "1" * 32,
        "spanId": "2" * 16,
        "name": "root",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
    }
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    return path


def _no_forged_line(output: str, tail: str) -> None:
    for line in output.splitlines():
        assert not line.startswith(tail), output


def test_import_keeps_each_name_on_its_line(tmp_path: Path) -> None:
    source = _span_file(tmp_path / "a\nFORGED.json")
    done = _tracesim("import", str(source), "--db", "x\nDBTAIL.duckdb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _no_forged_line(done.stdout + done.stderr, "FORGED")
    _no_forged_line(done.stdout + done.stderr, "DBTAIL")
    assert "a\\nFORGED.json'" in done.stdout
    assert "'x\\nDBTAIL.duckdb'" in done.stdout


def test_a_bad_input_error_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "b\nFORGED.json"
    bad.write_text("{not json")
    done = _tracesim("import", str(bad), "--db", "t.duckdb", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "b\\nFORGED.json" in done.stderr


def test_shown_leaves_plain_names_alone_and_quotes_the_others() -> None:
    assert shown("results/tracesim.duckdb") == "results/tracesim.duckdb"
    assert shown(Path("a\nb")) == "'a\\nb'"
    assert shown("it's\x1b[2J") == "'it\\'s\\x1b[2J'"
    assert shown("line\u2028sep") == "'line\\u2028sep'"
    assert one_line("two\nlines\r") == "two\\nlines\\r"


def test_an_evaluate_error_naming_such_a_file_is_one_line(tmp_path: Path) -> None:
    done = _tracesim("evaluate", "--db", "no\nFORGED.duckdb", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    _no_forged_line(done.stderr, "FORGED")


@pytest.mark.parametrize("command", [["run"], ["inspect", "--db"]], ids=["run", "inspect"])
def test_run_and_inspect_errors_keep_the_name_on_its_line(
    tmp_path: Path, command: list[str]
) -> None:
    done = _tracesim(*command, "no\nFORGED.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    _no_forged_line(done.stderr, "FORGED")
