"""Every config-like file a user names (run config, `evaluate --config`, `evaluate
config.yaml`, redaction rules, scenarios) that is a device, a FIFO, too large or not
UTF-8 exits 2 in one line saying what it is, before anything runs.

Before: `collect --redaction-file /dev/zero` read until MemoryError (a traceback, or the
machine's memory without a limit), a FIFO hung it (killed after 30 s, no output), and
`run /dev/zero` / `evaluate --config /dev/zero` said "not found"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from tracesim.schemas.text_file import TextFileError, read_text_file
from tracesim.simulator.scenarios import ScenarioError, load_scenarios

TRACESIM = str(Path(sys.executable).with_name("tracesim"))


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a child with a deadline and 2 GiB of address space: a hang or an
    unbounded read fails the test instead of the machine."""
    return subprocess.run(
        ["bash", "-c", 'ulimit -v 2000000; exec "$@"', "tracesim", TRACESIM, *args],
        cwd=cwd, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "rules.yaml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["device", "fifo"])
@pytest.mark.parametrize(
    "command",
    [
        ["run", "{f}"],
        ["evaluate", "--db", "t.duckdb", "--config", "{f}"],
        ["evaluate", "{f}"],
        ["collect", "--db", "c.duckdb", "--grpc-port", "0", "--http-port", "0",
         "--redaction-file", "{f}"],
    ],  # fmt: skip
    ids=["run", "evaluate-config", "evaluate-positional", "collect-redaction"],
)
def test_not_a_file_is_one_line_exit_2(
    tmp_path: Path, fifo: Path, kind: str, command: list[str]
) -> None:
    duckdb.connect(str(tmp_path / "t.duckdb")).close()  # the store evaluate reads
    target = "/dev/zero" if kind == "device" else str(fifo)
    said = "is a character device, not a file" if kind == "device" else "is a FIFO"
    done = _run(*(part.format(f=target) for part in command), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_read_text_file_refuses_large_and_non_utf8(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: 1\n" * 10)
    with pytest.raises(TextFileError, match="more than 0 MiB"):
        read_text_file(big, limit=16)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(TextFileError, match="not UTF-8 text"):
        read_text_file(latin)
    with pytest.raises(FileNotFoundError):
        read_text_file(tmp_path / "missing.yaml")


def test_a_scenario_file_that_is_a_device_is_named(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="is a character device, not a file"):
        load_scenarios("/dev/zero")
