"""`--db` on a file that is not a DuckDB database: one line, exit 2, nothing written.

DuckDB itself opens a `.json` or `.csv` path as an in-memory database with the file as a
view, so without a check `evaluate --db scenarios.json` "evaluated" 0 runs and exited 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tracesim.cli import cli


@pytest.mark.parametrize("name", ["scenarios.json", "spans.csv", "notes.txt"])
@pytest.mark.parametrize(
    "command", [["evaluate"], ["inspect"], ["report"], ["sql", "SELECT 1"]], ids=lambda c: c[0]
)
def test_a_file_that_is_not_duckdb_is_refused(tmp_path: Path, name: str, command: list[str]) -> None:
    path = tmp_path / name
    path.write_text('{"scenarios": []}\n' if name.endswith(".json") else "a,b\n1,2\n")
    before = path.read_bytes()
    result = CliRunner().invoke(cli, [command[0], "--db", str(path), *command[1:]])
    assert result.exit_code == 2, result.output
    assert f"{path} is not a DuckDB file" in result.output
    assert "Traceback" not in result.output
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no results written
