"""`tracesim evaluate --since` with nothing new in range: one line, exit 0, and no
evaluation written (no `runs` row, no results.json), on DuckDB and chdb alike.

Before: an hourly job with no new traffic stored an empty evaluation every hour (and its
results.json and report), which then had to be skipped by `compare --baseline latest`."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from tracesim.evaluator.store import open_store

from tests.evaluator.test_sampled_evaluation import store  # noqa: F401 - the fixture
from tracesim.cli import cli


def _evaluate(db: str, out: Path) -> object:
    return CliRunner().invoke(
        cli, ["evaluate", "--db", db, "--since", "24h", "--no-progress", "--output-dir", str(out)]
    )


def _evaluations(db: str) -> int:
    with open_store(db, read_only=True) as opened:
        return int(opened.query(f"SELECT count() FROM {opened.final('runs')}").rows[0][0])


def test_nothing_new_since_writes_no_evaluation(store: str, tmp_path: Path) -> None:  # noqa: F811
    first = _evaluate(store, tmp_path / "first")
    assert "not evaluated yet: 10" in first.output, first.output
    assert _evaluations(store) == 1
    again = _evaluate(store, tmp_path / "again")
    assert again.exit_code == 0, again.output
    lines = [line for line in again.output.splitlines() if "nothing to evaluate" in line]
    assert len(lines) == 1 and "not evaluated yet: 0" in lines[0], again.output
    assert "Traceback" not in again.output
    assert _evaluations(store) == 1
    assert not (tmp_path / "again" / "results.json").exists()
