"""collector, simulator and evaluator meet only through schemas and data (SPEC §2).

Everything installs under the one top-level name ``tracesim``; inside the repository the
folders keep the product's layout, so a module's layer is the folder it lives in and the
layer it imports is the second part of a ``tracesim.<layer>`` import.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("collector", "simulator", "evaluator")
FOLDERS = (*PACKAGES, "schemas", "providers")


def _imported_layers(path: Path) -> set[str]:
    """The tracesim layers a file imports: ``tracesim.evaluator.x`` -> ``evaluator``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    modules: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "tracesim":
                modules.extend(f"tracesim.{alias.name}" for alias in node.names)
            else:
                modules.append(node.module)
    layers: set[str] = set()
    for module in modules:
        parts = module.split(".")
        if parts[0] == "tracesim":
            layers.add(parts[1] if len(parts) > 1 and parts[1] in FOLDERS else "tracesim")
    return layers


def _bare_imports(path: Path) -> set[str]:
    """Top-level imports of a repository folder by its bare name (``import collector``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names & set(FOLDERS)


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports_no_sibling(package: str) -> None:
    offenders = []
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = _imported_layers(path) & (set(PACKAGES) - {package})
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offenders, "layering broken:\n" + "\n".join(offenders)


def test_schemas_import_nothing_from_the_project() -> None:
    for path in sorted((ROOT / "schemas").rglob("*.py")):
        bad = _imported_layers(path) & {*PACKAGES, "providers", "tracesim"}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_no_module_imports_a_folder_by_its_bare_name() -> None:
    """Only ``tracesim.*`` is installed: ``import collector`` would load a second copy."""
    offenders = []
    for folder in ("tracesim", *FOLDERS, "tests", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "record/agents" in path.as_posix():
                continue
            bad = _bare_imports(path)
            if bad:
                offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offenders, "bare imports:\n" + "\n".join(offenders)


def test_the_detector_sees_an_import(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text(
        "import os\nfrom tracesim.evaluator.calls.merge import x\nfrom tracesim import collector\n"
    )
    assert _imported_layers(sample) == {"evaluator", "collector"}
    sample.write_text("import collector.spool\n")
    assert _bare_imports(sample) == {"collector"}


_MODULE_PATH = re.compile(rf"({'|'.join(FOLDERS)})(\.[A-Za-z_][A-Za-z0-9_]*)*\.?")


def _module_path_strings(path: Path) -> list[str]:
    """String literals (and f-string heads) that name a module by its bare folder."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values:
            head = node.values[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str):
                text = head.value if head.value.endswith(".") else None
        if text and _MODULE_PATH.fullmatch(text) and "." in text:
            module = text.rstrip(".").split(".")
            if (
                ROOT.joinpath(*module[:2]).with_suffix(".py").exists()
                or (ROOT.joinpath(*module[:2]) / "__init__.py").exists()
            ):
                found.append(text)
    return found


def test_no_module_is_named_by_its_bare_folder_in_a_string() -> None:
    """importlib / monkeypatch / logger names must say tracesim.<folder>.<module>."""
    offenders = []
    for folder in ("tracesim", *FOLDERS, "tests", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "record/agents" in path.as_posix():
                continue
            offenders += [f"{path.relative_to(ROOT)}: {s!r}" for s in _module_path_strings(path)]
    assert not offenders, "bare module paths:\n" + "\n".join(offenders)
