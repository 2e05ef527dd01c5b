"""A DuckDB file another program holds (a second `tracesim evaluate`, a notebook, a DuckDB
shell) is refused in one line that names the holder's command, not only its pid, so the
user knows what to stop.

Before: "locked by process 4332 that is not a tracesim collector serving it"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
from click.testing import CliRunner

from tracesim.cli import cli

_HOLD = "import duckdb, sys\ncon = duckdb.connect(sys.argv[1])\nprint('held', flush=True)\nsys.stdin.read()\n"


def test_the_holder_is_named_by_its_command(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    duckdb.connect(str(db)).close()
    script = tmp_path / "notebook_kernel.py"
    script.write_text(_HOLD)
    holder = subprocess.Popen(
        [sys.executable, str(script), str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        for command in (["inspect"], ["evaluate", "--no-progress"]):
            result = CliRunner().invoke(cli, [*command, "--db", str(db)])
            assert result.exit_code == 2, result.output
            line = " ".join(result.output.split())
            assert f"locked by process {holder.pid} (notebook_kernel.py /" in line, line
            assert "Traceback" not in result.output
    finally:
        holder.communicate("")
