"""`--db` naming something that exists and is not a regular file (a device, a FIFO, a
directory): one line saying what it is, exit 2, for readers and writers alike.

Before: `--db /dev/zero` said "does not exist", and `tracesim collect --db FIFO` hung in
open() waiting for a writer, deaf to SIGTERM (the header check opened it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_READERS = [["inspect"], ["report"], ["evaluate"], ["sql", "SELECT 1"]]


def _tracesim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a child with a deadline: a hang fails the test instead of stalling it."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("tracesim")), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "spans.duckdb"
    os.mkfifo(path)
    return path


def _span_file(folder: Path) -> Path:
    span = {
        "traceId": "1" * 32,
        "spanId": "2" * 16,
        "name": "root",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
    }
    path = folder / "trace.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    return path


@pytest.mark.parametrize("command", _READERS, ids=lambda c: c[0])
def test_a_device_is_named_as_such(tmp_path: Path, command: list[str]) -> None:
    done = _tracesim(command[0], "--db", "/dev/zero", *command[1:], cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "/dev/zero is a character device, not a DuckDB file" in done.stderr
    assert "does not exist" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", _READERS, ids=lambda c: c[0])
def test_a_fifo_is_named_as_such(tmp_path: Path, fifo: Path, command: list[str]) -> None:
    done = _tracesim(command[0], "--db", str(fifo), *command[1:], cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"{fifo} is a FIFO (named pipe), not a DuckDB file" in done.stderr
    assert "Traceback" not in done.stderr


def test_collect_on_a_fifo_exits_instead_of_hanging(tmp_path: Path, fifo: Path) -> None:
    done = _tracesim(
        "collect", "--db", str(fifo), "--grpc-port", "0", "--http-port", "0", cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert f"{fifo} is a FIFO (named pipe), not a DuckDB file" in done.stderr
    assert "Traceback" not in done.stderr


def test_import_into_a_device_or_fifo_exits_2(tmp_path: Path, fifo: Path) -> None:
    trace = _span_file(tmp_path)
    for target, kind in ((fifo, "a FIFO (named pipe)"), (Path("/dev/zero"), "a character device")):
        done = _tracesim("import", str(trace), "--db", str(target), cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert f"{target} is {kind}, not a DuckDB file" in done.stderr
        assert "Traceback" not in done.stderr
