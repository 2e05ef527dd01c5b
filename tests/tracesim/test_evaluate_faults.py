"""Evaluate under faults of the machine (SPEC §9): a full disk under the store or the output
folder exits 2 with one line naming the file, and nothing written is left half-done; an
evaluation killed with SIGKILL while writing scores, run again, stores what an
uninterrupted one does.

Before: a full disk under the DuckDB file ended in "internal error (traceback above)",
exit 3, the cause hidden behind "cannot rollback - no transaction is active"; under the
output folder, results.json's failure was an internal error too, and the report's a
yellow line with exit 0."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from tests.tmpfs import mounted_tmpfs, resize_tmpfs
from tracesim.cli import cli
from tracesim.config_loader import load_run_config
from tracesim.run import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"


@pytest.fixture(scope="module")
def example_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("example")
    outcome = run(load_run_config(EXAMPLE, {"output_dir": str(folder)}), show_progress=False)
    assert outcome.exit_code == 0, outcome.error
    assert outcome.db_path is not None
    return Path(outcome.db_path)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs whose size a test sets (root only; skipped otherwise)."""
    with mounted_tmpfs(tmp_path / "disk", "64m") as mount:
        yield mount


def _evaluate(db: Path, out: Path) -> object:
    return CliRunner().invoke(cli, ["evaluate", "--db", str(db), "--output-dir", str(out)])


def _scores(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        [eval_id] = con.execute(
            "SELECT eval_id FROM runs WHERE kind = 'evaluate' ORDER BY finished_at DESC LIMIT 1"
        ).fetchone()
        return con.execute(
            "SELECT chat_id, turn_id, metric, value, label FROM scores WHERE eval_id = ? "
            "ORDER BY ALL",
            [eval_id],
        ).fetchall()


def _reference(example_db: Path, tmp_path: Path) -> list[tuple]:
    clean = tmp_path / "clean.duckdb"
    shutil.copy(example_db, clean)
    assert _evaluate(clean, tmp_path / "clean-out").exit_code == 0
    return _scores(clean)


def test_a_full_disk_under_the_store_exits_2_and_a_rerun_gives_the_same_scores(
    example_db: Path, disk: Path, tmp_path: Path
) -> None:
    db = disk / "t.duckdb"
    shutil.copy(example_db, db)
    resize_tmpfs(disk, db.stat().st_size // 1024 + 40)  # the file fits, its writes do not
    done = _evaluate(db, tmp_path / "out")
    assert done.exit_code == 2, done.output
    assert f"cannot write {db}" in done.output and "No space left on device" in done.output
    assert "Traceback" not in done.output
    resize_tmpfs(disk, 64 << 10)  # room again
    again = _evaluate(db, tmp_path / "out")
    assert again.exit_code == 0, again.output
    assert _scores(db) == _reference(example_db, tmp_path)


@pytest.mark.parametrize("kib", [8, 40], ids=["results", "report"])
def test_a_full_output_folder_exits_2_leaving_no_partial_file(
    example_db: Path, disk: Path, tmp_path: Path, kib: int
) -> None:
    db = tmp_path / "t.duckdb"
    shutil.copy(example_db, db)
    resize_tmpfs(disk, kib)
    out = disk / "out"
    done = _evaluate(db, out)
    assert done.exit_code == 2, done.output
    assert f"cannot write {out}" in done.output and "No space left on device" in done.output
    assert "Traceback" not in done.output
    for written in out.iterdir() if out.exists() else ():
        assert written.name in ("results.json",), written  # whole files only, no report
        assert written.read_bytes().rstrip().endswith(b"}")


_KILLED_WRITING = """
import os, signal, sys
import tracesim.evaluator.store.duckdb_store as store
write = store.DuckDBStore.write_chunk
def write_then_die(self, *args, **kwargs):
    write(self, *args, **kwargs)  # scores committed, the evaluation's runs row not yet
    os.kill(os.getpid(), signal.SIGKILL)
store.DuckDBStore.write_chunk = write_then_die
from tracesim.cli import cli
cli(["evaluate", "--db", sys.argv[1], "--output-dir", sys.argv[2], "--workers", "1"])
"""


def test_an_evaluation_killed_while_writing_then_rerun_gives_the_same_scores(
    example_db: Path, tmp_path: Path
) -> None:
    db = tmp_path / "k.duckdb"
    shutil.copy(example_db, db)
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITING, str(db), str(tmp_path / "killed-out")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == -9, done.stdout + done.stderr
    again = _evaluate(db, tmp_path / "out")
    assert again.exit_code == 0, again.output
    assert _scores(db) == _reference(example_db, tmp_path)
