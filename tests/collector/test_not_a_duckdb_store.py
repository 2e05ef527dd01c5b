"""A collector never stores into a file that is not a DuckDB database.

DuckDB opens a `.json` / `.csv` path as an in-memory database with the file as a view:
a collector on it would acknowledge spans and keep them nowhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.collector import Collector, NotADuckDBFile

from tracesim.cli import cli

RECORDING = (
    Path(__file__).resolve().parents[1]
    / "conformance/recordings/openai-agents-as-tool/otlp/0001-traces.pb"
)


@pytest.fixture(params=["scenarios.json", "notes.txt"])
def not_duckdb(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / request.param
    path.write_text('{"scenarios": []}\n')
    return path


def test_the_collector_refuses_to_start_on_it(not_duckdb: Path) -> None:
    with pytest.raises(NotADuckDBFile, match="is not a DuckDB file"):
        Collector(not_duckdb, grpc_port=0, http_port=None).start()
    assert not_duckdb.read_text() == '{"scenarios": []}\n'


@pytest.mark.parametrize(
    "command",
    [
        ["collect", "--grpc-port", "0", "--http-port", "-1", "--no-protocol-check"],
        ["import", str(RECORDING)],
    ],
    ids=["collect", "import"],
)
def test_collect_and_import_say_it_in_one_line(not_duckdb: Path, command: list[str]) -> None:
    result = CliRunner().invoke(cli, [*command, "--db", str(not_duckdb)])
    assert result.exit_code == 2, result.output
    assert f"{not_duckdb} exists and is not a DuckDB file" in result.output
    assert result.output.count("not a DuckDB file") == 1 and "Traceback" not in result.output
    assert not_duckdb.read_text() == '{"scenarios": []}\n'
    assert sorted(p.name for p in not_duckdb.parent.iterdir()) == [not_duckdb.name]
