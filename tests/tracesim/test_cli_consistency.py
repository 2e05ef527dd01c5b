"""The same mistake gets the same exit code in every command (issue 23 item 5), and the
defaults every command shares: `--db`, where outputs go, which config finds which file."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.evaluator.test_pipeline import build_db
from tracesim.cli import cli

HOLD = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def locked_db(tmp_path: Path) -> Iterator[Path]:
    """A DuckDB file held open for writing by another process (a collector, another run)."""
    db = build_db(tmp_path / "held.duckdb")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield db
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


@pytest.mark.parametrize(
    "args",
    [
        ["report"],
        ["evaluate", "--no-progress"],
        ["inspect"],
        ["collect", "--grpc-port", "0", "--http-port", "0"],
        ["sql", "SELECT 1"],
    ],
    ids=["report", "evaluate", "inspect", "collect", "sql"],
)
def test_a_locked_file_is_exit_2_in_every_command(locked_db: Path, args: list[str]) -> None:
    result = CliRunner().invoke(cli, [*args, "--db", str(locked_db)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"tracesim {args[0]}: ") and str(locked_db) in result.output
    assert "Traceback" not in result.output


def test_inspect_defaults_db_like_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACESIM_DB", raising=False)
    result = CliRunner().invoke(cli, ["inspect"])
    assert result.exit_code == 2
    assert result.output.startswith(
        "tracesim inspect: DuckDB file results/tracesim.duckdb does not exist (--db)"
    )
    (tmp_path / "results").mkdir()
    build_db(tmp_path / "results" / "tracesim.duckdb")
    assert CliRunner().invoke(cli, ["inspect"]).exit_code == 0


def test_simulate_evaluate_help_lists_what_it_accepts() -> None:
    text = CliRunner().invoke(cli, ["simulate-evaluate", "--help"]).output
    for option in ("--set KEY=VALUE", "--junit-xml", "--capture-only", "--no-progress"):
        assert option in text
    assert "Extra `--key value` pairs override config keys" in text
    simulate = CliRunner().invoke(cli, ["simulate", "--help"]).output
    assert "--capture-only" not in simulate and "--set KEY=VALUE" in simulate


def test_evaluate_config_option_finds_that_configs_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "out").mkdir(parents=True)
    build_db(project / "out" / "tracesim.duckdb")
    (project / "config.yaml").write_text("output_dir: out\nevaluation: {metrics: []}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACESIM_DB", raising=False)
    result = CliRunner().invoke(
        cli, ["evaluate", "--config", "project/config.yaml", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert (project / "out" / "results.json").is_file()


def test_two_databases_in_one_folder_keep_their_own_outputs(tmp_path: Path) -> None:
    for name in ("a", "b"):
        build_db(tmp_path / f"{name}.duckdb")
        result = CliRunner().invoke(
            cli, ["evaluate", "--db", str(tmp_path / f"{name}.duckdb"), "--no-progress"]
        )
        assert result.exit_code == 0, result.output
        assert f"results: {tmp_path / f'{name}_results' / 'results.json'}" in result.output
    for name in ("a", "b"):
        assert (tmp_path / f"{name}_results" / "report.html").is_file()
    assert not (tmp_path / "results.json").exists() and not (tmp_path / "report.html").exists()
    written = CliRunner().invoke(cli, ["report", "--db", str(tmp_path / "a.duckdb")])
    assert f"report written to {tmp_path / 'a_results' / 'report.html'}" in written.output


def test_command_line_paths_resolve_against_the_cwd_config_paths_against_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracesim.config_loader import load_run_config

    project = tmp_path / "project"
    project.mkdir()
    (project / "config.yaml").write_text(
        "agent_config: {agent_type: custom, module_path: agent.py}\n"
        "scenario_file_path: scenarios.json\noutput_dir: results\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    config = load_run_config(Path("../project/config.yaml")).config
    assert Path(config.output_dir) == project.resolve() / "results"
    overridden = load_run_config(
        Path("../project/config.yaml"), {"output_dir": "mine", "db_path": "x/t.duckdb"}
    ).config
    assert Path(overridden.output_dir) == work / "mine"
    assert Path(overridden.db_path) == work / "x" / "t.duckdb"
    assert Path(overridden.scenario_file_path) == project.resolve() / "scenarios.json"


def test_notebooks_default_to_the_file_make_demo_writes() -> None:
    import json
    import re

    from tracesim.config_loader import load_run_config

    root = Path(__file__).resolve().parents[2]
    demo = re.search(r"tracesim run (\S+)", (root / "Makefile").read_text()).group(1)
    written = Path(load_run_config(root / demo).config.resolved_db_path).resolve()
    for book in sorted((root / "notebooks").glob("*.ipynb")):
        source = "".join("".join(cell["source"]) for cell in json.loads(book.read_text())["cells"])
        (default,) = set(re.findall(r'os\.environ\.get\("TRACESIM_DB", "([^"]+)"\)', source))
        assert (root / "notebooks" / default).resolve() == written, book.name


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["collect", "--grpc-port", "99999"], "'--grpc-port': 99999 is not in the range"),
        (["collect", "--http-port", "-2"], "'--http-port': -2 is not in the range"),
        (["collect", "--max-request-mb", "0"], "'--max-request-mb': 0.0 is not in the range"),
        (["mcp-mock", "--scenarios", "s.json", "--port", "70000"], "'--port': 70000 is not"),
    ],
)
def test_a_port_out_of_range_is_exit_2_not_a_traceback(
    tmp_path: Path, args: list[str], line: str
) -> None:
    """A port past 65535 reached socket.bind: OverflowError traceback, exit 1."""
    db = ["--db", str(tmp_path / "t.duckdb")] if args[0] == "collect" else []
    result = CliRunner().invoke(cli, [*args, *db])
    assert result.exit_code == 2, result.output
    assert line in result.output and "Traceback" not in result.output
    assert not (tmp_path / "t.duckdb").exists()


def _db_params() -> dict[str, object]:
    """Every command (sub-commands included) with a `--db` option: its click parameter."""
    import click

    found: dict[str, object] = {}

    ctx = click.Context(cli)

    def walk(group: click.Command, prefix: str) -> None:
        if isinstance(group, click.Group):  # the lazy group imports each on request
            for name in group.list_commands(ctx):
                sub = group.get_command(ctx, name)
                if sub is not None:
                    walk(sub, f"{prefix}{name} ")
        for param in group.params:
            if "--db" in getattr(param, "opts", ()):
                found[prefix.strip()] = param

    walk(cli, "")
    return found


def test_every_command_shares_one_db_option() -> None:
    """One `--db`: same destination, default, environment variable and checks everywhere."""
    from tracesim.paths import DB_ENV, DEFAULT_DB_PATH

    params = _db_params()
    assert {"collect", "evaluate", "import", "inspect", "report", "sql", "compare",
            "scenarios from-db"} <= set(params)  # fmt: skip
    for command, param in params.items():
        assert (param.name, param.default, param.envvar) == (  # type: ignore[attr-defined]
            "db_path", DEFAULT_DB_PATH, DB_ENV,
        ), command  # fmt: skip
        assert param.callback is not None, command  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["sql", "SELECT 1", "--db", " "], "empty: give a DuckDB file path"),
        (["inspect", "--db", ""], "empty: give a DuckDB file path"),
        (["collect", "--db", "clickhouse://u:p@127.0.0.1:1/otel"], "writes a DuckDB file"),
        (["import", "x.json", "--db", "chdb:///tmp/x"], "writes a DuckDB file"),
    ],
)
def test_a_bad_db_is_one_clear_error(args: list[str], expected: str, tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output


def test_a_folder_to_write_into_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["collect", "--db", str(tmp_path)])
    assert result.exit_code == 2
    assert "is a folder: give a file path such as" in result.output


def test_evaluate_config_with_its_own_db_path_writes_where_the_config_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tracesim evaluate config.yaml` on a config with `db_path`: the results go to its
    `output_dir`, where `tracesim run` put its own, not beside the file."""
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    build_db(project / "data" / "custom.duckdb")
    (project / "config.yaml").write_text(
        "output_dir: out\ndb_path: data/custom.duckdb\nevaluation: {metrics: []}\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACESIM_DB", raising=False)
    result = CliRunner().invoke(cli, ["evaluate", "project/config.yaml", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (project / "out" / "results.json").is_file()
    assert (project / "out" / "report.html").is_file()
    assert not (project / "data" / "custom_results").exists()
