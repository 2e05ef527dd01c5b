"""The notebooks run top to bottom against a synthetic DuckDB file, and are stored without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.report.fixture_db import build_fixture_db

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ALL = sorted(NOTEBOOKS.glob("*.ipynb"))


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("notebooks")
    return (
        build_fixture_db(root / "a.duckdb", num_conversations=8, turns=3, seed=1),
        build_fixture_db(root / "b.duckdb", num_conversations=8, turns=3, seed=2),
    )


def _execute(
    path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> nbformat.NotebookNode:
    for key in ("TRACESIM_DB", "TRACESIM_DB_B", "TRACESIM_EVAL_A", "TRACESIM_EVAL_B"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # the kernel inherits the environment
    book = nbformat.read(path, as_version=4)
    NotebookClient(
        book, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    return book


def test_there_are_three_notebooks() -> None:
    assert [p.name for p in ALL] == [
        "01_explore_traces.ipynb",
        "02_tool_call_quality.ipynb",
        "03_compare_runs.ipynb",
    ]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(
    path: Path, dbs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    book = _execute(path, {"TRACESIM_DB": str(dbs[0])}, monkeypatch)
    outputs = [o for c in book.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("reading" in o.get("text", "") for o in outputs)


def test_compare_runs_across_two_files(
    dbs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    book = _execute(
        NOTEBOOKS / "03_compare_runs.ipynb",
        {"TRACESIM_DB": str(dbs[0]), "TRACESIM_DB_B": str(dbs[1])},
        monkeypatch,
    )
    text = "".join(
        o.get("text", "") for c in book.cells if c.cell_type == "code" for o in c.outputs
    )
    assert f"B = {dbs[1]}:eval-2" in text


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebooks_are_stored_without_outputs(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name}: strip outputs"
            )


@pytest.fixture(scope="module")
def example_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file produced by the offline example, as the notebooks promise to read."""
    from tracesim.config_loader import load_run_config
    from tracesim.run import run

    config = NOTEBOOKS.parent / "examples" / "customer_service" / "config.yaml"
    out = tmp_path_factory.mktemp("example") / "results"
    outcome = run(load_run_config(config, {"output_dir": str(out)}), show_progress=False)
    assert outcome.exit_code == 0, outcome.error
    return outcome.db_path


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebook_runs_on_the_offline_example(
    path: Path, example_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = _execute(path, {"TRACESIM_DB": str(example_db)}, monkeypatch)
    outputs = [o for c in book.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any(str(example_db) in o.get("text", "") for o in outputs)
