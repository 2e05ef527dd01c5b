"""tracesim installs one top-level name and runs agent projects whose modules share our folder names."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
from click.testing import CliRunner

from tracesim.cli import cli

ROOT = Path(__file__).resolve().parent.parent
TRACESIM = Path(sys.executable).with_name("tracesim")

# The skeleton `tracesim init` writes, made to read its data from the project's own
# `schemas`, `evaluator` and `providers` modules: names tracesim's folders also have.
IMPORTS = """from evaluator import grade_reply
from providers.shipping import carrier_for
from schemas import ORDER_STATUSES
"""


def test_agent_project_with_our_folder_names_runs(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    assert CliRunner().invoke(cli, ["init", str(project)]).exit_code == 0
    agent = (project / "agent.py").read_text()
    agent = agent.replace("from tracesim import", IMPORTS + "from tracesim import", 1)
    agent = agent.replace('ORDERS = {"A1001": "shipped", "A1002": "processing"}', "ORDERS = ORDER_STATUSES")
    agent = agent.replace('reply = f"Order {order_id} is {status}."',
                          'reply = grade_reply(f"Order {order_id} is {status} ({carrier_for(order_id)}).")')
    assert agent.count("ORDER_STATUSES") == 2 and "grade_reply(" in agent
    (project / "agent.py").write_text(agent)
    (project / "schemas.py").write_text('ORDER_STATUSES = {"A1001": "shipped", "A1002": "processing"}\n')
    (project / "evaluator.py").write_text("def grade_reply(text):\n    return text\n")
    (project / "providers").mkdir()
    (project / "providers" / "__init__.py").write_text("")
    (project / "providers" / "shipping.py").write_text("def carrier_for(order):\n    return 'DHL'\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [str(TRACESIM), "run", "config.yaml"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "ImportError" not in output and "Traceback" not in output
    with duckdb.connect(str(project / "results" / "tracesim.duckdb"), read_only=True) as db:
        replies = [row[0] for row in db.sql("SELECT agent_message FROM turns").fetchall()]
    assert "Order A1001 is shipped (DHL)." in replies  # made by the project's own modules


def test_the_wheel_has_one_top_level_name(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("tracesim-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"tracesim"}
    for folder in ("collector", "evaluator", "simulator", "schemas", "providers"):
        assert f"tracesim/{folder}/__init__.py" in names
    assert "tracesim/templates/agent.py.tmpl" in names
    assert not any("/tests/" in name or name.startswith("tests/") for name in names)
