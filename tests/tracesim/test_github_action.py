"""The reusable GitHub Action (`action.yml`): its shape, and its run step executed in bash."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]


def _step(name: str) -> dict:
    (step,) = [s for s in STEPS if s.get("name") == name]
    return step


def test_it_is_a_composite_action_that_installs_runs_and_uploads() -> None:
    assert ACTION["runs"]["using"] == "composite" and ACTION["inputs"]["config"]["required"]
    uses = [s["uses"].split("@")[0] for s in STEPS if "uses" in s]
    assert uses == [
        "actions/setup-python",
        "actions/download-artifact",
        "actions/upload-artifact",
        "actions/upload-artifact",
    ]
    assert "pip install" in _step("Install tracesim")["run"]
    assert "tracesim run" in _step("Run tracesim")["run"]
    upload = _step("Upload the report")
    assert upload["if"] == "always()" and "report.html" in upload["with"]["path"]
    for step in STEPS:
        if "run" in step:  # composite run steps need a shell; inputs reach scripts via env only
            assert step["shell"] == "bash" and "${{" not in step["run"]


def test_every_expression_names_a_declared_input_or_step() -> None:
    text = (ROOT / "action.yml").read_text()
    for name in re.findall(r"inputs\.([a-z0-9-]+)", text):
        assert name in ACTION["inputs"], name
    for step_id in re.findall(r"steps\.([a-z0-9-]+)\.outputs", text):
        assert any(s.get("id") == step_id for s in STEPS), step_id
    for output in ACTION["outputs"].values():
        key = re.search(r"outputs\.([a-z-]+)", output["value"]).group(1)
        assert f"{key}=" in _step("Run tracesim")["run"]


def _run_step(tmp_path: Path, **given: str) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """Run the action's run step in bash with `given` inputs over the defaults; returns the
    process, the GITHUB_OUTPUT file and the step summary file."""
    step = _step("Run tracesim")
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    inputs["config"] = "examples/customer_service/config.yaml"
    inputs |= given
    tmp_path.mkdir(parents=True, exist_ok=True)
    context = {"github.workspace": str(tmp_path)} | {f"inputs.{k}": v for k, v in inputs.items()}
    env = {
        key: re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], value)
        for key, value in step["env"].items()
    }
    outputs, summary = tmp_path / "outputs", tmp_path / "summary.md"
    env |= {
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(tmp_path)),
    }
    proc = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, outputs, summary


def test_the_run_step_runs_tracesim_and_reports_its_outputs(tmp_path: Path) -> None:
    proc, outputs, summary = _run_step(tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values["exit-code"] == "0"  # the example has no gate
    assert Path(values["report-path"]).is_file()
    assert Path(values["report-path"]).parent == tmp_path / "tracesim-results"
    assert "<testsuites" in Path(values["junit-path"]).read_text()
    assert "tracesim: no gates defined" in summary.read_text()


def test_a_baseline_db_is_compared_and_a_missing_one_is_a_warning(tmp_path: Path) -> None:
    """A previous job's DuckDB file as the baseline: the second run is compared with it."""
    first, _, _ = _run_step(tmp_path / "a", **{"args": "--num_conversations_per_scenario 2"})
    assert first.returncode == 0, first.stderr
    baseline = tmp_path / "a" / "tracesim-results" / "tracesim.duckdb"
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "prev.duckdb").write_bytes(baseline.read_bytes())
    proc, outputs, summary = _run_step(
        tmp_path / "b",
        **{
            "baseline-db": "prev.duckdb",
            "args": "--num_conversations_per_scenario 2 "
            "--agent_config.init_kwargs.variant skip_verification",
        },
    )
    assert proc.returncode == 0, proc.stderr
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values["exit-code"] == "0"  # 2 trials each: 2/2 vs 0/2 is not significant
    text = summary.read_text()
    assert "Compared with the baseline" in text and "inconclusive" in text
    missing, _, _ = _run_step(tmp_path / "c", **{"baseline-db": "nope.duckdb"})
    assert missing.returncode == 0
    assert "::warning::baseline-db nope.duckdb not found" in missing.stdout
