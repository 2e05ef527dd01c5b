"""Helpers for simulator tests: write configs, scenarios and agent files; read the DuckDB."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run


class Project:
    """A throwaway project directory: config.yaml, scenarios.json, agent files."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def agent(self, source: str, name: str = "agent.py") -> str:
        (self.root / name).write_text(textwrap.dedent(source))
        return name

    def scenarios(self, scenarios: Any, name: str = "scenarios.json") -> str:
        (self.root / name).write_text(json.dumps(scenarios))
        return name

    def config(self, **keys: Any) -> Path:
        body: dict[str, Any] = {
            "scenario_file_path": "scenarios.json",
            "output_dir": "results",
            "trace_wait": {"settle": 0.2, "wait_timeout": 5},
        }
        body.update(keys)
        path = self.root / "config.yaml"
        path.write_text(yaml.safe_dump(body))
        return path

    def run(self, *, evaluate: bool = False, **overrides: str) -> RunOutcome:
        """Capture only by default: these tests are about the simulator, not the scores."""
        loaded = load_run_config(self.root / "config.yaml", overrides)
        return run(loaded, show_progress=False, evaluate=evaluate)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def query(db_path: Path | None, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Rows of `sql` over a finished run's DuckDB file."""
    assert db_path is not None
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def custom_agent(module_path: str, **extra: Any) -> dict[str, Any]:
    return {"agent_type": "custom", "module_path": module_path, **extra}
