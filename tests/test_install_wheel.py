"""Installing tracesim into an agent's own environment from a built wheel, as the README says:
the wheel installs into a fresh venv, and `tracesim init` + `tracesim run` work there, offline,
from a folder that is not the checkout (so nothing is read from the repository by accident).

Offline: the wheel is built without build isolation when the running venv has a setuptools
recent enough (the `dev` extra installs one), and the fresh venv takes its dependencies
from the running venv's site-packages (a `.pth` line) instead of an index; the wheel's
declared requirements are then checked against them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import duckdb
import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def _setuptools_builds_offline() -> bool:
    if importlib.util.find_spec("setuptools") is None:
        return False
    import setuptools

    return Version(setuptools.__version__) >= Version("77")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with only the tracesim wheel installed in it (dependencies borrowed)."""
    work = tmp_path_factory.mktemp("wheel")
    offline = ["--no-build-isolation"] if _setuptools_builds_offline() else []
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *offline]
        + ["-w", str(work / "dist"), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = (work / "dist").glob("tracesim-*.whl")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    subprocess.run(  # this interpreter's pip, installing into the fresh venv, no index
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
        + ["--no-index", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    # then the dependencies, from the running venv, after the fresh site-packages on
    # sys.path (its .pth files are not read: the checkout's editable install stays out)
    (site / "zz_borrowed_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PYTHON"))}
    env.pop("OPENAI_API_KEY", None)
    return env


def test_the_wheel_is_what_the_fresh_venv_imports(fresh: Path) -> None:
    probe = """
import json, tracesim, tracesim.collector, tracesim.evaluator.report
from importlib.metadata import PackageNotFoundError, distribution, requires, version
from packaging.requirements import Requirement

missing = []
for req in map(Requirement, requires("tracesim") or []):
    if req.marker:  # an extra's requirement
        continue
    try:
        if not req.specifier.contains(version(req.name), prereleases=True):
            missing.append(str(req))
    except PackageNotFoundError:
        missing.append(str(req))
print(json.dumps({"file": tracesim.__file__, "missing": missing,
                  "dist": str(distribution("tracesim").locate_file(""))}))
"""
    done = subprocess.run(
        [str(fresh / "bin" / "python"), "-c", probe],
        capture_output=True,
        text=True,
        cwd=fresh,
        env=_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["file"].startswith(str(fresh)), found  # the wheel, not the checkout
    assert found["dist"].startswith(str(fresh)), found
    assert found["missing"] == []  # every base requirement met by a released version


def test_init_and_run_offline_with_the_installed_wheel(fresh: Path, tmp_path: Path) -> None:
    project = tmp_path / "my-agent"
    tracesim = str(fresh / "bin" / "tracesim")
    init = subprocess.run(
        [tracesim, "init", str(project)], capture_output=True, text=True, env=_env(), timeout=120
    )
    assert init.returncode == 0, init.stdout + init.stderr
    done = subprocess.run(
        [tracesim, "run", "config.yaml"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Traceback" not in output
    assert (project / "results" / "report.html").exists()
    with duckdb.connect(str(project / "results" / "tracesim.duckdb"), read_only=True) as db:
        (turns,) = db.execute("SELECT count(*) FROM turns").fetchone()
        (spans,) = db.execute("SELECT count(*) FROM spans").fetchone()
    assert turns > 0 and spans > 0


def test_examples_ship_in_the_wheel_and_run_from_a_copy(fresh: Path, tmp_path: Path) -> None:
    """`tracesim examples NAME` copies a shipped example out of the installed wheel (no
    checkout), and the copy runs offline as printed."""
    tracesim = str(fresh / "bin" / "tracesim")
    listed = subprocess.run([tracesim, "examples"], capture_output=True, text=True, env=_env())
    assert listed.returncode == 0, listed.stderr
    assert "chat_completions_agent" in listed.stdout
    copied = subprocess.run(
        [tracesim, "examples", "chat_completions_agent"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert copied.returncode == 0, copied.stderr
    assert "next: tracesim run examples/chat_completions_agent/config.yaml" in copied.stdout
    assert (tmp_path / "examples" / "shared_tools" / "policy.py").is_file()
    done = subprocess.run(
        [tracesim, "run", "examples/chat_completions_agent/config.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "examples" / "chat_completions_agent" / "results" / "report.html").exists()
