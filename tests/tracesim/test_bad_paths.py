"""Bad paths and busy ports: one clear line and exit 2, never a traceback or a stray file."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.evaluator.test_pipeline import build_db
from tracesim.cli import cli

TRACESIM = Path(sys.executable).parent / "tracesim"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"


def test_collect_into_a_folder_that_cannot_exist_exits_2(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = CliRunner().invoke(cli, ["collect", "--db", str(blocker / "x.duckdb")])
    assert result.exit_code == 2, result.output
    assert "a-file" in result.output and "is a file, not a folder" in result.output
    assert "Traceback" not in result.output


def test_collect_on_a_busy_port_exits_2_quietly_and_leaves_no_file(tmp_path: Path) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
        proc = subprocess.run(
            [str(TRACESIM), "collect", "--db", "new/t.duckdb", "--grpc-port", str(port)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        busy.close()
    assert proc.returncode == 2, proc.stderr
    assert f"127.0.0.1:{port}" in proc.stderr and "--grpc-port" in proc.stderr
    assert "add_port" not in proc.stderr and "Traceback" not in proc.stderr  # no C-core log lines
    assert list(tmp_path.iterdir()) == []  # no empty .duckdb, no folder left behind


def test_run_with_an_output_dir_that_cannot_be_created_exits_2(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = CliRunner().invoke(
        cli, ["run", str(EXAMPLE), "--output_dir", str(blocker / "results"), "--no-progress"]
    )
    assert result.exit_code == 2, result.output
    assert "output_dir" in result.output and "is a file, not a folder" in result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


def test_evaluate_and_report_with_unwritable_outputs_exit_2(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for args in (
        ["evaluate", "--db", str(db), "--junit-xml", str(blocker / "j.xml")],
        ["evaluate", "--db", str(db), "--output-dir", str(blocker / "out")],
        ["report", "--db", str(db), "--out", str(blocker / "r.html")],
        ["report", "--db", str(tmp_path / "missing.duckdb")],
    ):
        result = CliRunner().invoke(cli, [*args])
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
    assert not (tmp_path / "missing.duckdb").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused_by_collect_and_run(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = CliRunner().invoke(cli, ["collect", "--db", str(locked / "x.duckdb")])
        assert result.exit_code == 2 and "not writable" in result.output
        result = CliRunner().invoke(
            cli, ["run", str(EXAMPLE), "--output_dir", str(locked / "out"), "--no-progress"]
        )
        assert result.exit_code == 2 and "output_dir" in result.output
    finally:
        locked.chmod(0o700)
