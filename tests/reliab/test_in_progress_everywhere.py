"""A run still writing the file (`<db>.running`) is said by every way in, not only by
CLI `evaluate`: the public facade `tracesim.evaluate_db` refuses like the CLI (unless
`allow_in_progress`), and `report` / `compare` say in one line that the evaluation they
show predates the run's end.

Before: the facade graded the half-finished conversation as it stood, and report/compare
showed the older evaluation without a word."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.schemas.eval_config import EvalConfig

import tracesim
from tests.collector.otlp import GrpcClient
from tests.test_evaluate_in_progress import RUN, _evaluate, _finished
from tracesim.cli import cli
from tracesim.run_marker import marker_path


@pytest.fixture
def marked(tmp_path: Path) -> Path:
    """c1 finished, c2 turns only, two evaluations stored, then marked as written by a
    live run (this test's parent process)."""
    db = tmp_path / "tracesim.duckdb"
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(_finished("c1"))
        finally:
            client.close()
    for _ in range(2):
        assert _evaluate(db).exit_code == 0
    marker_path(db).write_text(json.dumps({"run_id": RUN, "pid": os.getppid()}))
    return db


def test_the_facade_refuses_like_the_cli(marked: Path) -> None:
    config = EvalConfig(metrics=[])
    with pytest.raises(tracesim.InProgressRefused, match="1 of its 2 conversation"):
        tracesim.evaluate_db(marked, config=config, output_dir=marked.parent / "f", progress=False)
    assert not (marked.parent / "f").exists()
    result = tracesim.evaluate_db(
        marked,
        config=config,
        output_dir=marked.parent / "f",
        progress=False,
        allow_in_progress=True,
    )
    assert result.summary.num_conversations == 1


def test_report_says_the_run_is_in_progress(marked: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "--db", str(marked)])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "still in progress" in line]
    assert len(notes) == 1 and RUN in notes[0] and str(marked) in notes[0]


def test_compare_says_the_run_is_in_progress(marked: Path) -> None:
    result = CliRunner().invoke(
        cli, ["compare", "--db", str(marked), "--baseline", "latest", "--candidate", "latest"]
    )
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "still in progress" in line]
    assert len(notes) == 1 and RUN in notes[0]


def test_a_killed_run_is_said_by_report(marked: Path) -> None:
    marker_path(marked).write_text(json.dumps({"run_id": RUN, "pid": 2**22 + 12345}))
    result = CliRunner().invoke(cli, ["report", "--db", str(marked)])
    assert result.exit_code == 0, result.output
    assert "stopped before its end" in result.stderr


def test_a_marker_that_is_a_fifo_or_huge_is_not_read(tmp_path: Path) -> None:
    """`<db>.running` is read by every evaluate: a FIFO there used to hang it."""
    from tracesim.run_marker import run_in_progress

    db = tmp_path / "t.duckdb"
    os.mkfifo(marker_path(db))
    assert run_in_progress(db) is None
    marker_path(db).unlink()
    marker_path(db).write_text(
        json.dumps({"run_id": RUN, "pid": os.getppid(), "x": "y" * (1 << 20)})
    )
    assert run_in_progress(db) is None
