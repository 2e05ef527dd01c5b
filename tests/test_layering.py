"""collector, simulator and evaluator meet only through schemas and data (SPEC §2)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("collector", "simulator", "evaluator")


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports_no_sibling(package: str) -> None:
    offenders = []
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = _imported_top_levels(path) & (set(PACKAGES) - {package})
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offenders, "layering broken:\n" + "\n".join(offenders)


def test_schemas_import_nothing_from_the_project() -> None:
    for path in sorted((ROOT / "schemas").rglob("*.py")):
        bad = _imported_top_levels(path) & {*PACKAGES, "tracesim"}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_detector_sees_an_import(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import os\nfrom evaluator.calls.merge import x\n")
    assert "evaluator" in _imported_top_levels(sample)
