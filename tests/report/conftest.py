"""Fixtures of the report tests: one synthetic DuckDB file and its report, per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from tracesim.evaluator.report import write_report

from tests.report.fixture_db import build_fixture_db

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
"""Screenshots and reports kept for a human to look at (gitignored)."""


@pytest.fixture(scope="session")
def fixture_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 conversations x 3 turns, two evaluations (eval-1 without judges, eval-2 with)."""
    return build_fixture_db(tmp_path_factory.mktemp("db") / "tracesim.duckdb")


@pytest.fixture(scope="session")
def report_path(fixture_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the newest evaluation of `fixture_db`."""
    return write_report(fixture_db, tmp_path_factory.mktemp("report") / "report.html")
